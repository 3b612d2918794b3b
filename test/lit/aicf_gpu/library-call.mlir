// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s
// aicf_gpu.library_call (cublas.gemm, cub.reduce) prints and parses back, in its own
// form and the generic one:
// the routine, the inputs and outputs with their types, the parameters.

// CHECK-LABEL: func.func @gemm
// CHECK: aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<2x64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<2x64x16xbf16>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 2 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 2048 : i64, stride_b = 0 : i64, stride_c = 1024 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, loops = array<i64>, loop_stride_a = array<i64>, loop_stride_b = array<i64>, loop_stride_c = array<i64>, dtype = "bf16", out_dtype = "bf16", compute = "f32", est_ns = 4811 : i64}
// CHECK-NEXT: func.return
func.func @gemm(%a: memref<2x64x32xbf16>, %b: memref<32x16xbf16>, %c: memref<2x64x16xbf16>) {
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<2x64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<2x64x16xbf16>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 2 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 2048 : i64, stride_b = 0 : i64, stride_c = 1024 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, loops = array<i64>, loop_stride_a = array<i64>, loop_stride_b = array<i64>, loop_stride_c = array<i64>, dtype = "bf16", out_dtype = "bf16", compute = "f32", est_ns = 4811 : i64}
  func.return
}

// The strided-argument form: a dynamic-stride operand is described as dense (the
// runtime copies a non-contiguous array), with a static offset from a constant index.
// CHECK-LABEL: func.func @strided
// CHECK: aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<8x4xf32, strided<[?, ?], offset: ?>>, memref<3x4x5xf32>) outs(%c : memref<8x5xf32>)
// CHECK-SAME: offset_b = 40 : i64
func.func @strided(%a: memref<8x4xf32, strided<[?, ?], offset: ?>>, %b: memref<3x4x5xf32>, %c: memref<8x5xf32>) {
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<8x4xf32, strided<[?, ?], offset: ?>>, memref<3x4x5xf32>) outs(%c : memref<8x5xf32>) params = {a = 0 : i64, b = 1 : i64, m = 8 : i64, n = 5 : i64, k = 4 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 4 : i64, ldb = 5 : i64, ldc = 5 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 40 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// CHECK-LABEL: func.func @reduce
// CHECK: aicf_gpu.library_call "cub.reduce" ins(%x : memref<3x7xf16>) outs(%y : memref<3xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 3 : i64, cols = 7 : i64, dtype = "f16", out_dtype = "f32"}
func.func @reduce(%x: memref<3x7xf16>, %y: memref<3xf32>) {
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<3x7xf16>) outs(%y : memref<3xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 3 : i64, cols = 7 : i64, dtype = "f16", out_dtype = "f32"}
  func.return
}
