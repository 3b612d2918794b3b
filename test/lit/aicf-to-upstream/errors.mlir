// RUN: aicf-opt %s -p aicf-to-upstream --split-input-file --verify-diagnostics
// What has no form MLIR 16 parses is an error at the op.

func.func @sinh(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    // expected-error @+1 {{'math.sinh' has no counterpart in MLIR 16 (mlir-opt-16 would not parse it)}}
    %s = math.sinh %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// -----

// expected-error @+1 {{'aicf_gpu.kernel' is GPU-level: aicf-to-upstream takes the loop level (before aicf-lower-to-gpu)}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  aicf_gpu.return
}

// -----

func.func @guarded(%x: memref<100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf-to-upstream does not lower a guarded nest (a split's partial or a scan); emit it with -t c or -t cuda}}
  aicf_loop.nest domain = [4, 30] iterators = [parallel, reduction]
      ins(%x : memref<100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0 * 30 + d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (99 - d0 * 30 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
