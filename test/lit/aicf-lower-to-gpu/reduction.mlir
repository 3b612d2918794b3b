// RUN: aicf-opt %s -p aicf-lower-to-gpu | filecheck %s

// Short rows: a warp per row, vector loads, warp shuffle reduce, lane 0 stores.
// CHECK-LABEL: aicf_gpu.kernel @short_nest0
// CHECK-SAME: aicf.schedule = "gpu.rows vec=4 mode=warp
// CHECK: aicf_gpu.load_vector
// CHECK: aicf_gpu.warp_reduce add %{{.*}} width = 32 : f32
// CHECK-NOT: aicf_gpu.barrier
// CHECK: aicf_gpu.return
func.func @short(%x: memref<4096x128xf32>, %y: memref<4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 128] iterators = [parallel, reduction]
      ins(%x : memref<4096x128xf32>) outs(%y : memref<4096xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64, mode = "warp", block = 256 : i64, grid = 512 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, est_ns = 5599 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// Few long rows: split across blocks into a workspace, then a second pass; the
// block step goes through shared memory.
// CHECK-LABEL: aicf_gpu.kernel @few_nest0(
// CHECK-SAME: mode=split
// CHECK: aicf_gpu.alloc_shared : memref<32xf32, #aicf_gpu.address_space<shared>>
// CHECK: aicf_gpu.warp_reduce max
// CHECK: aicf_gpu.barrier
// CHECK-LABEL: aicf_gpu.kernel @few_nest1(
// CHECK-LABEL: func.func @few
// CHECK: %[[WS:.*]] = memref.alloc() : memref<2x64xf32>
// CHECK: aicf_gpu.launch @few_nest0(%x, %[[WS]]) grid = [128, 1, 1]
// CHECK: aicf_gpu.launch @few_nest1(%[[WS]], %y)
// CHECK: memref.dealloc %[[WS]]
func.func @few(%x: memref<2x1048576xf32>, %y: memref<2xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 1048576] iterators = [parallel, reduction]
      ins(%x : memref<2x1048576xf32>) outs(%y : memref<2xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64, mode = "split", block = 256 : i64, grid = 128 : i64, split = 64 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.rows", vec = 4 : i64, mode = "warp", block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, est_ns = 5237 : i64}, est_ns = 12831 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// Reduction over the outer axis: threads own columns (per-output), split over the
// rows with a second pass when columns are few.
// CHECK-LABEL: aicf_gpu.kernel @cols_nest0(
// CHECK-SAME: gpu.per_output vec=4
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK-LABEL: aicf_gpu.kernel @cols_nest1(
// CHECK-LABEL: aicf_gpu.kernel @cols_nest2(
// CHECK-LABEL: func.func @cols
// CHECK: aicf_gpu.launch @cols_nest0
// CHECK: aicf_gpu.launch @cols_nest1
// CHECK: aicf_gpu.launch @cols_nest2
func.func @cols(%x: memref<8192x256xf32>, %y: memref<256xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8192, 256] iterators = [reduction, parallel]
      ins(%x : memref<8192x256xf32>) outs(%y : memref<256xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 64 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 8 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, est_ns = 6375 : i64}, est_ns = 12772 : i64}, est_ns = 43553 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
