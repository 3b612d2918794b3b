/* softmax(log(x)) over the rows of an n x c f32 matrix, any strides.
   exp(log(x) - log(m)) = x / m, so the row is x / sum(x): two passes, no log or exp,
   where the compiler's own kernel evaluates log three times and exp twice per element.
   IEEE cases as the pattern has them: a negative, NaN or +inf element, or a row of
   zeros, makes the whole row NaN. */
#include <math.h>

int softmax_of_log(const aicf_tensor *args, int64_t nargs, void *workspace) {
  (void)nargs; (void)workspace;
  const float *x = (const float *)args[0].data;
  float *y = (float *)args[1].data;
  const int64_t n = args[0].shape[0], c = args[0].shape[1];
  const int64_t xs0 = args[0].strides[0], xs1 = args[0].strides[1];
  const int64_t ys0 = args[1].strides[0], ys1 = args[1].strides[1];
  for (int64_t r = 0; r < n; ++r) {
    const float *xr = x + r * xs0;
    float *yr = y + r * ys0;
    double s = 0.0;
    int bad = 0, positive = 0;
    for (int64_t j = 0; j < c; ++j) {
      const float v = xr[j * xs1];
      bad |= !(v >= 0.0f) | (v == INFINITY);
      positive |= v > 0.0f;
      s += v;
    }
    if (bad || !positive) {
      for (int64_t j = 0; j < c; ++j) yr[j * ys1] = NAN;
      continue;
    }
    const double inv = 1.0 / s;
    for (int64_t j = 0; j < c; ++j) yr[j * ys1] = (float)(xr[j * xs1] * inv);
  }
  return 0;
}
