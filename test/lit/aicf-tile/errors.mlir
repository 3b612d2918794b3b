// RUN: aicf-opt %s -p aicf-tile --split-input-file --verify-diagnostics
// A matmul schedule on a nest that is not a matmul, or one missing a tile size
// (the nest's verifier), is an error at the nest.

func.func @not_matmul(%x: memref<8xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' has a gpu.matmul_tiled aicf.schedule but is not a matmul-shaped nest}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 32, bk = 16, tm = 4, tn = 4}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @missing(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.matmul_tiled needs tm}}
  aicf_loop.nest domain = [16, 16, 16] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 16, bn = 16, bk = 8, tn = 4}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
