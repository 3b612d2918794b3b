// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// transpose, broadcast_to and reshape are copy nests over the result shape whose
// input map does the work: a permutation, a broadcast, or floordiv/mod of the
// row-major linearised result index.

// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<2x3x4xf16>) -> tensor<4x2x3xf16> {
  // CHECK:      aicf_loop.nest domain = [4, 2, 3] iterators = [parallel, parallel, parallel]
  // CHECK-NEXT:   ins(%{{.*}} : memref<2x3x4xf16>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<4x2x3xf16>)
  // CHECK-NEXT:   maps = [(d0, d1, d2) -> (d1, d2, d0), (d0, d1, d2) -> (d0, d1, d2)] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   aicf_loop.yield %[[V]] : f16
  %0 = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf16>) -> tensor<4x2x3xf16>
  func.return %0 : tensor<4x2x3xf16>
}

// -----

// CHECK-LABEL: func.func @broadcast_to
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x5xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 3, 5] iterators = [parallel, parallel, parallel]
  // CHECK:        maps = [(d0, d1, d2) -> (d1, 0), (d0, d1, d2) -> (d0, d1, d2)] {
  %0 = aicf_tensor.broadcast_to %x shape = [2, 3, 5] : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<4x2x4xf32>, %y: tensor<4x8xf32>, %z: tensor<2x3xf32>) -> (tensor<4x8xf32>, tensor<32xf32>, tensor<3x2xf32>) {
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
  // CHECK:        maps = [(d0, d1) -> ((((d0 * 8) + d1) floordiv 8), ((((d0 * 8) + d1) floordiv 4) mod 2), (((d0 * 8) + d1) mod 4)), (d0, d1) -> (d0, d1)] {
  %0 = aicf_tensor.reshape %x shape = [4, -1] : (tensor<4x2x4xf32>) -> tensor<4x8xf32>
  // CHECK:      aicf_loop.nest domain = [32] iterators = [parallel]
  // CHECK:        maps = [(d0) -> ((d0 floordiv 8), (d0 mod 8)), (d0) -> (d0)] {
  %1 = aicf_tensor.reshape %y : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK:      aicf_loop.nest domain = [3, 2] iterators = [parallel, parallel]
  // CHECK:        maps = [(d0, d1) -> ((((d0 * 2) + d1) floordiv 3), (((d0 * 2) + d1) mod 3)), (d0, d1) -> (d0, d1)] {
  %2 = aicf_tensor.reshape %z : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0, %1, %2 : tensor<4x8xf32>, tensor<32xf32>, tensor<3x2xf32>
}

// -----

// Size-1 source dims read index 0; an empty result reads nothing.
// CHECK-LABEL: func.func @reshape_degenerate
func.func @reshape_degenerate(%x: tensor<1x6xf32>, %e: tensor<0x3xf32>) -> (tensor<2x1x3xf32>, tensor<3x0xf32>) {
  // CHECK:      aicf_loop.nest domain = [2, 1, 3] iterators = [parallel, parallel, parallel]
  // CHECK:        maps = [(d0, d1, d2) -> (0, ((d0 * 3) + d2)), (d0, d1, d2) -> (d0, d1, d2)] {
  %0 = aicf_tensor.reshape %x : (tensor<1x6xf32>) -> tensor<2x1x3xf32>
  // CHECK:      aicf_loop.nest domain = [3, 0] iterators = [parallel, parallel]
  // CHECK:        maps = [(d0, d1) -> (0, 0), (d0, d1) -> (d0, d1)] {
  %1 = aicf_tensor.reshape %e : (tensor<0x3xf32>) -> tensor<3x0xf32>
  func.return %0, %1 : tensor<2x1x3xf32>, tensor<3x0xf32>
}
