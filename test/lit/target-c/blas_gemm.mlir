// RUN: aicf-opt %s -t c --split-input-file | filecheck %s
// A nest whose aicf.schedule is cpu.blas_gemm becomes the OpenBLAS calls its parameters
// describe: one call, a loop of calls over the batch dims, or, for operands with
// run-time strides, a layout read from the strides with the loop nest as fallback.

// CHECK: #include <cblas.h>
// CHECK-LABEL: int aicf_mm(
// CHECK: /* cpu.blas_gemm: 1 x sgemm 32x48x64 in 1 tasks */
// CHECK-NEXT: {
// CHECK-NEXT: scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 32, 48, 64, 1.0f, a0, 64, a1, 64, 0.0f, a2, 48);
// CHECK-NEXT: }
func.func @mm(%a: memref<32x64xf32>, %b: memref<48x64xf32>, %c: memref<32x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [32, 48, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<32x64xf32>, memref<48x64xf32>) outs(%c : memref<32x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 64, trans_b = "T", ldb = 64, ldc = 48}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Batch dims that do not fold: a loop of dgemm calls shared among the threads; the
// broadcast operand's pointer does not move along the dim it does not read.
// CHECK-LABEL: int aicf_batched(
// CHECK: /* cpu.blas_gemm: 6 x dgemm 4x5x3 in 6 tasks */
// CHECK: #pragma omp parallel for collapse(2) schedule(static)
// CHECK-NEXT: for (int64_t i0 = 0; i0 < 2; ++i0)
// CHECK-NEXT: for (int64_t i1 = 0; i1 < 3; ++i1)
// CHECK-NEXT: scipy_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 5, 3, 1.0, a0 + (i0) * 12, 3, a1 + (i1) * 15, 5, 0.0, a2 + (i0) * 60 + (i1) * 20, 5);
func.func @batched(%a: memref<2x1x4x3xf64>, %b: memref<3x3x5xf64>, %c: memref<2x3x4x5xf64>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 3, 4, 5, 3] iterators = [parallel, parallel, parallel, parallel, reduction]
      ins(%a, %b : memref<2x1x4x3xf64>, memref<3x3x5xf64>) outs(%c : memref<2x3x4x5xf64>)
      maps = [(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4), (d0, d1, d2, d3, d4) -> (d1, d4, d3), (d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "dgemm", m = 2, n = 3, k = 4, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 3, trans_b = "N", ldb = 5, ldc = 5}} {
  ^bb0(%x: f64, %w: f64):
    %p = arith.mulf %x, %w : f64
    aicf_loop.yield %p : f64
  }
  func.return
}

// -----

// An input with run-time strides (the cpu runtime's variant for a strided NumPy view):
// its layout is read from the strides, and a view that is no BLAS matrix runs the loop
// nest instead.
// CHECK-LABEL: int aicf_runtime(
// CHECK: /* cpu.blas_gemm: 1 x sgemm 8x8x8 in 1 tasks, strides read at run time; the loop nest when not a BLAS matrix */
// CHECK: const int ok0 = aicf_blas_layout(8, 8, a0_s0, a0_s1, &t0, &ld0);
// CHECK-NEXT: if (ok0) {
// CHECK-NEXT: scipy_cblas_sgemm(CblasRowMajor, t0 ? CblasTrans : CblasNoTrans, CblasNoTrans, 8, 8, 8, 1.0f, a0, ld0, a1, 8, 0.0f, a2, 8);
// CHECK-NEXT: } else {
// CHECK: a0[(i0) * a0_s0 + (i2) * a0_s1]
func.func @runtime(%a: memref<8x8xf32, strided<[?, ?], offset: ?>>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32, strided<[?, ?], offset: ?>>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "runtime", lda = 0, trans_b = "N", ldb = 8, ldc = 8}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// One call split into 3 column chunks, [j 100 / 3, (j + 1) 100 / 3): B (transposed)
// moves by rows of ldb per column, C by one element.
// CHECK-LABEL: int aicf_chunks(
// CHECK: /* cpu.blas_gemm: 1 x sgemm 16x100x8 in 3 tasks */
// CHECK: #pragma omp parallel for schedule(static)
// CHECK-NEXT: for (int64_t j = 0; j < 3; ++j)
// CHECK-NEXT: {
// CHECK-NEXT: const int64_t n0 = j * 100 / 3, n1 = (j + 1) * 100 / 3;
// CHECK-NEXT: scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 16, (int)(n1 - n0), 8, 1.0f, a0, 8, a1 + n0 * 8, 8, 0.0f, a2 + n0, 100);
// CHECK-NEXT: }
func.func @chunks(%a: memref<16x8xf32>, %b: memref<100x8xf32>, %c: memref<16x100xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [16, 100, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<16x8xf32>, memref<100x8xf32>) outs(%c : memref<16x100xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 3,
               trans_a = "N", lda = 8, trans_b = "T", ldb = 8, ldc = 100}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// An empty K: no call, the loop nest writes the zeros.
// CHECK-LABEL: int aicf_empty_k(
// CHECK-NOT: cblas
// CHECK: = 0;
func.func @empty_k(%a: memref<4x0xf32>, %b: memref<0x4xf32>, %c: memref<4x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 4, 0] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<4x0xf32>, memref<0x4xf32>) outs(%c : memref<4x4xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "N", lda = 1, trans_b = "N", ldb = 4, ldc = 4}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
