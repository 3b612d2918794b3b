// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// `dynamic_offset = N` carves the buffer from the kernel's dynamic shared memory: N
// must be >= 0, aligned to the element (to the access for a vector access), and the
// buffer must end within the kernel's `smem` bytes.

aicf_gpu.kernel @past_end(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 256 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' dynamic_offset 1000000 + 256 bytes of the buffer exceeds the kernel's dynamic shared memory (smem = 256)}}
  %s = aicf_gpu.alloc_shared dynamic_offset = 1000000 : memref<64xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @straddles_end(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 256 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' dynamic_offset 4 + 256 bytes of the buffer exceeds the kernel's dynamic shared memory (smem = 256)}}
  %s = aicf_gpu.alloc_shared dynamic_offset = 4 : memref<64xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @negative(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 256 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' dynamic_offset must be >= 0, got -16}}
  %s = aicf_gpu.alloc_shared dynamic_offset = -16 : memref<64xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @misaligned(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 512 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' dynamic_offset 3 is not aligned to the element size (4 bytes)}}
  %s = aicf_gpu.alloc_shared dynamic_offset = 3 : memref<64xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @vector_misaligned(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 512 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared dynamic_offset = 4 : memref<64xf32, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.load_vector' a 16-byte vector access of a shared buffer at dynamic_offset 4: the offset must be aligned to 16 bytes}}
  %v = aicf_gpu.load_vector %s[%c0] : memref<64xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @ok(%x : f32) grid = [1, 1, 1] block = [64, 1, 1] smem = 512 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared dynamic_offset = 256 : memref<64xf32, #aicf_gpu.address_space<shared>>
  %v = aicf_gpu.load_vector %s[%c0] : memref<64xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.return
}
