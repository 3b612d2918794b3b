// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-fuse,aicf-lower-to-loops,aicf-plan{target=cpu} -t c | filecheck %s

// A fused softmax group runs per row: the threads split the shared dim, every member
// nest runs on the row in turn (it stays in cache), and the group-local row max and
// row sum are one-element arrays on the slice's stack (registers once optimised).
// The max reduction is vectorised with a NaN flag; exp is the inline vector expf.
// CHECK-LABEL: int aicf_softmax(void *const *bufs, const int64_t *const *strides) {
// CHECK: /* aicf_loop.group shared = [512], per slice */
// CHECK: #pragma omp parallel for schedule(static)
// CHECK-NEXT: for (int64_t i0 = 0; i0 < 512; ++i0) {
// CHECK-NEXT: float [[M:l[0-9]+]][1];
// CHECK-NEXT: float [[S:l[0-9]+]][1];
// CHECK: int nan0 = 0;
// CHECK-NEXT: #pragma omp simd reduction(max:acc0) reduction(|:nan0)
// CHECK-NEXT: for (int64_t i1 = 0; i1 < 256; ++i1) {
// CHECK: if (nan0) acc0 = NAN;
// CHECK-NEXT: [[M]][0] = acc0;
// CHECK: #pragma omp simd reduction(+:acc0)
// CHECK-NEXT: for (int64_t i1 = 0; i1 < 256; ++i1) {
// CHECK: = [[M]][0];
// CHECK: aicf_expf(
// CHECK: [[S]][0] = (float)acc0;
// CHECK: #pragma omp simd
// CHECK-NEXT: for (int64_t i1 = 0; i1 < 256; ++i1) {
// CHECK: aicf_expf(
// CHECK: a1[(i0) * 256 + i1] =
// CHECK-NOT: malloc
// CHECK: return 0;
func.func @softmax(%x: tensor<512x256xf32>) -> tensor<*xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<512x256xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<512x256xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// Few rows but big member nests: the rows are too few to share among threads, so the
// member nests run one after another over the whole domain, each with its own threads.
// CHECK-LABEL: int aicf_few_rows(
// CHECK: /* aicf_loop.group shared = [4] */
// CHECK-NOT: per slice
// CHECK: m{{[0-9]+}}_mem = aicf_alloc(4 * sizeof(float));
// CHECK: #pragma omp parallel for schedule(static)
func.func @few_rows(%x: tensor<4x65536xf32>) -> tensor<*xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<4x65536xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<4x65536xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
