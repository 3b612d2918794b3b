// A host emulation of the CUDA a warp-level kernel uses, so that its indexing can be
// checked without a GPU (test_flash_attention.py): a block's threads are std::threads,
// __syncthreads a barrier of the block, and the warp-wide instructions (mma.sync
// m16n8k16, ldmatrix .x4 .trans, shfl.xor) exchange their operands through a staging
// area with a barrier of the warp. Their semantics are written here from the PTX ISA's
// fragment layouts, independently of the kernel:
//   A (16x16, row):  reg i of lane l holds rows g + 8*(i&1), cols 2t + 8*(i>>1) + {0,1}
//   B (16x8, col):   reg i holds rows (k) 2t + 8*i + {0,1}, col (n) g
//   C (16x8, f32):   c[j] holds row g + 8*(j>>1), col 2t + (j&1)
// where g = lane / 4, t = lane % 4; a register's low half is its first element.
#pragma once
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)
#define __shared__ static
#define AICF_EMULATE 1

struct dim3e { unsigned x = 0, y = 0, z = 0; };
inline thread_local dim3e threadIdx, blockIdx;

inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
using std::exp2f;
using std::fmaxf;
using std::min;

struct Block;
inline thread_local Block *this_block = nullptr;

struct Warp {
  std::barrier<> bar{32};
  uint32_t a[32][4], b[32][2];
  float c[32][4], f[32];
  const void *addr[32];
};

struct Block {
  std::barrier<> bar;
  std::vector<Warp> warps;
  explicit Block(int threads) : bar(threads), warps(threads / 32) {}
};

inline Warp &my_warp() { return this_block->warps[threadIdx.x / 32]; }
inline void __syncthreads() { this_block->bar.arrive_and_wait(); }

inline float __shfl_xor_sync(unsigned, float v, int mask) {
  Warp &w = my_warp();
  const int lane = threadIdx.x % 32;
  w.f[lane] = v;
  w.bar.arrive_and_wait();
  const float r = w.f[lane ^ mask];
  w.bar.arrive_and_wait();
  return r;
}

// --- element types: f16 or bf16 bits ----------------------------------------------------
inline float elt_to_float(uint16_t h) {
#if IS_BF16
  uint32_t u = uint32_t(h) << 16;
  float f; std::memcpy(&f, &u, 4); return f;
#else
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0) v = std::ldexp(float(man), -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(float(man | 1024), int(exp) - 25);
  return sign ? -v : v;
#endif
}

inline uint16_t float_to_elt(float f) {  // round to nearest even, as cvt.rn
#if IS_BF16
  uint32_t u; std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
#else
  return std::bit_cast<uint16_t>(static_cast<_Float16>(f));
#endif
}

inline uint32_t pack2(float lo, float hi) { return uint32_t(float_to_elt(lo)) | (uint32_t(float_to_elt(hi)) << 16); }

inline float half_of(uint32_t r, int i) { return elt_to_float(uint16_t(i ? r >> 16 : r & 0xffff)); }

inline void mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1) {
  Warp &w = my_warp();
  const int lane = threadIdx.x % 32;
  std::memcpy(w.a[lane], a, 16);
  w.b[lane][0] = b0; w.b[lane][1] = b1;
  w.bar.arrive_and_wait();
  float A[16][16], B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i)
      for (int e = 0; e < 2; ++e) A[g + 8 * (i & 1)][2 * t + 8 * (i >> 1) + e] = half_of(w.a[l][i], e);
    for (int i = 0; i < 2; ++i)
      for (int e = 0; e < 2; ++e) B[2 * t + 8 * i + e][g] = half_of(w.b[l][i], e);
  }
  w.bar.arrive_and_wait();
  const int g = lane / 4, t = lane % 4;
  for (int j = 0; j < 4; ++j) {
    const int row = g + 8 * (j >> 1), col = 2 * t + (j & 1);
    double acc = c[j];
    for (int k = 0; k < 16; ++k) acc += double(A[row][k]) * double(B[k][col]);
    c[j] = float(acc);
  }
}

// cp.async of 16 bytes (zero-filled when `full` is false): done at once here, so the
// commit and the wait have nothing to do
inline void cp_async16(uint16_t *dst, const uint16_t *src, bool full) {
  if (full) std::memcpy(dst, src, 16); else std::memset(dst, 0, 16);
}
inline void cp_async_commit() {}
inline void cp_async_wait_all() {}

// ldmatrix .x4 .trans: lanes 8m..8m+7 give the rows of matrix m (8 elements of 16
// bits each); register m of lane l holds, of matrix m transposed, row l/4, cols
// 2(l%4) + {0,1}, i.e. the original's rows 2(l%4) + {0,1} at col l/4
inline void ldmatrix_x4_trans(uint32_t *r, const uint16_t *p) {
  Warp &w = my_warp();
  const int lane = threadIdx.x % 32;
  w.addr[lane] = p;
  w.bar.arrive_and_wait();
  for (int m = 0; m < 4; ++m) {
    const uint16_t *r0 = static_cast<const uint16_t *>(w.addr[8 * m + 2 * (lane % 4)]);
    const uint16_t *r1 = static_cast<const uint16_t *>(w.addr[8 * m + 2 * (lane % 4) + 1]);
    r[m] = uint32_t(r0[lane / 4]) | (uint32_t(r1[lane / 4]) << 16);
  }
  w.bar.arrive_and_wait();
}

// run `kernel` over the grid, one block at a time, each block's threads in parallel
inline void launch(dim3e grid, int threads, const std::function<void()> &kernel) {
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      Block block(threads);
      std::vector<std::thread> ts;
      for (int i = 0; i < threads; ++i)
        ts.emplace_back([&, i] {
          this_block = &block;
          threadIdx.x = i;
          blockIdx.x = bx;
          blockIdx.y = by;
          kernel();
        });
      for (auto &t : ts) t.join();
    }
}
