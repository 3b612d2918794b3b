// RUN: aicf-opt %s --verify-diagnostics --split-input-file

// An access at constant indices must lie inside its buffer: a hand-written kernel
// storing at index 5000 of a memref<1024xf32> was emitted as it was (an illegal
// address on the GPU).

aicf_gpu.kernel @store(%x : memref<1024xf32>, %y : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  %c = arith.constant 5000 : index
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<1024xf32>
  // expected-error @+1 {{'memref.store' index 5000 of dimension 0 is outside memref<1024xf32> (extent 1024)}}
  memref.store %v, %y[%c] : memref<1024xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @vector(%x : memref<4x1024xf32>, %y : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  %c = arith.constant 1022 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{'aicf_gpu.load_vector' elements 1022..1025 of dimension 1 are outside memref<4x1024xf32> (extent 1024)}}
  %v = aicf_gpu.load_vector %x[%c3, %c] : memref<4x1024xf32> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @negative(%x : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  %c = arith.constant -1 : index
  // expected-error @+1 {{'memref.load' index -1 of dimension 0 is outside memref<1024xf32> (extent 1024)}}
  %v = memref.load %x[%c] : memref<1024xf32>
  aicf_gpu.return
}

// -----

// The last vector of a row, and any index computed from a thread id, are accepted.
aicf_gpu.kernel @fine(%x : memref<1024xf32>, %y : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  %c = arith.constant 1020 : index
  %v = aicf_gpu.load_vector %x[%c] : memref<1024xf32> -> vector<4xf32>
  aicf_gpu.store_vector %v, %y[%c] : vector<4xf32>, memref<1024xf32>
  %t = aicf_gpu.thread_id x
  %s = memref.load %x[%t] : memref<1024xf32>
  memref.store %s, %y[%t] : memref<1024xf32>
  aicf_gpu.return
}

// -----

// A vector access at constant indices must also be aligned to its width: buffers
// start aligned, so a vector<4xf32> at element 1 is a misaligned address on the GPU
// (it was emitted as it was). The offset counts whole rows and a static layout offset.
aicf_gpu.kernel @misaligned(%x : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector<4> access at element 1 of memref<1024xf32> is not aligned to its width}}
  %v = aicf_gpu.load_vector %x[%c] : memref<1024xf32> -> vector<4xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @misaligned_row(%x : memref<4x6xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = aicf_gpu.load_vector %x[%c0, %c0] : memref<4x6xf32> -> vector<4xf32>
  // expected-error @+1 {{'aicf_gpu.store_vector' a vector<4> access at element 6 of memref<4x6xf32> is not aligned to its width}}
  aicf_gpu.store_vector %v, %x[%c1, %c0] : vector<4xf32>, memref<4x6xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @misaligned_offset(%x : memref<4x8xf16, strided<[8, 1], offset: 2>>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector<8> access at element 2 of memref<4x8xf16, strided<[8, 1], offset: 2>> is not aligned to its width}}
  %v = aicf_gpu.load_vector %x[%c0, %c0] : memref<4x8xf16, strided<[8, 1], offset: 2>> -> vector<8xf16>
  aicf_gpu.return
}

// -----

// Whole rows of a multiple of the width, and an offset the layout leaves to run time,
// are accepted.
aicf_gpu.kernel @aligned(%x : memref<4x8xf32>, %y : memref<4x8xf32, strided<[8, 1], offset: ?>>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = aicf_gpu.load_vector %x[%c1, %c4] : memref<4x8xf32> -> vector<4xf32>
  aicf_gpu.store_vector %v, %y[%c1, %c4] : vector<4xf32>, memref<4x8xf32, strided<[8, 1], offset: ?>>
  aicf_gpu.return
}
