// Host emulation of the sm_80 helpers of backend/cuda/emit_async.py (SM80_PRELUDE):
// cp.async, ldmatrix and mma.sync, for the emitted `gpu.mma_sync` kernels to run on
// the CPU (test_mma_sync.py). Included after test_gpu_matmul.py's EMU_HEADER (a block's
// threads are OS threads, __syncthreads a barrier of the block); the warp-wide
// instructions exchange their operands through a staging area with a barrier of the
// warp. Their semantics are written here from the PTX ISA, independently of the
// schedule (and of warp_emulation.h's flash-attention subset):
//   ldmatrix .x{n}: lanes 8q..8q+7 give the row addresses of matrix q (8 rows of 16
//     bytes); register q of lane l holds row l/4, 32-bit word l%4 of matrix q; with
//     .trans, the elements (2(l%4), l/4) and (2(l%4)+1, l/4) (low half first)
//   mma m16n8k16 (f16/bf16): A reg i of lane l = (g + 8(i&1), 2t + 8(i>>1) + {0,1}),
//     B reg i = (k = 2t + 8i + {0,1}, n = g), C[j] = (g + 8(j>>1), 2t + (j&1)),
//     g = l/4, t = l%4
//   cp.async: AICF_CP_ASYNC_DEFERRED=1 queues each thread's copies by commit group and
//     performs them at the wait that retires the group (the latest moment hardware may
//     land them); 0 copies at issue (the earliest). A schedule must be right under both.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>

#ifndef AICF_CP_ASYNC_DEFERRED
#define AICF_CP_ASYNC_DEFERRED 0
#endif

static pthread_barrier_t aicf_warp_bar[32];
static const void* aicf_wx_addr[32][32];
static uint32_t aicf_wx_a[32][32][4];
static uint32_t aicf_wx_b[32][32][2];
static inline int aicf_warp() { return threadIdx.x / 32; }
static inline int aicf_lane() { return threadIdx.x % 32; }
static inline void aicf_warp_sync() { pthread_barrier_wait(&aicf_warp_bar[aicf_warp()]); }

alignas(1024) static unsigned char aicf_dyn_smem_buf[1 << 20];

template <typename F> static void aicf_launch_warps(unsigned gx, unsigned gy, unsigned gz, unsigned nt, F f) {
  for (unsigned w = 0; w < nt / 32; ++w) pthread_barrier_init(&aicf_warp_bar[w], nullptr, 32);
  memset(aicf_dyn_smem_buf, 0xA5, sizeof aicf_dyn_smem_buf);  // garbage, not zeros
  aicf_launch(gx, gy, gz, nt, f);
  for (unsigned w = 0; w < nt / 32; ++w) pthread_barrier_destroy(&aicf_warp_bar[w]);
}

// --- cp.async ---------------------------------------------------------------------------
struct aicf_copy { void* dst; const void* src; int bytes; bool full; };
static thread_local std::deque<std::vector<aicf_copy>> aicf_groups;  // committed, oldest first
static thread_local std::vector<aicf_copy> aicf_open;                 // not yet committed
static inline void aicf_do(const aicf_copy& c) {
  if (c.full) memcpy(c.dst, c.src, c.bytes); else memset(c.dst, 0, c.bytes);
}
template <int B> static inline void aicf_cp_async(void* dst, const void* src, bool full) {
  if ((uintptr_t)dst % B || (full && (uintptr_t)src % B)) { fprintf(stderr, "misaligned cp.async\n"); abort(); }
  if (AICF_CP_ASYNC_DEFERRED) aicf_open.push_back({dst, src, B, full});
  else aicf_do({dst, src, B, full});
}
static inline void aicf_cp_async_commit() {
  aicf_groups.push_back(aicf_open);
  aicf_open.clear();
}
template <int N> static inline void aicf_cp_async_wait() {
  while (aicf_groups.size() > (size_t)N) {
    for (auto& c : aicf_groups.front()) aicf_do(c);
    aicf_groups.pop_front();
  }
}

// --- ldmatrix -----------------------------------------------------------------------------
// phases of ldmatrix whose 8 row addresses do not fall in 8 distinct 16-byte bank groups
static std::atomic<long> aicf_ldmatrix_conflicts{0};
template <int NUM, bool TRANS> static inline void aicf_ldmatrix(int* d, const void* p) {
  const int w = aicf_warp(), l = aicf_lane();
  if ((uintptr_t)p % 16) { fprintf(stderr, "misaligned ldmatrix row\n"); abort(); }
  aicf_wx_addr[w][l] = p;
  aicf_warp_sync();
  if (l == 0)
    for (int q = 0; q < NUM; ++q) {
      unsigned seen = 0;
      for (int r = 0; r < 8; ++r) seen |= 1u << (((uintptr_t)aicf_wx_addr[w][8 * q + r] >> 4) & 7);
      if (seen != 0xffu) ++aicf_ldmatrix_conflicts;
    }
  for (int q = 0; q < NUM; ++q) {
    if (!TRANS) {
      const unsigned char* row = static_cast<const unsigned char*>(aicf_wx_addr[w][8 * q + l / 4]);
      uint32_t v; memcpy(&v, row + 4 * (l % 4), 4);
      d[q] = (int)v;
    } else {
      const uint16_t* r0 = static_cast<const uint16_t*>(aicf_wx_addr[w][8 * q + 2 * (l % 4)]);
      const uint16_t* r1 = static_cast<const uint16_t*>(aicf_wx_addr[w][8 * q + 2 * (l % 4) + 1]);
      d[q] = (int)(uint32_t(r0[l / 4]) | (uint32_t(r1[l / 4]) << 16));
    }
  }
  aicf_warp_sync();
}
static inline void aicf_ldmatrix_x1(int* d, const void* p) { aicf_ldmatrix<1, false>(d, p); }
static inline void aicf_ldmatrix_x2(int* d, const void* p) { aicf_ldmatrix<2, false>(d, p); }
static inline void aicf_ldmatrix_x4(int* d, const void* p) { aicf_ldmatrix<4, false>(d, p); }
static inline void aicf_ldmatrix_x1_trans(int* d, const void* p) { aicf_ldmatrix<1, true>(d, p); }
static inline void aicf_ldmatrix_x2_trans(int* d, const void* p) { aicf_ldmatrix<2, true>(d, p); }
static inline void aicf_ldmatrix_x4_trans(int* d, const void* p) { aicf_ldmatrix<4, true>(d, p); }

// --- mma.sync m16n8k16 ----------------------------------------------------------------------
static inline float aicf_emu_f16(uint16_t h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static inline float aicf_emu_bf16(uint16_t h) { uint32_t u = uint32_t(h) << 16; float f; memcpy(&f, &u, 4); return f; }
template <bool BF16> static inline void aicf_mma(float* c, const int* a, const int* b) {
  const int w = aicf_warp(), l = aicf_lane();
  for (int i = 0; i < 4; ++i) aicf_wx_a[w][l][i] = (uint32_t)a[i];
  for (int i = 0; i < 2; ++i) aicf_wx_b[w][l][i] = (uint32_t)b[i];
  aicf_warp_sync();
  auto half = [](uint32_t r, int e) {
    const uint16_t h = uint16_t(e ? r >> 16 : r & 0xffff);
    return BF16 ? aicf_emu_bf16(h) : aicf_emu_f16(h);
  };
  float A[16][16], B[16][8];
  for (int ll = 0; ll < 32; ++ll) {
    const int g = ll / 4, t = ll % 4;
    for (int i = 0; i < 4; ++i)
      for (int e = 0; e < 2; ++e) A[g + 8 * (i & 1)][2 * t + 8 * (i >> 1) + e] = half(aicf_wx_a[w][ll][i], e);
    for (int i = 0; i < 2; ++i)
      for (int e = 0; e < 2; ++e) B[2 * t + 8 * i + e][g] = half(aicf_wx_b[w][ll][i], e);
  }
  aicf_warp_sync();
  const int g = l / 4, t = l % 4;
  for (int j = 0; j < 4; ++j) {
    const int row = g + 8 * (j >> 1), col = 2 * t + (j & 1);
    double acc = c[j];
    for (int k = 0; k < 16; ++k) acc += double(A[row][k]) * double(B[k][col]);
    c[j] = float(acc);
  }
}
static inline void aicf_mma_f16(float* c, const int* a, const int* b) { aicf_mma<false>(c, a, b); }
static inline void aicf_mma_bf16(float* c, const int* a, const int* b) { aicf_mma<true>(c, a, b); }
