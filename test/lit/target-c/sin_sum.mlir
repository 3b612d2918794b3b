// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu} -t c | filecheck %s

// The ABI: one uniform signature per function; identity-layout args use constant strides.
// The entry allocates the intermediates (in mem[], freed on failure) and runs each nest
// as a step function of its own, so the C compiler's time stays linear in the program.
// CHECK: int aicf_sin_sum(void *const *bufs, const int64_t *const *strides) {
// CHECK: mem[0] = aicf_alloc(262144 * sizeof(float));
// CHECK-NEXT: if (!mem[0]) goto fail;
// CHECK-NEXT: if (aicf_sin_sum_step0(bufs, strides, mem)) goto fail;
// CHECK: for (int k = 0; k < 2; ++k) free(mem[k]);
// CHECK: static int __attribute__((noinline)) aicf_sin_sum_step0(void *const *bufs, const int64_t *const *strides, void **mem) {
// CHECK: const float *restrict a0 = (const float *)bufs[0];
// CHECK: void *const m0_mem = mem[0];
// The elementwise nests are big enough for threads; the innermost loop is simd.
// CHECK: #pragma omp parallel for schedule(static)
// CHECK-NEXT: for (int64_t i0 = 0; i0 < 512; ++i0) {
// CHECK: #pragma omp simd
// CHECK: sinf(
// The sum over the innermost axis accumulates in a local scalar.
// CHECK: float *restrict a0 = (float *)bufs[0];
// CHECK: double acc0 = 0;
// CHECK: #pragma omp simd reduction(+:acc0)
// CHECK: a0[i0] = (float)acc0;
func.func @sin_sum(%x: tensor<512x512xf32>) -> tensor<*xf32> {
  %a = aicf_tensor.constant dense<1.7> : tensor<f32>
  %0 = aicf_tensor.mul %x, %a : (tensor<512x512xf32>, tensor<f32>) -> tensor<*xf32>
  %1 = aicf_tensor.sin %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
