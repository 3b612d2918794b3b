// Host driver of the emulated flash kernel: reads Q, K, V (element bits, [b0*b1, S, D]
// dense) from files, runs the grid, writes O. argv: sq sk b1 dir scale_log2; the
// instantiation's macros come from the compiler's -D flags and the kernel source is
// #included as KERNEL_SOURCE.
#include "warp_emulation.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#include KERNEL_SOURCE

static std::vector<uint16_t> read(const std::string &path, size_t n) {
  std::vector<uint16_t> v(n);
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f || std::fread(v.data(), 2, n, f) != n) { std::perror(path.c_str()); std::exit(2); }
  std::fclose(f);
  return v;
}

int main(int argc, char **argv) {
  const int sq = std::atoi(argv[1]), sk = std::atoi(argv[2]), b0 = std::atoi(argv[3]), b1 = std::atoi(argv[4]);
  const std::string dir = argv[5];
  const float scale_log2 = std::strtof(argv[6], nullptr);
  const long long d = HEAD_DIM;
  auto q = read(dir + "/q.bin", size_t(b0) * b1 * sq * d);
  auto k = read(dir + "/k.bin", size_t(b0) * b1 * sk * d);
  auto v = read(dir + "/v.bin", size_t(b0) * b1 * sk * d);
  std::vector<uint16_t> o(size_t(b0) * b1 * sq * d, 0x7e00);  // NaN: unwritten shows
  dim3e grid{unsigned((sq + BLOCK_M - 1) / BLOCK_M), unsigned(b0 * b1), 1};
  launch(grid, 32 * (BLOCK_M / 16), [&] {
    aicf_flash_attention(q.data(), k.data(), v.data(), o.data(), sq, sk, b1,
                         b1 * sq * d, sq * d, d, b1 * sk * d, sk * d, d, b1 * sk * d, sk * d, d,
                         b1 * sq * d, sq * d, d, scale_log2);
  });
  FILE *f = std::fopen((dir + "/o.bin").c_str(), "wb");
  std::fwrite(o.data(), 2, o.size(), f);
  std::fclose(f);
  return 0;
}
