// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A swizzle layout is a permutation of each row only when vec * max_phase divides the
// row length: (c / vec) ^ phase (phase < max_phase) otherwise leaves the row, and
// aicf-lower-smem-layouts indexed past the buffer (the old check used `and`).

aicf_gpu.kernel @one_group(%x : f32) grid = [1, 1, 1] block = [4, 8, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' swizzle vec * max_phase (4 * 8 = 32) must divide the row length 4 (else the layout is not a permutation of the row)}}
  %s = aicf_gpu.alloc_shared : memref<8x4xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @partial_block(%x : f32) grid = [1, 1, 1] block = [12, 8, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' swizzle vec * max_phase (4 * 2 = 8) must divide the row length 12 (else the layout is not a permutation of the row)}}
  %s = aicf_gpu.alloc_shared : memref<8x12xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 2>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @ok(%x : f32) grid = [1, 1, 1] block = [32, 8, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
