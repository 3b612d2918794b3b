// RUN: aicf-opt %s -t cuda --split-input-file --verify-diagnostics

// The emitter knows no shared-memory layout: a swizzled or padded buffer must be
// lowered to flat buffers and index arithmetic first (aicf-lower-smem-layouts), and
// -t cuda says so instead of printing addresses of its own.

aicf_gpu.kernel @swizzled(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' has a buffer of layout #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, which CUDA C has no address for: run aicf-lower-smem-layouts before -t cuda (it turns the layout into index arithmetic)}}
  %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %t = aicf_gpu.thread_id x
  memref.store %x, %s[%t, %t] : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @padded(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' has a buffer of layout #aicf_gpu.padded<interval = 32, pad = 1>, which CUDA C has no address for: run aicf-lower-smem-layouts before -t cuda (it turns the layout into index arithmetic)}}
  %s = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  %t = aicf_gpu.thread_id x
  memref.store %x, %s[%t, %t] : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
