// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// Access maps are spelled in arith on index: strides and offsets (slices with steps,
// reversed views), transposes, reshapes (floordiv and mod; affine mod is never
// negative: a - floordiv(a, b) * b), constant indices.

// x[1::2, ::-2] of a 4x8 input (a slice with steps, one negative)
// CHECK-LABEL: func.func @strided_slice
// CHECK-DAG:     %[[C2:[^ ,)]+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C1:[^ ,)]+]] = arith.constant 1 : index
// CHECK-DAG:     %[[CM2:[^ ,)]+]] = arith.constant -2 : index
// CHECK-DAG:     %[[C7:[^ ,)]+]] = arith.constant 7 : index
// CHECK:         scf.for %[[I:[^ ,)]+]] =
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] =
// CHECK-NEXT:        %[[I2:[^ ,)]+]] = arith.muli %[[I]], %[[C2]] : index
// CHECK-NEXT:        %[[R:[^ ,)]+]] = arith.addi %[[I2]], %[[C1]] : index
// CHECK-NEXT:        %[[J2:[^ ,)]+]] = arith.muli %[[J]], %[[CM2]] : index
// CHECK-NEXT:        %[[C:[^ ,)]+]] = arith.addi %[[J2]], %[[C7]] : index
// CHECK-NEXT:        memref.load %x[%[[R]], %[[C]]] : memref<4x8xf32>
func.func @strided_slice(%x: memref<4x8xf32>, %y: memref<2x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
    ins(%x : memref<4x8xf32>) outs(%y : memref<2x4xf32>)
    maps = [(d0, d1) -> (d0 * 2 + 1, d1 * -2 + 7), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    aicf_loop.yield %e : f32
  }
  func.return
}

// -----

// reshape 2x6 -> 3x4 read through the flat index: floordiv and mod
// CHECK-LABEL: func.func @reshape
// CHECK:         scf.for %[[I:[^ ,)]+]] =
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] =
// CHECK-NEXT:        %[[A:[^ ,)]+]] = arith.muli %[[I]], %[[C4:[^ ,)]+]] : index
// CHECK-NEXT:        %[[F:[^ ,)]+]] = arith.addi %[[A]], %[[J]] : index
// CHECK-NEXT:        %[[R:[^ ,)]+]] = arith.floordivsi %[[F]], %[[C6:[^ ,)]+]] : index
// CHECK:             %[[Q:[^ ,)]+]] = arith.floordivsi %[[F2:[^ ,)]+]], %[[C6]] : index
// CHECK-NEXT:        %[[QB:[^ ,)]+]] = arith.muli %[[Q]], %[[C6]] : index
// CHECK-NEXT:        %[[M:[^ ,)]+]] = arith.subi %[[F2]], %[[QB]] : index
// CHECK-NEXT:        memref.load %x[%[[R]], %[[M]]] : memref<2x6xf32>
func.func @reshape(%x: memref<2x6xf32>, %y: memref<3x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3, 4] iterators = [parallel, parallel]
    ins(%x : memref<2x6xf32>) outs(%y : memref<3x4xf32>)
    maps = [(d0, d1) -> ((d0 * 4 + d1) floordiv 6, (d0 * 4 + d1) mod 6), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// a transpose and a constant index (column 2 of a 3x4 input, broadcast over rows)
// CHECK-LABEL: func.func @transpose_and_column
// CHECK:         scf.for %[[I:[^ ,)]+]] =
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] =
// CHECK-NEXT:        memref.load %x[%[[J]], %[[I]]] : memref<3x4xf32>
// CHECK-NEXT:        memref.load %x[%[[J]], %[[C2:[^ ,)]+]]] : memref<3x4xf32>
func.func @transpose_and_column(%x: memref<3x4xf32>, %y: memref<4x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 3] iterators = [parallel, parallel]
    ins(%x, %x : memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<4x3xf32>)
    maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d1, 2), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
