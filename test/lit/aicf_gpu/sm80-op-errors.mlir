// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// The sm_80 ops' verifiers (dialects/gpu_async.py): register arrays must hold the
// fragments the emitted helpers read and write, and constant offsets must keep copies
// aligned and inside their buffers.

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<2xf32>
  %a = memref.alloca() : memref<4xi32>
  %b = memref.alloca() : memref<2xi32>
  // expected-error @+1 {{'aicf_gpu.mma_sync' the accumulator needs 4 registers of f32, got memref<2xf32> (2)}}
  aicf_gpu.mma_sync %acc[%c0], %a[%c0], %b[%c0] {kind = "f16"} : memref<2xf32>, memref<4xi32>, memref<2xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<8xf32>
  %a = memref.alloca() : memref<4xi32>
  %b = memref.alloca() : memref<2xi32>
  // expected-error @+1 {{'aicf_gpu.mma_sync' the accumulator's registers [8, 12) lie outside memref<8xf32> (8 elements)}}
  aicf_gpu.mma_sync %acc[%c8], %a[%c0], %b[%c0] {kind = "f16"} : memref<8xf32>, memref<4xi32>, memref<2xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<4xf32>
  %a = memref.alloca() : memref<1xi32>
  %b = memref.alloca() : memref<2xi32>
  // expected-error @+1 {{'aicf_gpu.mma_sync' A's fragment needs 4 registers of i32, got memref<1xi32> (1)}}
  aicf_gpu.mma_sync %acc[%c0], %a[%c0], %b[%c0] {kind = "bf16"} : memref<4xf32>, memref<1xi32>, memref<2xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<4xf32>
  %a = memref.alloca() : memref<4xi32>
  %b = memref.alloca() : memref<4xi32>
  // expected-error @+1 {{'aicf_gpu.mma_sync' B's fragment's registers [4, 6) lie outside memref<4xi32> (4 elements)}}
  aicf_gpu.mma_sync %acc[%c0], %a[%c0], %b[%c4] {kind = "tf32"} : memref<4xf32>, memref<4xi32>, memref<4xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %a = memref.alloca() : memref<1xi32>
  // expected-error @+1 {{'aicf_gpu.ldmatrix' the destination of ldmatrix.x4 needs 4 registers of i32, got memref<1xi32> (1)}}
  aicf_gpu.ldmatrix %s[%c0] -> %a[%c0] {num = 4 : i64, trans = 1 : i64} : memref<64xf16, #aicf_gpu.address_space<shared>>, memref<1xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %a = memref.alloca() : memref<4xi32>
  // expected-error @+1 {{'aicf_gpu.ldmatrix' the destination of ldmatrix.x2's registers [4, 6) lie outside memref<4xi32> (4 elements)}}
  aicf_gpu.ldmatrix %s[%c0] -> %a[%c4] {num = 2 : i64, trans = 0 : i64} : memref<64xf16, #aicf_gpu.address_space<shared>>, memref<4xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %a = memref.alloca() : memref<4xi32>
  // expected-error @+1 {{'aicf_gpu.ldmatrix' an ldmatrix row address must be 16-byte aligned, got element offset 4 (8 bytes)}}
  aicf_gpu.ldmatrix %s[%c4] -> %a[%c0] {num = 4 : i64, trans = 0 : i64} : memref<64xf16, #aicf_gpu.address_space<shared>>, memref<4xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %a = memref.alloca() : memref<4xi32>
  // expected-error @+1 {{'aicf_gpu.ldmatrix' the source row (16 bytes) at elements [64, 72) lie outside memref<64xf16, #aicf_gpu.address_space<shared>> (64 elements)}}
  aicf_gpu.ldmatrix %s[%c64] -> %a[%c0] {num = 4 : i64, trans = 0 : i64} : memref<64xf16, #aicf_gpu.address_space<shared>>, memref<4xi32>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the 16-byte copy's destination elements [200, 208) lie outside memref<64xf16, #aicf_gpu.address_space<shared>> (64 elements)}}
  aicf_gpu.cp_async %g[%c0, %c0] -> %s[%c200] if %t bytes = 16 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the 16-byte copy's destination elements [64, 72) lie outside memref<64xf16, #aicf_gpu.address_space<shared>> (64 elements)}}
  aicf_gpu.cp_async %g[%c0, %c0] -> %s[%c64] if %t bytes = 16 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the shared destination of a 16-byte cp.async must be 16-byte aligned, got element offset 1 (2 bytes)}}
  aicf_gpu.cp_async %g[%c0, %c0] -> %s[%c1] if %t bytes = 16 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the global source of a 16-byte cp.async must be 16-byte aligned, got element 4 of memref<64x64xf16> (8 bytes)}}
  aicf_gpu.cp_async %g[%c0, %c4] -> %s[%c0] if %t bytes = 16 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' source index 64 is out of bounds of dim 0 of memref<64x64xf16>}}
  aicf_gpu.cp_async %g[%c64, %c0] -> %s[%c0] if %t bytes = 8 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the shared destination of a 4-byte cp.async must be 4-byte aligned, got element offset 1 (2 bytes)}}
  aicf_gpu.cp_async %g[%c0, %c0] -> %s[%c1] if %t bytes = 4 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  // expected-error @+1 {{'aicf_gpu.cp_async' the 4-byte copy from element 8 runs past the end of memref<3x3xf16> (9 elements)}}
  aicf_gpu.cp_async %q[%c2, %c2] -> %s[%c0] if %t bytes = 4 : i64 : memref<3x3xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// -----

aicf_gpu.kernel @k(%g : memref<64x64xf16>, %q : memref<3x3xf16>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %t = arith.constant 1 : i1
  %s = aicf_gpu.alloc_shared : memref<64xf16, #aicf_gpu.address_space<shared>>
  %acc = memref.alloca() : memref<8xf32>
  %a = memref.alloca() : memref<8xi32>
  %b = memref.alloca() : memref<4xi32>
  aicf_gpu.cp_async %g[%c1, %c8] -> %s[%c8] if %t bytes = 16 : i64 : memref<64x64xf16>, memref<64xf16, #aicf_gpu.address_space<shared>>
  aicf_gpu.ldmatrix %s[%c8] -> %a[%c4] {num = 4 : i64, trans = 0 : i64} : memref<64xf16, #aicf_gpu.address_space<shared>>, memref<8xi32>
  aicf_gpu.mma_sync %acc[%c4], %a[%c4], %b[%c0] {kind = "f16"} : memref<8xf32>, memref<8xi32>, memref<4xi32>
  aicf_gpu.return
}
