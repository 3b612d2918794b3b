// RUN: aicf-opt %s -p 'aicf-plan{target=cpu cores=1}' --split-input-file | filecheck %s
// A gemm nest BLAS can read in place, predicted faster as BLAS than as a loop nest, gets
// an aicf.schedule of kind cpu.blas_gemm saying which dims are m, n and k, how many
// batch dims fold into M, and each operand's layout (trans, leading dimension).

// CHECK-LABEL: func.func @mm
// CHECK: aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0 : i64, n = 1 : i64, k = 2 : i64, fold = 0 : i64, tasks_n = 1 : i64, trans_a = "N", lda = 32 : i64, trans_b = "N", ldb = 48 : i64, ldc = 48 : i64, blas_ns = {{[0-9]+}} : i64, nest_ns = {{[0-9]+}} : i64, fallback_parallel = {{[0-9]+}} : i64, fallback_acc = "f64"}
func.func @mm(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<64x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// x @ W with x: (4, 8, 16): the batch dim continues x's and the output's rows and W
// does not read it, so it folds into M: one 32x32x16 call.
// CHECK-LABEL: func.func @fold
// CHECK: kind = "cpu.blas_gemm", routine = "sgemm", m = 1 : i64, n = 2 : i64, k = 3 : i64, fold = 1 : i64, tasks_n = 1 : i64, trans_a = "N", lda = 16 : i64, trans_b = "N", ldb = 32 : i64, ldc = 32 : i64
func.func @fold(%x: memref<4x8x16xf32>, %w: memref<16x32xf32>, %y: memref<4x8x32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8, 32, 16] iterators = [parallel, parallel, parallel, reduction]
      ins(%x, %w : memref<4x8x16xf32>, memref<16x32xf32>) outs(%y : memref<4x8x32xf32>)
      maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Broadcast batch dims (3, 1) x (5): a loop of 15 calls, nothing folds.
// CHECK-LABEL: func.func @broadcast_batch
// CHECK: m = 2 : i64, n = 3 : i64, k = 4 : i64, fold = 0 : i64, tasks_n = 1 : i64, trans_a = "N", lda = 16 : i64, trans_b = "N", ldb = 32 : i64, ldc = 32 : i64
func.func @broadcast_batch(%x: memref<3x1x64x16xf32>, %w: memref<5x16x32xf32>, %y: memref<3x5x64x32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3, 5, 64, 32, 16] iterators = [parallel, parallel, parallel, parallel, reduction]
      ins(%x, %w : memref<3x1x64x16xf32>, memref<5x16x32xf32>) outs(%y : memref<3x5x64x32xf32>)
      maps = [(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4), (d0, d1, d2, d3, d4) -> (d1, d4, d3), (d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)] combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %b, %a : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Operands read transposed by their maps (A stored k x m, B stored n x k) are BLAS's
// transposed operands, read in place; f64 runs dgemm.
// CHECK-LABEL: func.func @transposed_f64
// CHECK: kind = "cpu.blas_gemm", routine = "dgemm", m = 0 : i64, n = 1 : i64, k = 2 : i64, fold = 0 : i64, tasks_n = 1 : i64, trans_a = "T", lda = 64 : i64, trans_b = "T", ldb = 32 : i64, ldc = 48 : i64
func.func @transposed_f64(%a: memref<32x64xf64>, %b: memref<48x32xf64>, %c: memref<64x48xf64>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<32x64xf64>, memref<48x32xf64>) outs(%c : memref<64x48xf64>)
      maps = [(d0, d1, d2) -> (d2, d0), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f64, %w: f64):
    %p = arith.mulf %x, %w : f64
    aicf_loop.yield %p : f64
  }
  func.return
}

// -----

// A vector times a matrix (NumPy drops the m dim): M = 1.
// CHECK-LABEL: func.func @vecmat
// CHECK: m = -1 : i64, n = 0 : i64, k = 1 : i64, fold = 0 : i64, tasks_n = 1 : i64, trans_a = "N", lda = 512 : i64, trans_b = "N", ldb = 256 : i64, ldc = 256 : i64
func.func @vecmat(%v: memref<512xf32>, %b: memref<512x256xf32>, %c: memref<256xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [256, 512] iterators = [parallel, reduction]
      ins(%v, %b : memref<512xf32>, memref<512x256xf32>) outs(%c : memref<256xf32>)
      maps = [(d0, d1) -> (d1), (d0, d1) -> (d1, d0), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
