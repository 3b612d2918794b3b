// RUN: aicf-opt %s --split-input-file -p aicf-lower-to-gpu | filecheck %s

// Rows of 3001 f32 (the 16-byte boundary moves from row to row): peel=1 reads each
// row as a scalar head up to its first aligned element, float4 loads, a scalar tail.
// CHECK-LABEL: aicf_gpu.kernel @odd_nest0
// CHECK-SAME: peel=1
// CHECK: arith.remui
// CHECK: scf.for
// CHECK: aicf_gpu.load_vector {{.*}} : memref<3000x3001xf32> -> vector<4xf32>
// CHECK: scf.if
// CHECK: memref.load
// CHECK: scf.if
// CHECK: memref.load
// CHECK: aicf_gpu.warp_reduce add
func.func @odd(%x: memref<3000x3001xf32>, %y: memref<3000xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3000, 3001] iterators = [parallel, reduction]
      ins(%x : memref<3000x3001xf32>) outs(%y : memref<3000xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64, mode = "warp", block = 256 : i64, grid = 375 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, peel = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Split rows: aicf-lower-to-gpu makes the split its partial nest (each chunk of
// 18752 elements a row, whole vectors, a block each; the last chunk cut short by the
// guard, its length the min of the guard's bound) and its combine nest; each chunk
// peels its own head and tail.
// CHECK-LABEL: aicf_gpu.kernel @few_nest0(
// CHECK-SAME: grid = [48, 1, 1]
// CHECK-SAME: peel=1
// CHECK: arith.minui
// CHECK: arith.remui
// CHECK: arith.minui
// CHECK: aicf_gpu.load_vector {{.*}} -> vector<4xf32>
// CHECK: scf.if
// CHECK: scf.if
// CHECK: aicf_gpu.warp_reduce max
// CHECK-LABEL: aicf_gpu.kernel @few_nest1(
// CHECK-SAME: memref<3x16xf32>, %y : memref<3xf32>
func.func @few(%x: memref<3x300001xf32>, %y: memref<3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3, 300001] iterators = [parallel, reduction]
      ins(%x : memref<3x300001xf32>) outs(%y : memref<3xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64, mode = "split", block = 256 : i64, grid = 48 : i64, split = 16 : i64, unroll = 4 : i64, minblocks = 4 : i64, peel = 1 : i64, combine = {kind = "gpu.rows", vec = 4 : i64, mode = "warp", block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
