// RUN: aicf-opt %s -p aicf-lower-smem-layouts | filecheck %s
// Buffers without an aicf_gpu layout keep their type and their accesses: a row-major
// shared buffer (the emitter indexes it row-major itself) and global memory.

// CHECK-LABEL: aicf_gpu.kernel @row_major
// CHECK-NEXT:  %[[S:.*]] = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<8x32xf32, #aicf_gpu.address_space<shared>>
// CHECK-NEXT:  %[[T:.*]] = aicf_gpu.thread_id x
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[V:.*]] = memref.load %{{.*}}[%[[T]]] : memref<32xf32>
// CHECK-NEXT:  memref.store %[[V]], %[[S]][%[[C0]], %[[T]]] : memref<8x32xf32, #aicf_gpu.address_space<shared>>
// CHECK-NEXT:  aicf_gpu.barrier
// CHECK-NEXT:  %{{.*}} = memref.load %[[S]][%[[C0]], %[[T]]] : memref<8x32xf32, #aicf_gpu.address_space<shared>>
// CHECK-NEXT:  memref.store
// CHECK-NEXT:  aicf_gpu.return
aicf_gpu.kernel @row_major(%x : memref<32xf32>, %y : memref<32xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 1024 {
  %s = aicf_gpu.alloc_shared dynamic_offset = 0 : memref<8x32xf32, #aicf_gpu.address_space<shared>>
  %t = aicf_gpu.thread_id x
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%t] : memref<32xf32>
  memref.store %v, %s[%c0, %t] : memref<8x32xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %w = memref.load %s[%c0, %t] : memref<8x32xf32, #aicf_gpu.address_space<shared>>
  memref.store %w, %y[%t] : memref<32xf32>
  aicf_gpu.return
}
