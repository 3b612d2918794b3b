"""The flash-attention kernel of the cuda target (issue 11): `aicf_loop.attention`
scheduled `gpu.flash_attention` runs as `aicf_gpu.library_call "aicf.flash_attention"`,
one launch of the kernel below, instantiated for the call's head dim, element type,
tile shape and causal flag (the schedule's parameters).

The kernel is FlashAttention-2's forward on the portable tensor-core path (`mma.sync`
m16n8k16, sm_80 and later):

- a block owns BLOCK_M queries of one (batch, head) and walks the keys BLOCK_N at a
  time; each of its warps owns 16 of the queries, whose Q fragments stay in registers
  for the whole walk;
- a K tile and a V tile go through shared memory (16-byte `cp.async` copies, rows
  padded by 16 bytes so that the fragment loads of 8 rows fall in distinct banks),
  each loaded while the other is used: V_i during S = Q K_i^T, K_{i+1} during
  O += P V_i (FlashAttention-2's schedule, no second buffer);
- S = Q K^T per warp on the tensor cores (f32 accumulators), the online softmax in
  f32 on those accumulators (row max and sum across the 4 threads that share a row),
  exp2 with the scale folded into log2(e); P is rounded to the element type and fed
  back as the A operand of O += P V (an m16n8 accumulator pair is an m16k16 A
  fragment), V's B fragments through `ldmatrix.trans`;
- keys past Sk, and keys after the query under `causal` (top-left, torch's
  is_causal), score -inf; causal blocks stop at their last query's key; a row with
  no key left gives 0 (the op's meaning, torch's safe softmax);
- extents need not be tile multiples: rows past Sq are neither loaded nor stored.

No CUDA headers: element types travel as their bits (NVRTC has no include path
here), conversions are PTX `cvt`.

Operands (element strides, the head dim contiguous): Q, K, V, O of logical shapes
[b0, b1, S, D] (b0, b1 = 1 where the op has fewer batch dims); the launch is
grid (ceil(Sq / BLOCK_M), b0 * b1), block (32 * WARPS).
"""

from __future__ import annotations

import math

SOURCE = r"""
typedef unsigned short elt_t;     // f16 or bf16 bits
typedef unsigned int u32;
typedef long long i64;
struct alignas(16) v16 { u32 w[4]; };  // a 16-byte copy

#define WARPS (BLOCK_M / 16)
#define LDS (HEAD_DIM + 8)        // padded shared row, in elements
#define NT (BLOCK_N / 8)          // n8 score tiles per warp row block
#define DT (HEAD_DIM / 8)         // n8 output tiles
#define KT (HEAD_DIM / 16)        // k16 steps of Q K^T

// the three PTX instructions, which a host emulation (tests) defines instead
#ifndef AICF_EMULATE
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
#if IS_BF16
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#else
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

__device__ __forceinline__ void mma(float *c, const u32 *a, u32 b0, u32 b1) {
#if IS_BF16
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#endif
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 16 bytes global -> shared without a register round trip (sm_80's cp.async), zeros
// when `full` is false (src-size 0: nothing is read)
__device__ __forceinline__ void cp_async16(elt_t *dst, const elt_t *src, bool full) {
  u32 addr;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(addr) : "l"(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(addr), "l"(src), "r"(full ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }

__device__ __forceinline__ void ldmatrix_x4_trans(u32 *r, const elt_t *p) {
  u32 addr;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(addr) : "l"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
#endif

// rows [row0, row0 + BLOCK_N) of a [S, HEAD_DIM] matrix into a padded shared tile, 16
// bytes an asynchronous copy (the caller commits and waits); rows past `rows` are zero
// (their scores are masked, their V rows must not be NaN garbage: 0 * NaN would poison O)
__device__ __forceinline__ void load_tile(elt_t *dst, const elt_t *src, i64 stride, int row0, int rows) {
  const int per_row = HEAD_DIM / 8;
  for (int c = threadIdx.x; c < BLOCK_N * per_row; c += 32 * WARPS) {
    const int r = c / per_row, col = (c % per_row) * 8;
    const bool in = row0 + r < rows;
    cp_async16(dst + r * LDS + col, in ? src + (i64)(row0 + r) * stride + col : src, in);
  }
}

extern "C" __global__ void __launch_bounds__(32 * WARPS, 1)  // 1: no register cap (hd 128 spilled at 168)
aicf_flash_attention(const elt_t *__restrict__ q, const elt_t *__restrict__ k, const elt_t *__restrict__ v,
                     elt_t *__restrict__ o, int sq, int sk, int nb1,
                     i64 qb0, i64 qb1, i64 qs, i64 kb0, i64 kb1, i64 ks,
                     i64 vb0, i64 vb1, i64 vs, i64 ob0, i64 ob1, i64 os, float scale_log2) {
  alignas(16) __shared__ elt_t ks_tile[BLOCK_N * LDS];
  alignas(16) __shared__ elt_t vs_tile[BLOCK_N * LDS];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;  // the fragment's row group and column pair
  const int b0 = blockIdx.y / nb1, b1 = blockIdx.y % nb1;
  q += b0 * qb0 + b1 * qb1;
  k += b0 * kb0 + b1 * kb1;
  v += b0 * vb0 + b1 * vb1;
  o += b0 * ob0 + b1 * ob1;
  const int m0 = blockIdx.x * BLOCK_M + warp * 16;  // the warp's first query
  const int rows[2] = {m0 + g, m0 + g + 8};

  // Q as A fragments: (row g, cols 2t, 2t+1), (row g+8, ...), then cols + 8
  u32 qa[KT][4];
  #pragma unroll
  for (int kk = 0; kk < KT; ++kk)
    for (int h = 0; h < 2; ++h)
      for (int r = 0; r < 2; ++r) {
        const int col = kk * 16 + h * 8 + 2 * t;
        qa[kk][h * 2 + r] = rows[r] < sq ? *reinterpret_cast<const u32 *>(q + (i64)rows[r] * qs + col) : 0u;
      }

  float acc[DT][4];
  #pragma unroll
  for (int d = 0; d < DT; ++d) acc[d][0] = acc[d][1] = acc[d][2] = acc[d][3] = 0.f;
  float mx[2] = {-AICF_INF, -AICF_INF}, sum[2] = {0.f, 0.f};

  int kend = sk;
#if CAUSAL
  kend = min(sk, (int)(blockIdx.x + 1) * BLOCK_M);  // keys after the block's last query are masked
#endif
  // FlashAttention-2's overlap of loads and math with one buffer per operand: V_i
  // lands while S = Q K_i^T and its softmax are computed, K_{i+1} while O += P V_i
  if (kend > 0) {
    load_tile(ks_tile, k, ks, 0, sk);
    cp_async_commit();
  }
  for (int n0 = 0; n0 < kend; n0 += BLOCK_N) {
    cp_async_wait_all();
    __syncthreads();  // K_i is in; every warp is done reading V_{i-1}
    load_tile(vs_tile, v, vs, n0, sk);
    cp_async_commit();

    float s[NT][4];
    #pragma unroll
    for (int j = 0; j < NT; ++j) {
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
      // B fragment of K^T: (k = 2t, 2t+1; n = g) is K[n0 + 8j + g][2t ..], contiguous
      const elt_t *krow = ks_tile + (j * 8 + g) * LDS + 2 * t;
      #pragma unroll
      for (int kk = 0; kk < KT; ++kk)
        mma(s[j], qa[kk], *reinterpret_cast<const u32 *>(krow + kk * 16),
            *reinterpret_cast<const u32 *>(krow + kk * 16 + 8));
    }

    // scale, mask, and the online softmax of the two rows this thread holds
    float tile_max[2] = {-AICF_INF, -AICF_INF};
    #pragma unroll
    for (int j = 0; j < NT; ++j)
      for (int e = 0; e < 4; ++e) {
        const int key = n0 + j * 8 + 2 * t + (e & 1), r = e >> 1;
        bool keep = key < sk;
#if CAUSAL
        keep = keep && key <= rows[r];
#endif
        s[j][e] = keep ? s[j][e] * scale_log2 : -AICF_INF;
        tile_max[r] = fmaxf(tile_max[r], s[j][e]);
      }
    float corr[2];
    #pragma unroll
    for (int r = 0; r < 2; ++r) {
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 1));
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 2));
      const float m_new = fmaxf(mx[r], tile_max[r]);
      // a row with no key yet keeps max -inf: exp2(-inf - 0) = 0 instead of NaN
      const float base = m_new == -AICF_INF ? 0.f : m_new;
      corr[r] = exp2f(mx[r] - base);
      mx[r] = m_new;
      sum[r] *= corr[r];
      #pragma unroll
      for (int j = 0; j < NT; ++j) {
        s[j][2 * r] = exp2f(s[j][2 * r] - base);
        s[j][2 * r + 1] = exp2f(s[j][2 * r + 1] - base);
        sum[r] += s[j][2 * r] + s[j][2 * r + 1];
      }
    }
    #pragma unroll
    for (int d = 0; d < DT; ++d) {
      acc[d][0] *= corr[0]; acc[d][1] *= corr[0];
      acc[d][2] *= corr[1]; acc[d][3] *= corr[1];
    }

    cp_async_wait_all();
    __syncthreads();  // V_i is in; every warp is done reading K_i
    if (n0 + BLOCK_N < kend) {
      load_tile(ks_tile, k, ks, n0 + BLOCK_N, sk);
      cp_async_commit();
    }

    // O += P V, 16 keys at a time: P's A fragment is two n8 accumulator tiles
    #pragma unroll
    for (int kk = 0; kk < BLOCK_N / 16; ++kk) {
      const u32 pa[4] = {pack2(s[2 * kk][0], s[2 * kk][1]), pack2(s[2 * kk][2], s[2 * kk][3]),
                         pack2(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack2(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      #pragma unroll
      for (int d = 0; d < DT; d += 2) {
        // four 8x8 matrices of V, transposed: keys kk*16 + (0..7 | 8..15), dims d*8 and d*8 + 8
        const int mat = lane / 8, r = lane % 8;
        u32 b[4];
        ldmatrix_x4_trans(b, vs_tile + (kk * 16 + (mat & 1) * 8 + r) * LDS + (d + (mat >> 1)) * 8);
        mma(acc[d], pa, b[0], b[1]);
        mma(acc[d + 1], pa, b[2], b[3]);
      }
    }
  }

  #pragma unroll
  for (int r = 0; r < 2; ++r) {
    sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 1);
    sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 2);
  }
  #pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (rows[r] >= sq) continue;
    const float inv = sum[r] > 0.f ? 1.f / sum[r] : 0.f;  // no key: 0, as the op says
    elt_t *orow = o + (i64)rows[r] * os + 2 * t;
    #pragma unroll
    for (int d = 0; d < DT; ++d)
      *reinterpret_cast<u32 *>(orow + d * 8) = pack2(acc[d][2 * r] * inv, acc[d][2 * r + 1] * inv);
  }
}
"""

ENTRY = "aicf_flash_attention"


def source(head_dim: int, dtype: str, block_m: int, block_n: int, causal: bool) -> str:
    """The kernel for one instantiation (its parameters as macros)."""
    defs = {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n,
            "IS_BF16": int(dtype == "bf16"), "CAUSAL": int(causal)}  # fmt: skip
    head = "".join(f"#define {k} {v}\n" for k, v in defs.items())
    return head + "#define AICF_INF __int_as_float(0x7f800000)\n" + SOURCE


def launch(sq: int, batch: int, block_m: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (max(math.ceil(sq / block_m), 1), batch, 1), (32 * (block_m // 16), 1, 1)

