// RUN: aicf-opt %s -t c --split-input-file --verify-diagnostics
// A cpu.blas_gemm schedule whose parameters do not fit the nest is an error at the
// nest, never a wrong call.

func.func @wrong_ld(%a: memref<32x64xf32>, %b: memref<64x48xf32>, %c: memref<32x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: input #0 with strides [64, 1] is not trans_a = 'N' with lda = 32}}
  aicf_loop.nest domain = [32, 48, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<32x64xf32>, memref<64x48xf32>) outs(%c : memref<32x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 32, trans_b = "N", ldb = 48, ldc = 48}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @wrong_trans(%a: memref<32x64xf32>, %b: memref<64x48xf32>, %c: memref<32x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: input #1 with strides [48, 1] is not trans_b = 'T' with ldb = 64}}
  aicf_loop.nest domain = [32, 48, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<32x64xf32>, memref<64x48xf32>) outs(%c : memref<32x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 64, trans_b = "T", ldb = 64, ldc = 48}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @wrong_routine(%a: memref<8x8xf64>, %b: memref<8x8xf64>, %c: memref<8x8xf64>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: sgemm needs float operands, got memref<8x8xf64>}}
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf64>, memref<8x8xf64>) outs(%c : memref<8x8xf64>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 8, trans_b = "N", ldb = 8, ldc = 8}} {
  ^bb0(%x: f64, %w: f64):
    %p = arith.mulf %x, %w : f64
    aicf_loop.yield %p : f64
  }
  func.return
}

// -----

func.func @swapped_dims(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: k = 1 must be the only reduction dim, combined by add}}
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 2, k = 1, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 8, trans_b = "N", ldb = 8, ldc = 8}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @too_many_tasks(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: tasks_n = 9: the 8 columns cannot be split in that many chunks}}
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 9,
               trans_a = "N", lda = 8, trans_b = "N", ldb = 8, ldc = 8}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @missing(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: cpu.blas_gemm needs ldc}}
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 8, trans_b = "N", ldb = 8}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @fold_mismatch(%x: memref<4x8x16xf32>, %w: memref<4x16x32xf32>, %y: memref<4x8x32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule cpu.blas_gemm does not fit this nest: dim 0 does not continue the rows of the first input and the output}}
  aicf_loop.nest domain = [4, 8, 32, 16] iterators = [parallel, parallel, parallel, reduction]
      ins(%x, %w : memref<4x8x16xf32>, memref<4x16x32xf32>) outs(%y : memref<4x8x32xf32>)
      maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d0, d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 1, n = 2, k = 3, fold = 1, tasks_n = 1,
               trans_a = "N", lda = 16, trans_b = "N", ldb = 32, ldc = 32}} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @unknown_kind(%a: memref<8xf32>, %c: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: unknown schedule kind 'cpu.tiled' (known:}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%a : memref<8xf32>) outs(%c : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "cpu.tiled"}} {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

func.func @group_member(%a: memref<4x8x8xf32>, %b: memref<4x8x8xf32>, %c: memref<4x8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [4] attributes {aicf.schedule = {kind = "cpu.group", parallel = 0, per_slice = true}} {
    // expected-error @+1 {{'aicf_loop.nest' has a cpu.blas_gemm schedule, but its group runs per slice of its shared dims on the cpu target}}
    aicf_loop.nest domain = [4, 8, 8, 8] iterators = [parallel, parallel, parallel, reduction]
        ins(%a, %b : memref<4x8x8xf32>, memref<4x8x8xf32>) outs(%c : memref<4x8x8xf32>)
        maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d0, d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add]
        attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 1, n = 2, k = 3, fold = 0, tasks_n = 1,
                 trans_a = "N", lda = 8, trans_b = "N", ldb = 8, ldc = 8}} {
    ^bb0(%x: f32, %w: f32):
      %p = arith.mulf %x, %w : f32
      aicf_loop.yield %p : f32
    }
  }
  func.return
}
