"""The Hopper flash-attention kernel (issue 11): `gpu.flash_attention` with
`mma = "wgmma"` runs this kernel instead of the portable mma.sync one
(backend/cuda/flash_attention.py). Same operands, same launch ABI, same meaning
(causal top-left, keys past Sk masked, a row without keys gives 0); sm_90a only.

FlashAttention-3's forward without warp specialisation:

- a block owns BLOCK_M = 64 x WG queries of one (batch, head): WG warpgroups of 64
  rows each; all its threads copy, all compute;
- Q, and K and V tiles of BLOCK_N keys, go global -> shared by 16-byte `cp.async`
  into the layout wgmma reads: 64-element (128-byte) column panels, rows swizzled by
  the 128-byte pattern (16-byte chunk c of row r at c ^ (r % 8)); two K/V stages, so
  tile j+1 lands while tile j is used and tile j+2 is issued as soon as j is done;
- S = Q K_j^T: wgmma m64n{BLOCK_N}k16 with both operands in shared memory (K-major),
  f32 accumulators in registers;
- the online softmax in f32 on those accumulators (a thread holds two rows' pieces;
  row max and sum across the 4 threads that share a row), exp2 with the scale
  folded into log2(e); masking only on the tiles that need it (the last key tile,
  the causal diagonal);
- O += P V_j: wgmma m64n{HEAD_DIM}k16 with P from registers (an m64n16 pair of the
  S accumulator's fragments is the A fragment of k16, for 16-bit types) and V from
  shared memory read transposed (MN-major, the descriptor's leading offset the
  distance between 64-column panels);
- causal blocks stop at their last query's key and run longest first.

No CUDA headers (NVRTC has no include path here): element types travel as their
bits, conversions are PTX `cvt`.
"""

from __future__ import annotations

import math

MIN_SM = 90  # wgmma: exactly sm_90a
ARCH = "sm_90a"
WARPGROUP = 128
STAGES = 2


def _wgmma_ss(n: int, ptx_t: str) -> str:
    """acc(m64 x n) (+)= A(smem) B(smem), both K-major; scale_d 0 starts from zero."""
    regs = n // 2
    dl = ", ".join(f"%{i}" for i in range(regs))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    return (
        f"__device__ __forceinline__ void wgmma_ss_n{n}(float *d, u64 da, u64 db, int scale_d) {{\n"
        f'  asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n'
        f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_t}.{ptx_t} "
        f'{{{dl}}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 0;\\n}}\\n"\n'
        f'               : {outs}\n'
        f'               : "l"(da), "l"(db), "r"(scale_d));\n}}\n'
    )


def _wgmma_rs(n: int, ptx_t: str) -> str:
    """acc(m64 x n) += A(registers, k16) B(smem, MN-major: transposed)."""
    regs = n // 2
    dl = ", ".join(f"%{i}" for i in range(regs))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    a = ", ".join(f"%{regs + i}" for i in range(4))
    return (
        f"__device__ __forceinline__ void wgmma_rs_n{n}(float *d, const u32 *a, u64 db) {{\n"
        f'  asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_t}.{ptx_t} '
        f'{{{dl}}}, {{{a}}}, %{regs + 4}, 1, 1, 1, 1;\\n"\n'
        f'               : {outs}\n'
        f'               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));\n}}\n'
    )


SOURCE = r"""
#define CONSUMERS (BLOCK_M / 64)     // consumer warpgroups, 64 queries each
#define THREADS (128 * (CONSUMERS + 1))
#define PANEL_Q (BLOCK_M * 128)      // bytes of one 64-column panel of a tile
#define PANEL_KV (BLOCK_N * 128)
#define QBYTES (PANEL_Q * (HEAD_DIM / 64))
#define KVBYTES (PANEL_KV * (HEAD_DIM / 64))
#define NS (BLOCK_N / 2)             // S accumulators per thread
#define NO (HEAD_DIM / 2)            // O accumulators per thread

struct __align__(64) tmap { u64 opaque[16]; };

__device__ __forceinline__ u32 smem_addr(const void *p) { return (u32)__cvta_generic_to_shared(p); }

__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
#if IS_BF16
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#else
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

// the wgmma matrix descriptor (PTX ISA): start, leading and stride byte offsets >> 4,
// 128-byte swizzle
__device__ __forceinline__ u64 desc(u32 addr, u32 lead, u32 stride) {
  return (u64)((addr & 0x3FFFF) >> 4) | ((u64)((lead & 0x3FFFF) >> 4) << 16)
       | ((u64)((stride & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
// pins accumulators to this point: the compiler must not move their use above a wait
template <int N> __device__ __forceinline__ void fence_regs(float *r) {
  #pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i]) :: "memory");
}

__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count)); }
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory"); }
__device__ __forceinline__ void mbar_expect(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory"); }
__device__ __forceinline__ void mbar_wait(u32 bar, u32 phase) {
  asm volatile("{\n.reg .pred p;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT_%=;\n}\n"
               :: "r"(bar), "r"(phase) : "memory"); }
__device__ __forceinline__ void tma_load(u32 dst, const tmap *map, u32 bar, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5, %6}], [%2];"
               :: "r"(dst), "l"((u64)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory"); }
// the consumers take turns issuing their products (FlashAttention-3's ping-pong): one's
// softmax runs while the other's products keep the tensor cores busy
__device__ __forceinline__ void turn_wait(int c) { asm volatile("bar.sync %0, 256;" :: "r"(1 + c) : "memory"); }
__device__ __forceinline__ void turn_pass(int c) { asm volatile("bar.arrive %0, 256;" :: "r"(2 - c) : "memory"); }

// scale and mask one S tile, fold it into the running max and sum, leave exp2 of the
// scores in `s` and the factor the output is rescaled by in `corr`.
// s[4j + e]: row rows[e >> 1], key n0 + 8j + 2t + (e & 1)
__device__ __forceinline__ void softmax_tile(float *s, float *mx, float *sum, float *corr, int n0, int sk,
                                             const int *rows, int t, bool masked, float scale_log2) {
  float tile_max[2] = {-AICF_INF, -AICF_INF};
  if (masked) {
    #pragma unroll
    for (int i = 0; i < NS; ++i) {
      const int key = n0 + (i / 4) * 8 + 2 * t + (i & 1), r = (i >> 1) & 1;
      bool keep = key < sk;
#if CAUSAL
      keep = keep && key <= rows[r];
#endif
      s[i] = keep ? s[i] * scale_log2 : -AICF_INF;
      tile_max[r] = fmaxf(tile_max[r], s[i]);
    }
  } else {
    #pragma unroll
    for (int i = 0; i < NS; ++i) {
      s[i] *= scale_log2;
      tile_max[(i >> 1) & 1] = fmaxf(tile_max[(i >> 1) & 1], s[i]);
    }
  }
  #pragma unroll
  for (int r = 0; r < 2; ++r) {
    tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 1));
    tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 2));
    const float m_new = fmaxf(mx[r], tile_max[r]);
    const float base = m_new == -AICF_INF ? 0.f : m_new;  // no key yet: exp2(-inf) = 0, not NaN
    corr[r] = exp2f(mx[r] - base);
    mx[r] = m_new;
    sum[r] *= corr[r];
    tile_max[r] = base;
  }
  #pragma unroll
  for (int i = 0; i < NS; ++i) {
    s[i] = exp2f(s[i] - tile_max[(i >> 1) & 1]);
    sum[(i >> 1) & 1] += s[i];
  }
}

// P's A fragments: n8 tile j of the scores is half of k16 step j / 2 (16-bit types)
__device__ __forceinline__ void pack_p(u32 (*pa)[4], const float *s) {
  #pragma unroll
  for (int i = 0; i < NS; i += 2) pa[i / 8][((i / 4) & 1) * 2 + ((i >> 1) & 1)] = pack2(s[i], s[i + 1]);
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
aicf_flash_attention(elt_t *__restrict__ o, int sq, int sk, int nb1, int qe0, int qe1, int ke0, int ke1,
                     int ve0, int ve1, i64 ob0, i64 ob1, i64 os, float scale_log2,
                     const __grid_constant__ tmap qmap, const __grid_constant__ tmap kmap,
                     const __grid_constant__ tmap vmap) {
  extern __shared__ unsigned char smem_raw[];
  const u32 base = (smem_addr(smem_raw) + 1023u) & ~1023u;  // the swizzle repeats every 1024 bytes
  const u32 q_sm = base, k_sm = base + QBYTES, v_sm = k_sm + STAGES * KVBYTES;
  const u32 bars = v_sm + STAGES * KVBYTES;  // q_full, full_k[S], full_v[S], empty[S]
  const u32 q_full = bars;
#define FULL_K(s) (bars + 8 * (1 + (s)))
#define FULL_V(s) (bars + 8 * (1 + STAGES + (s)))
#define EMPTY(s) (bars + 8 * (1 + 2 * STAGES + (s)))
  const int wg = threadIdx.x / 128;
  const int b0 = blockIdx.y / nb1, b1 = blockIdx.y % nb1;
#if CAUSAL
  const int mb = gridDim.x - 1 - blockIdx.x;  // the longest blocks first: a shorter tail
#else
  const int mb = blockIdx.x;
#endif
  const int m_blk = mb * BLOCK_M;
  int kend = sk;
#if CAUSAL
  kend = min(sk, m_blk + BLOCK_M);  // keys after the block's last query are masked
#endif
  const int tiles = (kend + BLOCK_N - 1) / BLOCK_N;

  if (threadIdx.x == 0) {
    mbar_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(FULL_K(s), 1);
      mbar_init(FULL_V(s), 1);
      mbar_init(EMPTY(s), 128 * CONSUMERS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {  // the producer: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
    if (threadIdx.x != 0 || tiles == 0) return;
    mbar_expect(q_full, QBYTES);
    #pragma unroll
    for (int p = 0; p < HEAD_DIM / 64; ++p)
      tma_load(q_sm + p * PANEL_Q, &qmap, q_full, p * 64, m_blk, b1 % qe1, b0 % qe0);
    for (int j = 0; j < tiles; ++j) {
      const int s = j % STAGES;
      if (j >= STAGES) mbar_wait(EMPTY(s), (j / STAGES - 1) & 1);
      mbar_expect(FULL_K(s), KVBYTES);
      #pragma unroll
      for (int p = 0; p < HEAD_DIM / 64; ++p)
        tma_load(k_sm + s * KVBYTES + p * PANEL_KV, &kmap, FULL_K(s), p * 64, j * BLOCK_N, b1 % ke1, b0 % ke0);
      mbar_expect(FULL_V(s), KVBYTES);
      #pragma unroll
      for (int p = 0; p < HEAD_DIM / 64; ++p)
        tma_load(v_sm + s * KVBYTES + p * PANEL_KV, &vmap, FULL_V(s), p * 64, j * BLOCK_N, b1 % ve1, b0 % ve0);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
  const int c = wg - 1, lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int g = lane / 4, t = lane % 4;
  const int m_wg = m_blk + c * 64;
  const int rows[2] = {m_wg + warp * 16 + g, m_wg + warp * 16 + g + 8};
  o += b0 * ob0 + b1 * ob1;
  float oacc[NO];
  #pragma unroll
  for (int i = 0; i < NO; ++i) oacc[i] = 0.f;
  float mx[2] = {-AICF_INF, -AICF_INF}, sum[2] = {0.f, 0.f}, corr[2];

  if (tiles > 0) {
    const u32 q_wg = q_sm + c * 64 * 128;
    float s[NS];
    u32 pa[BLOCK_N / 16][4];
    auto qk = [&](int j) {  // S = Q K_j^T, issued (not waited for)
      const u32 kst = k_sm + (j % STAGES) * KVBYTES;
      #pragma unroll
      for (int kk = 0; kk < HEAD_DIM / 16; ++kk)
        WGMMA_SS(s, desc(q_wg + (kk / 4) * PANEL_Q + (kk % 4) * 32, 16, 1024),
                 desc(kst + (kk / 4) * PANEL_KV + (kk % 4) * 32, 16, 1024), kk > 0);
      wgmma_commit();
    };
    auto pv = [&](int j) {  // O += P V_j, issued
      const u32 vst = v_sm + (j % STAGES) * KVBYTES;
      #pragma unroll
      for (int kk = 0; kk < BLOCK_N / 16; ++kk)
        WGMMA_RS(oacc, pa[kk], desc(vst + kk * 16 * 128, PANEL_KV, 1024));
      wgmma_commit();
    };
    auto masked = [&](int n0) { return n0 + BLOCK_N > sk || (CAUSAL && n0 + BLOCK_N - 1 > m_wg); };

    if (c == 1) turn_pass(c);  // consumer 0 goes first
    mbar_wait(q_full, 0);
    mbar_wait(FULL_K(0), 0);
    turn_wait(c);
    wgmma_fence();
    qk(0);
    turn_pass(c);
    wgmma_wait<0>();
    fence_regs<NS>(s);
    softmax_tile(s, mx, sum, corr, 0, sk, rows, t, masked(0), scale_log2);
    pack_p(pa, s);
    for (int j = 1; j < tiles; ++j) {
      // S_j and P_{j-1} V_{j-1} in one turn; S_j's softmax runs under the latter
      mbar_wait(FULL_K(j % STAGES), (j / STAGES) & 1);
      mbar_wait(FULL_V((j - 1) % STAGES), ((j - 1) / STAGES) & 1);
      turn_wait(c);
      wgmma_fence();
      qk(j);
      pv(j - 1);
      turn_pass(c);
      wgmma_wait<1>();
      fence_regs<NS>(s);
      softmax_tile(s, mx, sum, corr, j * BLOCK_N, sk, rows, t, masked(j * BLOCK_N), scale_log2);
      wgmma_wait<0>();
      fence_regs<NO>(oacc);
      mbar_arrive(EMPTY((j - 1) % STAGES));
      #pragma unroll
      for (int i = 0; i < NO; ++i) oacc[i] *= corr[(i >> 1) & 1];
      pack_p(pa, s);
    }
    mbar_wait(FULL_V((tiles - 1) % STAGES), ((tiles - 1) / STAGES) & 1);
    turn_wait(c);
    wgmma_fence();
    pv(tiles - 1);
    if (c == 0) turn_pass(c);  // consumer 1's last turn has no one after it
    wgmma_wait<0>();
    fence_regs<NO>(oacc);
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
    for (int d = 0; d < HEAD_DIM / 8; ++d)
      *reinterpret_cast<u32 *>(orow + d * 8) = pack2(oacc[4 * d + 2 * r] * inv, oacc[4 * d + 2 * r + 1] * inv);
  }
}
"""

ENTRY = "aicf_flash_attention"


def smem_bytes(head_dim: int, block_m: int, block_n: int) -> int:
    """Dynamic shared memory: Q, the K and V stages, the barriers, and room to align
    the tiles to 1024 bytes."""
    return 2 * head_dim * (block_m + 2 * STAGES * block_n) + 8 * (1 + 3 * STAGES) + 1024


def source(head_dim: int, dtype: str, block_m: int, block_n: int, causal: bool) -> str:
    """The kernel for one instantiation (its parameters as macros)."""
    assert block_m == 128 and block_n % 16 == 0 and head_dim % 64 == 0
    t = "bf16" if dtype == "bf16" else "f16"
    defs = {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n,
            "IS_BF16": int(dtype == "bf16"), "CAUSAL": int(causal), "STAGES": STAGES,
            "WGMMA_SS": f"wgmma_ss_n{block_n}", "WGMMA_RS": f"wgmma_rs_n{head_dim}"}  # fmt: skip
    head = "".join(f"#define {k} {v}\n" for k, v in defs.items())
    types = ("typedef unsigned short elt_t;\ntypedef unsigned int u32;\ntypedef unsigned long long u64;\n"
             "typedef long long i64;\n#define AICF_INF __int_as_float(0x7f800000)\n")
    return head + types + _wgmma_ss(block_n, t) + _wgmma_rs(head_dim, t) + SOURCE


def launch(sq: int, batch: int, block_m: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (max(math.ceil(sq / block_m), 1), batch, 1), (WARPGROUP * (block_m // 64 + 1), 1, 1)
