// RUN: aicf-opt %s -p aicf-plan{target=cpu} -t c | filecheck %s

// A strided<[?, ?], offset: ?> argument reads its strides at run time; a small nest
// stays on one thread; max propagates NaN.
// CHECK-LABEL: int aicf_f(void *const *bufs, const int64_t *const *strides) {
// CHECK: const int64_t a0_s0 = strides[0][0];
// CHECK: const int64_t a0_s1 = strides[0][1];
// CHECK-NOT: omp parallel
// CHECK: a0[(i0) * a0_s0 + (i1) * a0_s1]
// CHECK: AICF_FMAX(
func.func @f(%x: memref<4x8xf32, strided<[?, ?], offset: ?>>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x : memref<4x8xf32, strided<[?, ?], offset: ?>>)
      outs(%y : memref<4x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%a : f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    aicf_loop.yield %m : f32
  }
  func.return
}
