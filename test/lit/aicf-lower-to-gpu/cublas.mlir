// RUN: aicf-opt %s -p 'aicf-plan{target=h100},aicf-lower-to-gpu' --split-input-file | filecheck %s
// A nest whose aicf.schedule is {kind = "gpu.cublas_gemm", ...} becomes one
// aicf_gpu.library_call "cublas.gemm" in its place, with the schedule's parameters
// (less the kind) and the nest's buffers; the nests around it still become kernels,
// in order.

// CHECK-LABEL: func.func @mm
// CHECK-NOT:   aicf_loop.nest
// CHECK:       aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
// CHECK-SAME:  params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32", est_ns = 4900 : i64}
// CHECK-NEXT:  func.return
func.func @mm(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 16, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32", est_ns = 4900 : i64}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// B is the first input, read transposed (B[n, k]); A (second input) transposed too
// (A[k, m]); f16 inputs with an f32 output; batch dims: A broadcast over d0 (stride
// 0 in the batched call), an outer loop over d0 where the strides do not fold.
// CHECK-LABEL: func.func @batched_t
// CHECK:       aicf_gpu.library_call "cublas.gemm" ins(%bt, %at : memref<5x6x4xf16>, memref<2x4x3xf16>) outs(%c : memref<2x5x3x6xf32>)
// CHECK-SAME:  a = 1 : i64, b = 0 : i64, m = 3 : i64, n = 6 : i64, k = 4 : i64, batch = 5 : i64, trans_a = 1 : i64, trans_b = 1 : i64, lda = 3 : i64, ldb = 4 : i64, ldc = 6 : i64
// CHECK-SAME:  stride_a = 0 : i64, stride_b = 24 : i64, stride_c = 18 : i64
// CHECK-SAME:  loops = array<i64: 2>, loop_stride_a = array<i64: 12>, loop_stride_b = array<i64: 0>, loop_stride_c = array<i64: 90>
// CHECK-SAME:  dtype = "f16", out_dtype = "f32", compute = "f32"
func.func @batched_t(%bt: memref<5x6x4xf16>, %at: memref<2x4x3xf16>, %c: memref<2x5x3x6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 5, 3, 6, 4] iterators = [parallel, parallel, parallel, parallel, reduction]
      ins(%bt, %at : memref<5x6x4xf16>, memref<2x4x3xf16>) outs(%c : memref<2x5x3x6xf32>)
      maps = [(d0, d1, d2, d3, d4) -> (d1, d3, d4), (d0, d1, d2, d3, d4) -> (d0, d4, d2), (d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 1 : i64, b = 0 : i64, m = 3 : i64, n = 6 : i64, k = 4 : i64, batch = 5 : i64, trans_a = 1 : i64, trans_b = 1 : i64, lda = 3 : i64, ldb = 4 : i64, ldc = 6 : i64, stride_a = 0 : i64, stride_b = 24 : i64, stride_c = 18 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, loops = array<i64: 2>, loop_stride_a = array<i64: 12>, loop_stride_b = array<i64: 0>, loop_stride_c = array<i64: 90>, dtype = "f16", out_dtype = "f32", compute = "f32"}} {
  ^bb0(%x: f16, %w: f16):
    %x32 = arith.extf %x : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %p = arith.mulf %x32, %w32 : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A nest before the call (a kernel launch into an intermediate) and one after: the
// host plan keeps the order, the intermediate's alloc before and dealloc after.
// CHECK-LABEL: func.func @around
// CHECK:       %[[T:.*]] = memref.alloc() : memref<8x8xf32>
// CHECK-NEXT:  %[[U:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK-NEXT:  aicf_gpu.launch @around_nest0(%x, %[[T]])
// CHECK-NEXT:  aicf_gpu.library_call "cublas.gemm" ins(%[[T]], %w : memref<8x8xf32>, memref<8x4xf32>) outs(%[[U]] : memref<8x4xf32>)
// CHECK-SAME:  compute = "tf32"
// CHECK-NEXT:  aicf_gpu.launch @around_nest{{[0-9]+}}(%[[U]], %y)
// CHECK:       memref.dealloc %[[T]]
func.func @around(%x: memref<8x8xf32>, %w: memref<8x4xf32>, %y: memref<8x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %t = memref.alloc() : memref<8x8xf32>
  %u = memref.alloc() : memref<8x4xf32>
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
      ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %s = math.exp %v : f32
    aicf_loop.yield %s : f32
  }
  aicf_loop.nest domain = [8, 4, 8] iterators = [parallel, parallel, reduction]
      ins(%t, %w : memref<8x8xf32>, memref<8x4xf32>) outs(%u : memref<8x4xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0 : i64, b = 1 : i64, m = 8 : i64, n = 4 : i64, k = 8 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 8 : i64, ldb = 4 : i64, ldc = 4 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "tf32"}} {
  ^bb0(%p: f32, %q: f32):
    %r = arith.mulf %p, %q : f32
    aicf_loop.yield %r : f32
  }
  aicf_loop.nest domain = [8, 4] iterators = [parallel, parallel]
      ins(%u : memref<8x4xf32>) outs(%y : memref<8x4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %s = math.tanh %v : f32
    aicf_loop.yield %s : f32
  }
  memref.dealloc %t : memref<8x8xf32>
  memref.dealloc %u : memref<8x4xf32>
  func.return
}
