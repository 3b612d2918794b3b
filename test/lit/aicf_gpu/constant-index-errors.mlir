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
