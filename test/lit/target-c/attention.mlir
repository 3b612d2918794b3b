// RUN: aicf-opt %s --split-input-file -t c | filecheck %s
// cpu.attention in C: a tile of block_q queries per iteration of the (OpenMP) loops
// over the batch dims and the query tiles; keys and values in tiles of block_k,
// converted to f32 on the stack; an online softmax per row (running max m and sum l,
// the accumulators rescaled by e^(m_old - m)); causal tiles stop at the tile's last
// query; a row whose sum stays 0 (masked out entirely) writes 0.

// CHECK-LABEL: int aicf_causal(
// CHECK:      /* aicf_loop.attention [2x37x64] Sq=37 Sk=37 D=64 Dv=64 causal, tiles 16x32 */
// CHECK:      #pragma omp parallel for collapse(2) schedule(static)
// CHECK-NEXT: for (int64_t b0 = 0; b0 < 2; ++b0) {
// CHECK-NEXT:   for (int64_t qt = 0; qt < 3; ++qt) {
// CHECK-NEXT:     const int64_t i0 = qt * 16;
// CHECK:          float qt_[16][64], acc[16][64], s[16][32], kt_[64][32], vt_[32][64];
// CHECK:          qt_[i][c] = (float)a0[b0 * 2368 + (i0 + i) * 64 + (c) * 1];
// CHECK:          const int64_t kend = i0 + nq < 37 ? i0 + nq : 37;
// CHECK-NEXT:     for (int64_t j0 = 0; j0 < kend; j0 += 32) {
// the K tile stored transposed; four query rows share each load of a K row
// CHECK:          kt_[c][j] = (float)a1[b0 * 2368 + (j0 + j) * 64 + (c) * 1];
// CHECK:          for (; i + 4 <= nq; i += 4) {
// CHECK:          s[i][j] += q0 * kt_[c][j]; s[i + 1][j] += q1 * kt_[c][j]; s[i + 2][j] += q2 * kt_[c][j]; s[i + 3][j] += q3 * kt_[c][j];
// the online softmax, a row at a time
// CHECK:          #pragma omp simd reduction(max:mx) reduction(|:nan)
// CHECK:          x = j0 + j > i0 + i ? ((float)-INFINITY) : x;
// CHECK:          const float shift = mx == ((float)-INFINITY) ? 0 : mx;
// CHECK-NEXT:     const float corr = aicf_expf(mrow[i] - shift);
// CHECK:          lrow[i] = lrow[i] * corr + lsum; mrow[i] = mx;
// CHECK:          acc[i][e] *= corr;
// CHECK:          acc[i][e] += p0 * vt_[j][e]; acc[i + 1][e] += p1 * vt_[j][e];
// CHECK:          const float inv = lrow[i] == 0 ? 0 : 1 / lrow[i];
// CHECK:          a3[b0 * 2368 + (i0 + i) * 64 + (e) * 1] = (_Float16)(acc[i][e] * inv);
func.func @causal(%q: memref<2x37x64xf16>, %k: memref<2x37x64xf16>, %v: memref<2x37x64xf16>, %o: memref<2x37x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 causal ins(%q, %k, %v : memref<2x37x64xf16>, memref<2x37x64xf16>, memref<2x37x64xf16>) outs(%o : memref<2x37x64xf16>) {aicf.schedule = {kind = "cpu.attention", block_q = 16 : i64, block_k = 32 : i64, parallel = 2 : i64}}
  func.return
}

// -----

// K given as D x S (read through its strides), a bf16 operand set, an i1 mask
// broadcast over the queries, one thread
// CHECK-LABEL: int aicf_masked(
// CHECK-NOT:  #pragma omp parallel
// CHECK:      kt_[c][j] = (float)aicf_bf16_to_f32(a1[0 + (j0 + j) * 1 + (c) * 5]);
// CHECK:      x = a3[(j0 + j) * 1] ? x : ((float)-INFINITY);
// CHECK:      = aicf_f32_to_bf16((float)(acc[i][e] * inv));
func.func @masked(%q: memref<4x8xbf16>, %kt: memref<8x5xbf16>, %v: memref<5x8xbf16>, %m: memref<5xi1>, %o: memref<4x8xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 1.0 k_perm = [1, 0] ins(%q, %kt, %v, %m : memref<4x8xbf16>, memref<8x5xbf16>, memref<5x8xbf16>, memref<5xi1>) outs(%o : memref<4x8xbf16>) {aicf.schedule = {kind = "cpu.attention", block_q = 4 : i64, block_k = 2 : i64, parallel = 0 : i64}}
  func.return
}

// -----

// an additive f32 mask on f64 operands: computed in double with libm's exp
// CHECK-LABEL: int aicf_f64(
// CHECK:      double qt_[2][3]
// CHECK:      x += (double)a1[(i0 + i) * 2 + (j0 + j) * 1];
// CHECK:      const double p = exp(s[i][j] - shift);
func.func @f64(%q: memref<2x3xf64>, %m: memref<2x2xf32>, %o: memref<2x3xf64>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q, %m : memref<2x3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2x2xf32>) outs(%o : memref<2x3xf64>) {aicf.schedule = {kind = "cpu.attention", block_q = 2 : i64, block_k = 2 : i64, parallel = 0 : i64}}
  func.return
}

