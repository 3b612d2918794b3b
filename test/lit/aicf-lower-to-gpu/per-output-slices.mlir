// RUN: aicf-opt %s --split-input-file -p aicf-lower-to-gpu | filecheck %s

// slices = 8: the 256 threads of a block share 32 output vectors, 8 threads each;
// each walks every 8th row, then the partials fold pairwise through shared memory
// (4, 2, 1 threads: three steps, a barrier before each) and slice 0 stores. One
// kernel, no workspace, no second pass.
// CHECK-LABEL: aicf_gpu.kernel @cols_nest0(
// CHECK-SAME: slices=8
// CHECK: %[[BUF:.*]] = aicf_gpu.alloc_shared : memref<1024xf32, #aicf_gpu.address_space<shared>>
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: memref.store {{.*}}, %[[BUF]]
// CHECK: aicf_gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %[[BUF]]
// CHECK: aicf_gpu.barrier
// CHECK: scf.if
// CHECK: aicf_gpu.barrier
// CHECK: scf.if
// CHECK: scf.if
// CHECK: aicf_gpu.store_vector
// CHECK: aicf_gpu.barrier
// CHECK-NOT: aicf_gpu.kernel
// CHECK-LABEL: func.func @cols
// CHECK-NOT: memref.alloc
// CHECK: aicf_gpu.launch @cols_nest0(%x, %y) grid = [8, 1, 1] block = [256, 1, 1]
// CHECK-NOT: aicf_gpu.launch
func.func @cols(%x: memref<8192x1024xf32>, %y: memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8192, 1024] iterators = [reduction, parallel]
      ins(%x : memref<8192x1024xf32>) outs(%y : memref<1024xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 8 : i64, split = 1 : i64, slices = 8 : i64, unroll = 4 : i64, minblocks = 4 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// slices with a split: the partial nest's folded partials go to the workspace, and
// the combine nest combines the split's rows. outer_grid = 1: the chunks run on
// blockIdx.y, each block's threads on the outputs of its chunk.
// CHECK-LABEL: aicf_gpu.kernel @both_nest0(
// CHECK-SAME: grid = [8, 2, 1]
// CHECK-SAME: slices=4
// CHECK: aicf_gpu.block_id y
// CHECK: aicf_gpu.alloc_shared
// CHECK: aicf_gpu.barrier
// CHECK-LABEL: aicf_gpu.kernel @both_nest1(
// CHECK-LABEL: func.func @both
// CHECK: %[[WS:.*]] = memref.alloc() : memref<2x512xf32>
// CHECK: aicf_gpu.launch @both_nest0(%x, %[[WS]]) grid = [8, 2, 1]
// CHECK: aicf_gpu.launch @both_nest1(%[[WS]], %y)
func.func @both(%x: memref<4096x512xf32>, %y: memref<512xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 512] iterators = [reduction, parallel]
      ins(%x : memref<4096x512xf32>) outs(%y : memref<512xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [max] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 8 : i64, split = 2 : i64, slices = 4 : i64, outer_grid = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 128 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}


// -----

// 125 output vectors in tiles of 64: the last tile's threads past them fold the
// identity (every thread reaches the barriers) and store nothing.
// CHECK-LABEL: aicf_gpu.kernel @ragged_nest0(
// CHECK: scf.for
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[IN]]
// CHECK: scf.for {{.*}} iter_args
// CHECK: } else {
// CHECK: aicf_gpu.barrier
// CHECK: %[[W:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK: scf.if %[[W]]
func.func @ragged(%x: memref<4096x500xf32>, %y: memref<500xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 500] iterators = [reduction, parallel]
      ins(%x : memref<4096x500xf32>) outs(%y : memref<500xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 2 : i64, split = 1 : i64, slices = 4 : i64, unroll = 4 : i64, minblocks = 4 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
