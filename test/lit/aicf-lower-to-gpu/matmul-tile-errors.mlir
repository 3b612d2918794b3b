// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// A hand-written gpu.matmul_tiled register tile is whole groups of 4 rows and
// columns (the FMA loop reads the shared tiles 4 wide): tm = 6 computed 4 of its
// rows, tm = 1 divided by zero, tm > bm (no thread) divided by zero in the planner's
// vector choice.

func.func @six(%a: memref<48x64xf32>, %b: memref<64x64xf32>, %c: memref<48x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{tm = 6, tn = 4: the FMA loop reads the shared tiles in groups of 4, so both are multiples of 4}}
  aicf_loop.nest domain = [48, 64, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<48x64xf32>, memref<64x64xf32>) outs(%c : memref<48x64xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 48, bn = 64, bk = 16, tm = 6, tn = 4}} {
  ^bb0(%x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @one(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{tm = 1, tn = 1: the FMA loop reads the shared tiles in groups of 4}}
  aicf_loop.nest domain = [64, 64, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 1, bn = 1, bk = 1, tm = 1, tn = 1}} {
  ^bb0(%x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @tile_past_block(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{cannot be lowered to the GPU: gpu.matmul_tiled 64x32x16 t128x4}}
  aicf_loop.nest domain = [64, 64, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 32, bk = 16, tm = 128, tn = 4}} {
  ^bb0(%x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// The tiled kernel stages and accumulates in f32: an f64 matmul under it was rounded
// to f32 throughout (relative errors ~1e-7 on the H100, where f64 gives ~1e-16),
// without a word. The planner runs f64 matmuls on gpu.per_output (aicf-plan/matmul.mlir).
func.func @f64(%a: memref<64x64xf64>, %b: memref<64x64xf64>, %c: memref<64x64xf64>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.matmul_tiled: f64 operands: its shared tiles and accumulators are f32}}
  aicf_loop.nest domain = [64, 64, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x64xf64>, memref<64x64xf64>) outs(%c : memref<64x64xf64>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 32, bn = 32, bk = 16, tm = 4, tn = 4}} {
  ^bb0(%x: f64, %y: f64):
    %p = arith.mulf %x, %y : f64
    aicf_loop.yield %p : f64
  }
  func.return
}
