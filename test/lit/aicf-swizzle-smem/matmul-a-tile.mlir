// RUN: aicf-opt %s -p aicf-swizzle-smem | filecheck %s
// The A tile of the tiled matmul, stored K-major: each thread loads 4 consecutive k of
// one row m (a float4 from global memory) and stores them down the tile's column m,
// k = 4*(t%2) .. 4*(t%2)+3, so lanes t and t+1 hit the same bank (2-way conflicts);
// the compute reads 4 consecutive m at one k as a vector. Padding each row by 4 words
// puts rows k and k+4 16 banks apart (and keeps the reads 16-byte aligned); in dynamic
// shared memory the swizzle does it instead: it keeps 4-wide groups together (vec = 4,
// the vector reads stay 16-byte accesses) and XORs the group with the row k.

// CHECK-LABEL: aicf_gpu.kernel @a_tile
// CHECK: aicf_gpu.alloc_shared : memref<8x128xf32, #aicf_gpu.padded<interval = 128, pad = 4>, #aicf_gpu.address_space<shared>>
// CHECK: aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<8x128xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
// CHECK: aicf_gpu.load_vector %{{.*}} : memref<8x128xf32, #aicf_gpu.padded<interval = 128, pad = 4>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
// CHECK: aicf_gpu.load_vector %{{.*}} : memref<8x128xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
aicf_gpu.kernel @a_tile(%a : memref<128x8xf32>, %o : memref<256x4xf32>) grid = [1, 1, 1] block = [256, 1, 1] smem = 12288 bounds = [256, 1] index = 32 {
  %t = aicf_gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %s = aicf_gpu.alloc_shared : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  %q = aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  %m = arith.divui %t, %c2 : index
  %h = arith.remui %t, %c2 : index
  %k = arith.muli %h, %c4 : index
  %v = aicf_gpu.load_vector %a[%m, %k] : memref<128x8xf32> -> vector<4xf32>
  %v0 = vector.extract %v[0] : f32 from vector<4xf32>
  %v1 = vector.extract %v[1] : f32 from vector<4xf32>
  %v2 = vector.extract %v[2] : f32 from vector<4xf32>
  %v3 = vector.extract %v[3] : f32 from vector<4xf32>
  %k1 = arith.addi %k, %c1 : index
  %k2 = arith.addi %k, %c2 : index
  %k3 = arith.addi %k, %c3 : index
  memref.store %v0, %s[%k, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v0, %q[%k, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v1, %s[%k1, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v1, %q[%k1, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v2, %s[%k2, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v2, %q[%k2, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v3, %s[%k3, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  memref.store %v3, %q[%k3, %m] : memref<8x128xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %ty = arith.divui %t, %c16 : index
  %r = arith.muli %ty, %c4 : index
  %f = aicf_gpu.load_vector %s[%c0, %r] : memref<8x128xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  %g = aicf_gpu.load_vector %q[%c0, %r] : memref<8x128xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.store_vector %f, %o[%t, %c0] : vector<4xf32>, memref<256x4xf32>
  aicf_gpu.store_vector %g, %o[%t, %c0] : vector<4xf32>, memref<256x4xf32>
  aicf_gpu.return
}
