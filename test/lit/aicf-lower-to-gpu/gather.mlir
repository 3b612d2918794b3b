// RUN: aicf-opt %s --split-input-file -p 'aicf-lower-to-gpu{target=h100}' | filecheck %s
// A gather becomes one grid-stride kernel over its output (block 256, at most one
// full wave of blocks) and its launch: each thread loads its index, widens an i32 to
// i64, wraps a negative one once, clamps it into [0, n - 1] and copies the element.

// CHECK-LABEL: aicf_gpu.kernel @f_gather0(%0 : memref<3x5xf32>, %1 : memref<2xi32>, %2 : memref<3x2xf32>) grid = [1, 1, 1] block = [256, 1, 1]
// CHECK:      scf.for
// CHECK:        %[[RAW:.*]] = memref.load %1[%{{.*}}] : memref<2xi32>
// CHECK-NEXT:   %[[WIDE:.*]] = arith.extsi %[[RAW]] : i32 to i64
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   %[[N:.*]] = arith.constant 5 : i64
// CHECK-NEXT:   %[[NEG:.*]] = arith.cmpi slt, %[[WIDE]], %[[ZERO]] : i64
// CHECK-NEXT:   %[[UP:.*]] = arith.addi %[[WIDE]], %[[N]] : i64
// CHECK-NEXT:   %[[W:.*]] = arith.select %[[NEG]], %[[UP]], %[[WIDE]] : i64
// CHECK-NEXT:   %[[LO:.*]] = arith.maxsi %[[W]], %[[ZERO]] : i64
// CHECK-NEXT:   %[[LAST:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[K:.*]] = arith.minsi %[[LO]], %[[LAST]] : i64
// CHECK-NEXT:   %[[IDX:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:   %[[V:.*]] = memref.load %0[%{{.*}}, %[[IDX]]] : memref<3x5xf32>
// CHECK-NEXT:   memref.store %[[V]], %2[%{{.*}}, %{{.*}}] : memref<3x2xf32>
// CHECK-LABEL: func.func @f
// CHECK:      aicf_gpu.launch @f_gather0(%x, %i, %y) grid = [1, 1, 1] block = [256, 1, 1]
// CHECK-NOT:  aicf_loop.gather
func.func @f(%x: memref<3x5xf32>, %i: memref<2xi32>, %y: memref<3x2xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.gather axis = 1 ins(%x, %i : memref<3x5xf32>, memref<2xi32>) outs(%y : memref<3x2xf32>)
  func.return
}

// -----

// A big output: the grid stops at one full wave of the H100 (132 SMs x 8 blocks).
// CHECK-LABEL: aicf_gpu.kernel @big_gather0
// CHECK-SAME: grid = [1056, 1, 1] block = [256, 1, 1]
func.func @big(%x: memref<50257x768xf32>, %i: memref<1024xi64>, %y: memref<1024x768xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.gather axis = 0 ins(%x, %i : memref<50257x768xf32>, memref<1024xi64>) outs(%y : memref<1024x768xf32>)
  func.return
}
