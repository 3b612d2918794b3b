// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A vector access of a padded or swizzled shared buffer is lowered to one vector at
// the offset of its first element: it must stay in one contiguous, aligned run of the
// layout (padded: the width divides interval and pad; swizzle: it divides vec), and a
// constant innermost index must be a multiple of the width.

aicf_gpu.kernel @padded_interval(%x : memref<64xf32>) grid = [1, 1, 1] block = [16, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared : memref<64xf32, #aicf_gpu.padded<interval = 2, pad = 1>, #aicf_gpu.address_space<shared>>
  %v = aicf_gpu.load_vector %x[%c0] : memref<64xf32> -> vector<4xf32>
  // expected-error @+1 {{'aicf_gpu.store_vector' a vector<4> access of a buffer with #aicf_gpu.padded<interval = 2, pad = 1> needs the width to divide the interval, the pad and the row (64): the vector must stay in one contiguous, aligned run of the layout}}
  aicf_gpu.store_vector %v, %s[%c0] : vector<4xf32>, memref<64xf32, #aicf_gpu.padded<interval = 2, pad = 1>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @padded_pad(%x : f32) grid = [1, 1, 1] block = [16, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared : memref<4x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector<4> access of a buffer with #aicf_gpu.padded<interval = 32, pad = 1> needs the width to divide the interval, the pad and the row (32): the vector must stay in one contiguous, aligned run of the layout}}
  %v = aicf_gpu.load_vector %s[%c0, %c0] : memref<4x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @swizzle_vec(%x : f32) grid = [1, 1, 1] block = [8, 8, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared : memref<8x32xf32, #aicf_gpu.swizzle<vec = 1, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector<4> access of a buffer with #aicf_gpu.swizzle<vec = 1, per_phase = 1, max_phase = 8> needs the width to divide vec: the vector must stay in one contiguous group of the swizzle}}
  %v = aicf_gpu.load_vector %s[%c0, %c0] : memref<8x32xf32, #aicf_gpu.swizzle<vec = 1, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @swizzle_misaligned(%x : f32) grid = [1, 1, 1] block = [8, 8, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s = aicf_gpu.alloc_shared : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector<4> access of a buffer with #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8> at innermost index 2: the index must be a multiple of 4}}
  %v = aicf_gpu.load_vector %s[%c0, %c2] : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @ok(%x : f32) grid = [1, 1, 1] block = [8, 8, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = aicf_gpu.alloc_shared : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %v = aicf_gpu.load_vector %s[%c0, %c4] : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  %p = aicf_gpu.alloc_shared : memref<4x32xf32, #aicf_gpu.padded<interval = 32, pad = 4>, #aicf_gpu.address_space<shared>>
  aicf_gpu.store_vector %v, %p[%c0, %c4] : vector<4xf32>, memref<4x32xf32, #aicf_gpu.padded<interval = 32, pad = 4>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
