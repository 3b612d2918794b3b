// RUN: aicf-opt --verify-diagnostics --split-input-file %s

// expected-error @+1 {{'aicf_gpu.kernel' block [2048, 1, 1] has more than 1024 threads}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [2048, 1, 1] smem = 0 {
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.alloc_shared' result must be in #aicf_gpu.address_space<shared>}}
  %s = aicf_gpu.alloc_shared : memref<32xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%x : memref<64xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'aicf_gpu.load_vector' a vector access moves 4, 8 or 16 bytes, not 32}}
  %v = aicf_gpu.load_vector %x[%c0] : memref<64xf32> -> vector<8xf32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.shuffle' width must be a power of two in 1..32, got 48}}
  %s = aicf_gpu.shuffle xor %x, 1 width = 48 : f32
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%x : memref<64xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  aicf_gpu.return
}
func.func @main(%x : memref<64xf32>) {
  // expected-error @+1 {{'aicf_gpu.launch' launch configuration grid=[2, 1, 1] block=[32, 1, 1] smem=0 differs from kernel @k's grid=[1, 1, 1] block=[32, 1, 1] smem=0}}
  aicf_gpu.launch @k(%x) grid = [2, 1, 1] block = [32, 1, 1] smem = 0 : memref<64xf32>
  func.return
}

// -----

aicf_gpu.kernel @k(%x : memref<64xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  aicf_gpu.return
}
func.func @main(%x : memref<32xf32>) {
  // expected-error @+1 {{'aicf_gpu.launch' argument #0 of type memref<32xf32> does not match kernel parameter memref<64xf32>}}
  aicf_gpu.launch @k(%x) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 : memref<32xf32>
  func.return
}

// -----

func.func @main(%x : memref<32xf32>) {
  // expected-error @+1 {{'aicf_gpu.launch' kernel @nope not found}}
  aicf_gpu.launch @nope(%x) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 : memref<32xf32>
  func.return
}

// -----

aicf_gpu.kernel @k(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.warp_reduce' unknown warp reduction 'avg'}}
  %s = "aicf_gpu.warp_reduce"(%x) <{kind = "avg", width = 32 : i64}> : (f32) -> f32
  aicf_gpu.return
}
