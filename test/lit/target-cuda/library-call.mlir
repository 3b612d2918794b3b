// RUN: aicf-opt %s -p 'aicf-plan{target=h100},aicf-lower-to-gpu' -t cuda | filecheck %s
// A library call has no CUDA C of ours: the host plan's comment lists it in order
// with the launches, and no kernel is printed for it.

// CHECK-NOT:  __global__ void f_nest1
// CHECK:      __global__ void
// CHECK-SAME: f_nest0
// CHECK-NOT:  __global__
// CHECK:      // host @f: f_nest0<<<{{.*}}>>>, cublas.gemm(library)
func.func @f(%x: memref<8x8xf32>, %w: memref<8x4xf32>, %y: memref<8x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %t = memref.alloc() : memref<8x8xf32>
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
      ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %s = math.exp %v : f32
    aicf_loop.yield %s : f32
  }
  aicf_loop.nest domain = [8, 4, 8] iterators = [parallel, parallel, reduction]
      ins(%t, %w : memref<8x8xf32>, memref<8x4xf32>) outs(%y : memref<8x4xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0 : i64, b = 1 : i64, m = 8 : i64, n = 4 : i64, k = 8 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 8 : i64, ldb = 4 : i64, ldc = 4 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}} {
  ^bb0(%p: f32, %q: f32):
    %r = arith.mulf %p, %q : f32
    aicf_loop.yield %r : f32
  }
  memref.dealloc %t : memref<8x8xf32>
  func.return
}
