// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu} -t c | filecheck %s

// A sum over axis 0: accumulate into a buffer shaped like the output, in domain order,
// with the threads splitting the inner parallel loop statically.
// CHECK-LABEL: int aicf_colsum(void *const *bufs, const int64_t *const *strides) {
// CHECK: double *t{{[0-9]+}}_0 = (double *)malloc(1024 * sizeof(double));
// CHECK: #pragma omp parallel
// CHECK: for (int64_t i0 = 0; i0 < 256; ++i0) {
// CHECK: #pragma omp for simd schedule(static) nowait
// CHECK-NEXT: for (int64_t i1 = 0; i1 < 1024; ++i1) {
func.func @colsum(%x: tensor<256x1024xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<256x1024xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
