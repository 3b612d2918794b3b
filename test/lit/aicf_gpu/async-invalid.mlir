// RUN: aicf-opt --verify-diagnostics --split-input-file %s
// The verifiers of the Hopper async ops (dialects/gpu_async.py).

aicf_gpu.kernel @k() grid = [1, 1, 1] block = [128, 1, 1] smem = 64 {
  %c0 = arith.constant 0 : index
  %b = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<4xi32, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.mbarrier_init' mbarriers live in a 1-d shared memref of i64, got memref<4xi32, #aicf_gpu.address_space<shared>>}}
  aicf_gpu.mbarrier_init %b[%c0] count = 1 : i64 : memref<4xi32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%a : memref<256x256xf16>) grid = [1, 1, 1] block = [128, 1, 1] smem = 8256 {
  %c0 = arith.constant 0 : index
  %t = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<4096xf16, #aicf_gpu.address_space<shared>>
  %b = aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<2xi64, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.tma_load' the innermost box extent must span the 128-byte swizzle (64 elements)}}
  aicf_gpu.tma_load %a[%c0, %c0] -> %t[%c0], %b[%c0] {dims = array<i64: 1, 0>, box = array<i64: 32, 64>} : memref<256x256xf16>, memref<4096xf16, #aicf_gpu.address_space<shared>>, memref<2xi64, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%a : memref<256x256xf16>) grid = [1, 1, 1] block = [128, 1, 1] smem = 8256 {
  %c0 = arith.constant 0 : index
  %t = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<4096xf16, #aicf_gpu.address_space<shared>>
  %b = aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<2xi64, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.tma_load' dims [1, 1] must name 1..5 distinct dims of the rank-2 source}}
  aicf_gpu.tma_load %a[%c0, %c0] -> %t[%c0], %b[%c0] {dims = array<i64: 1, 1>, box = array<i64: 64, 64>} : memref<256x256xf16>, memref<4096xf16, #aicf_gpu.address_space<shared>>, memref<2xi64, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k() grid = [1, 1, 1] block = [128, 1, 1] smem = 16384 {
  %c0 = arith.constant 0 : index
  %t = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<8192xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<32xf32>
  // expected-error @+1 {{'aicf_gpu.wgmma' the accumulator is a register array memref<64xf32>, got memref<32xf32>}}
  aicf_gpu.wgmma %acc, %t[%c0], %t[%c0] {n = 128 : i64, a_major = "k", b_major = "mn", a_strides = array<i64: 16, 1024>, b_strides = array<i64: 8192, 1024>} : memref<32xf32>, memref<8192xf16, #aicf_gpu.address_space<shared>>, memref<8192xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k() grid = [1, 1, 1] block = [128, 1, 1] smem = 16384 {
  %c0 = arith.constant 0 : index
  %t = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<4096xf32, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<64xf32>
  // expected-error @+1 {{'aicf_gpu.wgmma' tf32 wgmma takes k-major A and B only}}
  aicf_gpu.wgmma %acc, %t[%c0], %t[%c0] {n = 128 : i64, a_major = "k", b_major = "mn", a_strides = array<i64: 16, 1024>, b_strides = array<i64: 8192, 1024>} : memref<64xf32>, memref<4096xf32, #aicf_gpu.address_space<shared>>, memref<4096xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k() grid = [1, 1, 1] block = [128, 1, 1] smem = 0 {
  // expected-error @+1 {{'aicf_gpu.setmaxnreg' register count must be a multiple of 8 in 24..256, got 20}}
  aicf_gpu.setmaxnreg "dec" 20 : i64
  aicf_gpu.return
}
