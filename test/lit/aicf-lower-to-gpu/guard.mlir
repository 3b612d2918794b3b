// RUN: aicf-opt %s --split-input-file -p 'aicf-lower-to-gpu{target=h100}' --verify-diagnostics | filecheck %s

// A guarded nest (a split's partial: chunks of 30 over 100 points) under gpu.per_output:
// each thread walks min(30, 100 - 30 * s) points of its chunk.
// CHECK-LABEL: aicf_gpu.kernel @chunks_nest0(
// CHECK: arith.minui
// CHECK: scf.for {{.*}} iter_args
// CHECK-LABEL: func.func @chunks
// CHECK: aicf_gpu.launch @chunks_nest0(%x, %y)
func.func @chunks(%x: memref<100x8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 30, 8] iterators = [parallel, reduction, parallel]
      ins(%x : memref<100x8xf32>) outs(%y : memref<4x8xf32>)
      maps = [(d0, d1, d2) -> (d0 * 30 + d1, d2), (d0, d1, d2) -> (d0, d2)] combiners = [add]
      guard = (d0, d1, d2) : (99 - d0 * 30 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 32 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Only gpu.rows and gpu.per_output walk a guarded dim to its bound.
func.func @guarded_matmul(%a: memref<64x100xf32>, %b: memref<100x64xf32>, %c: memref<4x64x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: schedule kind gpu.matmul_tiled cannot run a guarded nest (only gpu.per_output, gpu.rows can)}}
  aicf_loop.nest domain = [4, 64, 64, 30] iterators = [parallel, parallel, parallel, reduction]
      ins(%a, %b : memref<64x100xf32>, memref<100x64xf32>) outs(%c : memref<4x64x64xf32>)
      maps = [(d0, d1, d2, d3) -> (d1, d0 * 30 + d3), (d0, d1, d2, d3) -> (d0 * 30 + d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add]
      guard = (d0, d1, d2, d3) : (99 - d0 * 30 - d3 >= 0)
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64 : i64, bn = 64 : i64, bk = 16 : i64, tm = 4 : i64, tn = 4 : i64, threads = 256 : i64, stages = 2 : i64, vec_a = 4 : i64, dim_a = "k", vec_b = 4 : i64, dim_b = "n", vec_c = 4 : i64, swizzle = false}} {
  ^bb0(%p : f32, %q : f32):
    %m = arith.mulf %p, %q : f32
    aicf_loop.yield %m : f32
  }
  func.return
}

// -----

// A guard whose loop end (bound + 1 = 4294967301) leaves int32: the kernel computes it
// in 64-bit index arithmetic (in 32 bits it wrapped to 5 and each row summed 5 of its
// 100 points).
// CHECK-LABEL: aicf_gpu.kernel @big_end_nest0(
// CHECK-SAME: index = 64
// CHECK: arith.constant 4294967301 : index
func.func @big_end(%x: memref<4x100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 100] iterators = [parallel, reduction]
      ins(%x : memref<4x100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (4294967300 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 32 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// peel = 1 folds the scalar ends of one reduction dim; a guarded nest's dims do not
// merge, so two reduction dims stay two (the builder crashed in arith.addi).
func.func @peel_two_dims(%x: memref<4x3x32xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.rows peel = 1 takes one reduction dim, not 2 (they did not merge into one row)}}
  aicf_loop.nest domain = [4, 3, 32] iterators = [parallel, reduction, reduction]
      ins(%x : memref<4x3x32xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0)] combiners = [add]
      guard = (d0, d1, d2) : (1 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4 : i64, mode = "warp", block = 32 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64, peel = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
