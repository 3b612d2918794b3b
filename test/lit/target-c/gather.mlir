// RUN: aicf-opt %s -t c | filecheck %s
// The cpu target prints a gather as loops over the output; the index is wrapped once
// (negative counts from the end) and clamped into the axis, so no read leaves the
// source.

// CHECK-LABEL: int aicf_f(
// CHECK:      /* aicf_loop.gather axis = 1 */
// CHECK:      for (int64_t i0 = 0; i0 < 3; ++i0) {
// CHECK-NEXT:   for (int64_t i1 = 0; i1 < 2; ++i1) {
// CHECK-NEXT:     int64_t k = (int64_t)a1[i1];
// CHECK-NEXT:     if (k < 0) k += 5;
// CHECK-NEXT:     k = k < 0 ? 0 : k >= 5 ? 4 : k;
// CHECK-NEXT:     a2[(i0) * 2 + i1] = a0[(i0) * 5 + k];
func.func @f(%x: memref<3x5xf32>, %i: memref<2xi32>, %y: memref<3x2xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.gather axis = 1 ins(%x, %i : memref<3x5xf32>, memref<2xi32>) outs(%y : memref<3x2xf32>)
  func.return
}
