// RUN: aicf-opt --verify-diagnostics --split-input-file %s | filecheck %s

// Kernel attributes the launch cannot honour, or that would silently wrap indices.

// expected-error @+1 {{'aicf_gpu.kernel' dynamic shared memory of 300000 bytes exceeds the 232448 a block can have}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 300000 {
  aicf_gpu.return
}

// -----

// expected-error @+1 {{'aicf_gpu.kernel' index = 32 but parameter #0 (memref<2147483648xf32>) has 2147483648 elements: 32-bit indices would wrap}}
aicf_gpu.kernel @k(%x : memref<2147483648xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  aicf_gpu.return
}

// -----

// expected-error @+1 {{'aicf_gpu.kernel' launch bounds [32, -1] must be [max_threads in block size..1024, min_blocks in 0..32]}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, -1] index = 64 {
  aicf_gpu.return
}

// -----

// Bounds nvcc cannot honour were emitted and dropped: minblocks = 1000 a ptxas
// warning, max_threads = 2^62 did not fit its int (and took min_blocks with it).

// expected-error @+1 {{'aicf_gpu.kernel' launch bounds [32, 1000] must be [max_threads in block size..1024, min_blocks in 0..32]}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1000] index = 64 {
  aicf_gpu.return
}

// -----

// expected-error @+1 {{'aicf_gpu.kernel' launch bounds [4611686018427387904, 1] must be [max_threads in block size..1024, min_blocks in 0..32]}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [4611686018427387904, 1] index = 64 {
  aicf_gpu.return
}

// -----

// CHECK-LABEL: aicf_gpu.kernel @fine
aicf_gpu.kernel @fine(%x : memref<2147483648xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 232448 bounds = [32, 1] index = 64 {
  aicf_gpu.return
}

// -----

// Static __shared__ arrays past 48 KiB are a ptxas error ("uses too much shared data"),
// and with the dynamic shared memory they share the block's 227 KiB.

// expected-error @+1 {{'aicf_gpu.kernel' static shared buffers of 49156 bytes exceed the 49152 a block can have}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  %a = aicf_gpu.alloc_shared : memref<12288xf32, #aicf_gpu.address_space<shared>>
  %b = aicf_gpu.alloc_shared : memref<2xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

// expected-error @+1 {{'aicf_gpu.kernel' static shared buffers of 32768 bytes and dynamic shared memory of 200000 exceed the 232448 a block can have}}
aicf_gpu.kernel @k() grid = [1, 1, 1] block = [32, 1, 1] smem = 200000 bounds = [32, 1] index = 32 {
  %a = aicf_gpu.alloc_shared : memref<64x128xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

// CHECK-LABEL: aicf_gpu.kernel @static_fits
aicf_gpu.kernel @static_fits() grid = [1, 1, 1] block = [32, 1, 1] smem = 0 bounds = [32, 1] index = 32 {
  %a = aicf_gpu.alloc_shared : memref<12288xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
