// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// slice is a copy whose input map is d -> start + step * d; concatenate is one nest
// per operand over its own shape, writing its part of the result (the output map
// shifts the axis by the extents before it; an empty operand has no nest).

// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%{{.*}} : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<2x4xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (((d0 * 2) + 1), ((d1 * -2) + 7)), (d0, d1) -> (d0, d1)] {
  %0 = aicf_tensor.slice %x start = [1, 7] stop = [4, -1] step = [2, -2] : (tensor<4x8xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<2x3xf32>, %e: tensor<2x0xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 3] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%{{.*}} : memref<2x3xf32>)
  // CHECK-NEXT:   outs(%[[OUT:.*]] : memref<2x8xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  // CHECK:      aicf_loop.nest domain = [2, 5] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%{{.*}} : memref<2x5xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<2x8xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, (d1 + 3))] {
  // CHECK-NOT:  aicf_loop.nest
  %0 = aicf_tensor.concatenate %a, %e, %b axis = 1 : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  func.return %0 : tensor<2x8xf32>
}
