// RUN: aicf-opt %s -t cuda | filecheck %s

// The swizzled layout's index function is printed from the attribute.
// CHECK: __shared__ __align__(16) float [[S:[a-z_0-9]+]]{{\[}}2048];
// CHECK: [[S]]{{\[}}((([[T:t_[0-9]+]] * 32) + (((([[T]] / 4) ^ (([[T]] / 1) % 8)) * 4) + ([[T]] % 4))))] =
aicf_gpu.kernel @k(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %t = aicf_gpu.thread_id x
  memref.store %x, %s[%t, %t] : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
