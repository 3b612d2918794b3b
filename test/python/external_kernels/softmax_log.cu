// softmax(log(x)) over the rows of an n x c f32 matrix, any strides (see softmax_log.c):
// the row is x / sum(x), NaN where the pattern gives NaN. One block of 256 threads a row.
extern "C" __global__ void softmax_of_log(const float *x, float *y, int64_t n, int64_t c, int64_t xs0,
                                          int64_t xs1, int64_t yn, int64_t yc, int64_t ys0, int64_t ys1) {
  __shared__ double part[256];
  __shared__ int flags[256];
  const int64_t r = blockIdx.x;
  if (r >= n) return;
  double s = 0.0;
  int bad = 0, positive = 0;
  for (int64_t j = threadIdx.x; j < c; j += blockDim.x) {
    const float v = x[r * xs0 + j * xs1];
    bad |= !(v >= 0.0f) | (v == __int_as_float(0x7f800000));
    positive |= v > 0.0f;
    s += v;
  }
  part[threadIdx.x] = s;
  flags[threadIdx.x] = bad | (positive << 1);
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) {
      part[threadIdx.x] += part[threadIdx.x + k];
      flags[threadIdx.x] |= flags[threadIdx.x + k];
    }
    __syncthreads();
  }
  const double total = part[0];
  const bool nan_row = (flags[0] & 1) || !(flags[0] & 2);
  for (int64_t j = threadIdx.x; j < c; j += blockDim.x)
    y[r * ys0 + j * ys1] = nan_row ? __int_as_float(0x7fc00000) : (float)(x[r * xs0 + j * xs1] / total);
}
