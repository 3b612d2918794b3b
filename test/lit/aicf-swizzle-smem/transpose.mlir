// RUN: aicf-opt %s -p aicf-swizzle-smem | filecheck %s
// RUN: aicf-opt %s -p 'aicf-swizzle-smem{explain=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// A 32x32 f32 tile written along rows and read down columns (a transpose): row-major,
// the column read puts all 32 lanes in bank 0 (32 wavefronts). Padding each row by one
// word and XOR-ing the column with the row both spread it over the 32 banks; padding
// wins the tie (its index stays affine). In dynamic shared memory, where padding would
// move the buffers after it, the XOR swizzle is taken. The tile only accessed along
// rows keeps its row-major layout (no gain, no change).

// CHECK-LABEL: aicf_gpu.kernel @transpose
// CHECK: %[[T:.*]] = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
// CHECK: %[[R:.*]] = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.address_space<shared>>
// CHECK: %[[D:.*]] = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<32x32xf32, #aicf_gpu.swizzle<vec = 1, per_phase = 1, max_phase = 32>, #aicf_gpu.address_space<shared>>
// CHECK: memref.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
// CHECK: memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>

// EXPLAIN: aicf-swizzle-smem: @transpose memref<32x32xf32, #aicf_gpu.address_space<shared>>: wavefronts row-major: 33, {{.*}}: 2{{,| ->}}
// EXPLAIN-SAME: -> #aicf_gpu.padded<interval = 32, pad = 1>
// EXPLAIN: aicf-swizzle-smem: @transpose memref<32x32xf32, #aicf_gpu.address_space<shared>>: wavefronts row-major: 2, {{.*}} -> row-major
// EXPLAIN: aicf-swizzle-smem: @transpose memref<32x32xf32, #aicf_gpu.address_space<shared>>: wavefronts row-major: 33, {{.*}} -> #aicf_gpu.swizzle<vec = 1, per_phase = 1, max_phase = 32>
aicf_gpu.kernel @transpose(%x : memref<256x32xf32>, %y : memref<32x256xf32>) grid = [8, 1, 1] block = [32, 8, 1] smem = 4096 bounds = [256, 1] index = 32 {
  %tx = aicf_gpu.thread_id x
  %ty = aicf_gpu.thread_id y
  %bx = aicf_gpu.block_id x
  %c32 = arith.constant 32 : index
  %t = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %r = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %d = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %row0 = arith.muli %bx, %c32 : index
  %row = arith.addi %row0, %ty : index
  %v = memref.load %x[%row, %tx] : memref<256x32xf32>
  memref.store %v, %t[%ty, %tx] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  memref.store %v, %r[%ty, %tx] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  memref.store %v, %d[%ty, %tx] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %w = memref.load %t[%tx, %ty] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %u = memref.load %r[%ty, %tx] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %z = memref.load %d[%tx, %ty] : memref<32x32xf32, #aicf_gpu.address_space<shared>>
  %s0 = arith.addf %w, %u : f32
  %s = arith.addf %s0, %z : f32
  %col = arith.addi %row0, %tx : index
  memref.store %s, %y[%ty, %col] : memref<32x256xf32>
  aicf_gpu.return
}
