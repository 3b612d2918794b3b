// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// A cuBLAS schedule whose parameters do not fit the nest is reported at the nest,
// with the check that failed.

func.func @bad_ld(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // the schedule's lda (4) is shorter than a row of A (32)
  // expected-error @+1 {{'aicf_loop.nest' cannot be run as cublas.gemm: lda = 4 must be >= max(1, 32) and < 2^31}}
  aicf_loop.nest domain = [64, 16, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 4 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @missing(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // the nest's verifier checks the schedule kind's declared parameters
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.cublas_gemm needs a, b, m, n, k, batch}}
  aicf_loop.nest domain = [64, 16, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm"}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
