// RUN: aicf-opt %s -p 'aicf-lower-to-gpu' | filecheck %s
// A cublas_gemm schedule with pad_c: the call writes C into a scratch of rows pad_c
// apart (a workspace the host function allocates, so a CUDA graph keeps it as one
// of its own buffers), given as the call's second output, freed after the call.

// CHECK-LABEL: func.func @logits
// CHECK:       %[[S:.*]] = memref.alloc() {aicf_gpu.workspace} : memref<64x40xf16>
// CHECK-NEXT:  aicf_gpu.library_call "cublas.gemm" ins(%x, %w : memref<64x32xf16>, memref<32x33xf16>) outs(%c, %[[S]] : memref<64x33xf16>, memref<64x40xf16>)
// CHECK-SAME:  ldc = 33 : i64
// CHECK-SAME:  pad_c = 40 : i64
// CHECK-NEXT:  memref.dealloc %[[S]] : memref<64x40xf16>
// CHECK-NEXT:  func.return
func.func @logits(%x: memref<64x32xf16>, %w: memref<32x33xf16>, %c: memref<64x33xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 33, 32] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<64x32xf16>, memref<32x33xf16>) outs(%c : memref<64x33xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 33 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 33 : i64, ldc = 33 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f16", compute = "f32", pad_c = 40 : i64}} {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
