// RUN: aicf-opt %s --split-input-file -p aicf-lower-smem-layouts | filecheck %s
// A swizzled shared buffer becomes a flat buffer of the same size, each access at
// the index of the layout's function (dialects/gpu.py, SwizzleLayoutAttr.offset):
// r * C + (((c / vec) ^ ((r / per_phase) % max_phase)) * vec + c % vec), divisions
// and remainders by powers of two as shrui/andi, the XOR as xori.

// 64x32, vec = 4, per_phase = 1 (no division of r), max_phase = 8 (r & 7).
// CHECK-LABEL: aicf_gpu.kernel @swizzle_2d
// CHECK:      %[[S:.*]] = aicf_gpu.alloc_shared : memref<2048xf32, #aicf_gpu.address_space<shared>>
// CHECK:      %[[R:.*]] = aicf_gpu.thread_id y
// CHECK:      %[[C:.*]] = aicf_gpu.thread_id x
// CHECK:      %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[PH:.*]] = arith.andi %[[R]], %[[C7]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[G:.*]] = arith.shrui %[[C]], %[[C2]] : index
// CHECK-NEXT: %[[X:.*]] = arith.xori %[[G]], %[[PH]] : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[XV:.*]] = arith.muli %[[X]], %[[C4]] : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[C]], %[[C3]] : index
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[XV]], %[[IN]] : index
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[R]], %[[C32]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[I]]] : memref<2048xf32, #aicf_gpu.address_space<shared>>
// CHECK-NEXT: aicf_gpu.barrier
// the load at the same index reuses it
// CHECK-NEXT: %{{.*}} = memref.load %[[S]][%[[I]]] : memref<2048xf32, #aicf_gpu.address_space<shared>>
// CHECK-NOT:  aicf_gpu.swizzle
aicf_gpu.kernel @swizzle_2d(%x : f32, %y : memref<64x32xf32>) grid = [1, 1, 1] block = [32, 32, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %r = aicf_gpu.thread_id y
  %c = aicf_gpu.thread_id x
  memref.store %x, %s[%r, %c] : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %v = memref.load %s[%r, %c] : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  memref.store %v, %y[%r, %c] : memref<64x32xf32>
  aicf_gpu.return
}

// -----

// A staged 2x16x128 tile in dynamic shared memory (the tiled matmul's): the leading
// dim is a batch, row-major over the swizzled 16x128 planes; per_phase = 2 divides
// the row (shrui by 1) before the phase. Vector accesses keep their vector type; the
// indices of a loop body are computed in the body.
// CHECK-LABEL: aicf_gpu.kernel @swizzle_staged
// CHECK:      %[[S:.*]] = aicf_gpu.alloc_shared dynamic_offset = 1024 : memref<4096xf32, #aicf_gpu.address_space<shared>>
// CHECK:      scf.for %[[ST:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:        %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[HR:.*]] = arith.shrui %[[K:.*]], %[[C1]] : index
// CHECK-NEXT:   %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:   %[[PH:.*]] = arith.andi %[[HR]], %[[C7]] : index
// CHECK-NEXT:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[G:.*]] = arith.shrui %[[M:.*]], %[[C2]] : index
// CHECK-NEXT:   %[[X:.*]] = arith.xori %[[G]], %[[PH]] : index
// CHECK-NEXT:   %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[XV:.*]] = arith.muli %[[X]], %[[C4]] : index
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[IN:.*]] = arith.andi %[[M]], %[[C3]] : index
// CHECK-NEXT:   %[[COL:.*]] = arith.addi %[[XV]], %[[IN]] : index
// CHECK-NEXT:   %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:   %[[B:.*]] = arith.muli %[[ST]], %[[C16]] : index
// CHECK-NEXT:   %[[BR:.*]] = arith.addi %[[B]], %[[K]] : index
// CHECK-NEXT:   %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:   %[[ROW:.*]] = arith.muli %[[BR]], %[[C128]] : index
// CHECK-NEXT:   %[[I:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// CHECK-NEXT:   aicf_gpu.store_vector %{{.*}}, %[[S]][%[[I]]] : vector<4xf32>, memref<4096xf32, #aicf_gpu.address_space<shared>>
// CHECK:        aicf_gpu.load_vector %[[S]][%{{.*}}] : memref<4096xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
// CHECK:      }
aicf_gpu.kernel @swizzle_staged(%x : memref<128x16xf32>, %y : memref<256x4xf32>) grid = [1, 1, 1] block = [256, 1, 1] smem = 17408 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = aicf_gpu.thread_id x
  %s = aicf_gpu.alloc_shared dynamic_offset = 1024 : memref<2x16x128xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 2, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %k = arith.remui %t, %c4 : index
  %m4 = arith.divui %t, %c4 : index
  %m = arith.muli %m4, %c2 : index
  scf.for %st = %c0 to %c2 step %c1 {
    %v = aicf_gpu.load_vector %x[%m, %c0] : memref<128x16xf32> -> vector<4xf32>
    aicf_gpu.store_vector %v, %s[%st, %k, %m] : vector<4xf32>, memref<2x16x128xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 2, max_phase = 8>, #aicf_gpu.address_space<shared>>
    aicf_gpu.barrier
    %w = aicf_gpu.load_vector %s[%st, %c0, %m] : memref<2x16x128xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 2, max_phase = 8>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
    aicf_gpu.store_vector %w, %y[%t, %c0] : vector<4xf32>, memref<256x4xf32>
    scf.yield
  }
  aicf_gpu.return
}
