// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// reduce_sum / reduce_max: the domain is the input shape, reduced axes are
// `reduction` iterators, the output map drops them (keepdims: index 0), combiner add
// or max. f16 accumulates in f32: the body yields f32 into the f16 output.

// CHECK-LABEL: func.func @sum_last
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4xf32>)
func.func @sum_last(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK-NEXT:   ins(%[[X]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<4xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f32):
  // CHECK-NEXT:   aicf_loop.yield %[[V]] : f32
  %0 = aicf_tensor.reduce_sum %x axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @max_keepdims_negative_axes
func.func @max_keepdims_negative_axes(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 3, 4] iterators = [reduction, parallel, reduction]
  // CHECK:        maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (0, d1, 0)]
  // CHECK-NEXT:   combiners = [max] {
  %0 = aicf_tensor.reduce_max %x axes = [-1, 0] keepdims : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  func.return %0 : tensor<1x3x1xf32>
}

// -----

// CHECK-LABEL: func.func @sum_all_half
func.func @sum_all_half(%x: tensor<2x3xf16>) -> tensor<f16> {
  // CHECK:      aicf_loop.nest domain = [2, 3] iterators = [reduction, reduction]
  // CHECK-NEXT:   ins(%{{.*}} : memref<2x3xf16>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<f16>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> ()]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   aicf_loop.yield %[[W]] : f32
  %0 = aicf_tensor.reduce_sum %x axes = [0, 1] : (tensor<2x3xf16>) -> tensor<f16>
  func.return %0 : tensor<f16>
}

// -----

// Reducing nothing (NumPy's axis=()) is a copy; reducing an empty axis is a nest
// whose domain is empty along it (the output gets the combiner's identity).
// CHECK-LABEL: func.func @degenerate
func.func @degenerate(%x: tensor<2x3xf32>, %e: tensor<3x0xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  // CHECK:      aicf_loop.nest domain = [2, 3] iterators = [parallel, parallel]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  %0 = aicf_tensor.reduce_sum %x axes = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK:      aicf_loop.nest domain = [3, 0] iterators = [parallel, reduction]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)]
  // CHECK-NEXT:   combiners = [add]
  %1 = aicf_tensor.reduce_sum %e axes = [1] : (tensor<3x0xf32>) -> tensor<3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @int_sum
func.func @int_sum(%x: tensor<5x6xi32>) -> tensor<6xi32> {
  // CHECK:      aicf_loop.nest domain = [5, 6] iterators = [reduction, parallel]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: i32):
  // CHECK-NEXT:   aicf_loop.yield %[[V]] : i32
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<5x6xi32>) -> tensor<6xi32>
  func.return %0 : tensor<6xi32>
}

// -----

// reduce_min and reduce_prod: the nests of sum and max with combiners min and mul (f16
// multiplies in f32, as it adds); a product over an empty axis is the identity, 1.
// CHECK-LABEL: func.func @min_prod
func.func @min_prod(%x: tensor<4x8xf16>, %e: tensor<3x0xi64>) -> (tensor<1x8xf16>, tensor<4xf16>, tensor<3xi64>) {
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [reduction, parallel]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (0, d1)]
  // CHECK-NEXT:   combiners = [min] {
  %0 = aicf_tensor.reduce_min %x axes = [0] keepdims : (tensor<4x8xf16>) -> tensor<1x8xf16>
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK:        combiners = [mul] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   aicf_loop.yield %[[W]] : f32
  %1 = aicf_tensor.reduce_prod %x axes = [-1] : (tensor<4x8xf16>) -> tensor<4xf16>
  // CHECK:      aicf_loop.nest domain = [3, 0] iterators = [parallel, reduction]
  // CHECK:        combiners = [mul]
  %2 = aicf_tensor.reduce_prod %e axes = [1] : (tensor<3x0xi64>) -> tensor<3xi64>
  func.return %0, %1, %2 : tensor<1x8xf16>, tensor<4xf16>, tensor<3xi64>
}
