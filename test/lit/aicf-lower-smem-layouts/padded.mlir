// RUN: aicf-opt %s --split-input-file -p aicf-lower-smem-layouts | filecheck %s
// A padded shared buffer becomes a flat buffer of its footprint (n + ((n - 1) /
// interval) * pad elements), each access at the layout's index (dialects/gpu.py,
// PaddedLayoutAttr.offset): l + (l / interval) * pad for the row-major linear l.

// Rows padded by one element (interval = the row): the index stays affine,
// row * (32 + 1) + col; 32 * 32 + 31 * 1 = 1055 elements.
// CHECK-LABEL: aicf_gpu.kernel @padded_rows
// CHECK:      %[[S:.*]] = aicf_gpu.alloc_shared : memref<1055xf32, #aicf_gpu.address_space<shared>>
// CHECK:      %[[R:.*]] = aicf_gpu.thread_id y
// CHECK:      %[[C:.*]] = aicf_gpu.thread_id x
// CHECK-NEXT: %[[C33:.*]] = arith.constant 33 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[R]], %[[C33]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[ROW]], %[[C]] : index
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[I]]] : memref<1055xf32, #aicf_gpu.address_space<shared>>
// the transposed read: column-major walk, conflict-free thanks to the pad
// CHECK:      %[[ROW2:.*]] = arith.muli %[[C]], %[[C33]] : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[ROW2]], %[[R]] : index
// CHECK-NEXT: %{{.*}} = memref.load %[[S]][%[[J]]] : memref<1055xf32, #aicf_gpu.address_space<shared>>
// CHECK-NOT:  aicf_gpu.padded
aicf_gpu.kernel @padded_rows(%x : f32, %y : memref<32x32xf32>) grid = [1, 1, 1] block = [32, 32, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  %r = aicf_gpu.thread_id y
  %c = aicf_gpu.thread_id x
  memref.store %x, %s[%r, %c] : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %v = memref.load %s[%c, %r] : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
  memref.store %v, %y[%r, %c] : memref<32x32xf32>
  aicf_gpu.return
}

// -----

// Staged rows padded by a 4-element access (the tiled matmul's A tile, 2 stages of
// 8x128): the stage and row fold into one row index, times 128 + 4;
// 2048 + (2047 / 128) * 4 = 2108 elements. A constant row folds away (stage * 8 + 0
// is the stage * 8 the store computed).
// CHECK-LABEL: aicf_gpu.kernel @padded_staged
// CHECK:      %[[S:.*]] = aicf_gpu.alloc_shared : memref<2108xf32, #aicf_gpu.address_space<shared>>
// CHECK:      %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[B:.*]] = arith.muli %[[ST:.*]], %[[C8]] : index
// CHECK-NEXT: %[[BR:.*]] = arith.addi %[[B]], %[[K:.*]] : index
// CHECK-NEXT: %[[C132:.*]] = arith.constant 132 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[BR]], %[[C132]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[ROW]], %[[M:.*]] : index
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[I]]] : memref<2108xf32, #aicf_gpu.address_space<shared>>
// CHECK:      %[[ROW1:.*]] = arith.muli %[[B]], %[[C132]] : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[ROW1]], %[[R:.*]] : index
// CHECK-NEXT: aicf_gpu.load_vector %[[S]][%[[J]]] : memref<2108xf32, #aicf_gpu.address_space<shared>> -> vector<4xf32>
aicf_gpu.kernel @padded_staged(%x : f32, %st : index, %k : index, %m : index, %r : index, %y : memref<4xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared : memref<2x8x128xf32, #aicf_gpu.padded<interval = 128, pad = 4>, #aicf_gpu.address_space<shared>>
  memref.store %x, %s[%st, %k, %m] : memref<2x8x128xf32, #aicf_gpu.padded<interval = 128, pad = 4>, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  %v = aicf_gpu.load_vector %s[%st, %c0, %r] : memref<2x8x128xf32, #aicf_gpu.padded<interval = 128, pad = 4>, #aicf_gpu.address_space<shared>> -> vector<4xf32>
  aicf_gpu.store_vector %v, %y[%c0] : vector<4xf32>, memref<4xf32>
  aicf_gpu.return
}

// -----

// Padding that does not follow the rows (interval 48 in rows of 32): the general form
// l + (l / 48) * 2 over the linear index l = r * 32 + c, with an unsigned division
// (48 is no power of two); 10 * 32 + (319 / 48) * 2 = 332 elements.
// CHECK-LABEL: aicf_gpu.kernel @padded_linear
// CHECK:      %[[S:.*]] = aicf_gpu.alloc_shared : memref<332xf32, #aicf_gpu.address_space<shared>>
// CHECK:      %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[RR:.*]] = arith.muli %[[R:.*]], %[[C32]] : index
// CHECK-NEXT: %[[L:.*]] = arith.addi %[[RR]], %[[C:.*]] : index
// CHECK-NEXT: %[[C48:.*]] = arith.constant 48 : index
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[L]], %[[C48]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[Q]], %[[C2]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[L]], %[[P]] : index
// CHECK-NEXT: %{{.*}} = memref.load %[[S]][%[[I]]] : memref<332xf32, #aicf_gpu.address_space<shared>>
aicf_gpu.kernel @padded_linear(%r : index, %c : index, %y : memref<1xf32>) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %c0 = arith.constant 0 : index
  %s = aicf_gpu.alloc_shared : memref<10x32xf32, #aicf_gpu.padded<interval = 48, pad = 2>, #aicf_gpu.address_space<shared>>
  %v = memref.load %s[%r, %c] : memref<10x32xf32, #aicf_gpu.padded<interval = 48, pad = 2>, #aicf_gpu.address_space<shared>>
  memref.store %v, %y[%c0] : memref<1xf32>
  aicf_gpu.return
}
