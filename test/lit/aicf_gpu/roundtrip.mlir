// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s

// CHECK-LABEL: aicf_gpu.kernel @scale(%{{.*}} : memref<1024xf32>, %{{.*}} : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32
aicf_gpu.kernel @scale(%x : memref<1024xf32>, %y : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32 {
  // CHECK: aicf_gpu.block_id x
  %b = aicf_gpu.block_id x
  // CHECK: aicf_gpu.thread_id x
  %t = aicf_gpu.thread_id x
  // CHECK: aicf_gpu.block_dim x
  %n = aicf_gpu.block_dim x
  // CHECK: aicf_gpu.grid_dim y
  %g = aicf_gpu.grid_dim y
  // CHECK: aicf_gpu.lane_id
  %l = aicf_gpu.lane_id
  %o = arith.muli %b, %n : index
  %i = arith.addi %o, %t : index
  %v = memref.load %x[%i] : memref<1024xf32>
  // CHECK: aicf_gpu.shuffle xor %{{.*}}, 16 width = 32 : f32
  %s = aicf_gpu.shuffle xor %v, 16 width = 32 : f32
  // CHECK: aicf_gpu.shuffle down %{{.*}}, 1 width = 8 : f32
  %s2 = aicf_gpu.shuffle down %s, 1 width = 8 : f32
  // CHECK: aicf_gpu.warp_reduce max %{{.*}} width = 32 : f32
  %r = aicf_gpu.warp_reduce max %s2 width = 32 : f32
  // CHECK: aicf_gpu.alloc_shared : memref<32xf32, #aicf_gpu.address_space<shared>>
  %sh = aicf_gpu.alloc_shared : memref<32xf32, #aicf_gpu.address_space<shared>>
  memref.store %r, %sh[%l] : memref<32xf32, #aicf_gpu.address_space<shared>>
  // CHECK: aicf_gpu.barrier
  aicf_gpu.barrier
  %c0 = arith.constant 0 : index
  // CHECK: aicf_gpu.load_vector %{{.*}}[%{{.*}}] : memref<1024xf32> -> vector<4xf32>
  %vec = aicf_gpu.load_vector %x[%c0] : memref<1024xf32> -> vector<4xf32>
  // CHECK: aicf_gpu.store_vector %{{.*}}, %{{.*}}[%{{.*}}] : vector<4xf32>, memref<1024xf32>
  aicf_gpu.store_vector %vec, %y[%c0] : vector<4xf32>, memref<1024xf32>
  // CHECK: aicf_gpu.return
  aicf_gpu.return
}

// CHECK-LABEL: aicf_gpu.kernel @tiles
aicf_gpu.kernel @tiles(%x : memref<64x64xf16, strided<[?, 1], offset: ?>>) grid = [1, 1, 1] block = [128, 1, 1] smem = 16384 bounds = [128, 2] index = 64 {
  // CHECK: aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %a = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  // CHECK: aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  %b = aicf_gpu.alloc_shared dynamic_offset = 8192 : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}

// CHECK-LABEL: func.func @main
func.func @main(%x : memref<1024xf32>, %y : memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // CHECK: aicf_gpu.launch @scale(%{{.*}}, %{{.*}}) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 : memref<1024xf32>, memref<1024xf32>
  aicf_gpu.launch @scale(%x, %y) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 : memref<1024xf32>, memref<1024xf32>
  func.return
}
