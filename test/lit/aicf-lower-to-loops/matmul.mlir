// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// matmul is ONE nest over [batch..., M, N, K]: K is the only reduction, combiner add,
// body mulf; broadcast batch dims read index 0 or are dropped; a 1-D operand adds no
// dim to the domain (NumPy promotes and squeezes it).

// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:.*]]: memref<3x4xf32>, %[[B:.*]]: memref<4x5xf32>, %[[C:.*]]: memref<3x5xf32>)
func.func @mm(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK:      aicf_loop.nest domain = [3, 5, 4] iterators = [parallel, parallel, reduction]
  // CHECK-NEXT:   ins(%[[A]], %[[B]] : memref<3x4xf32>, memref<4x5xf32>)
  // CHECK-NEXT:   outs(%[[C]] : memref<3x5xf32>)
  // CHECK-NEXT:   maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32):
  // CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[P]] : f32
  %0 = aicf_tensor.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @batched_broadcast
func.func @batched_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 5, 3, 6, 4] iterators = [parallel, parallel, parallel, parallel, reduction]
  // CHECK:        maps = [(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4), (d0, d1, d2, d3, d4) -> (d1, d4, d3), (d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)]
  // CHECK-NEXT:   combiners = [add]
  %0 = aicf_tensor.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  func.return %0 : tensor<2x5x3x6xf32>
}

// -----

// CHECK-LABEL: func.func @vector_matrix
func.func @vector_matrix(%v: tensor<4xf32>, %m: tensor<2x4x5xf32>) -> tensor<2x5xf32> {
  // CHECK:      aicf_loop.nest domain = [2, 5, 4] iterators = [parallel, parallel, reduction]
  // CHECK:        maps = [(d0, d1, d2) -> (d2), (d0, d1, d2) -> (d0, d2, d1), (d0, d1, d2) -> (d0, d1)]
  %0 = aicf_tensor.matmul %v, %m : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @matrix_vector
func.func @matrix_vector(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  // CHECK:      aicf_loop.nest domain = [3, 4] iterators = [parallel, reduction]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
  %0 = aicf_tensor.matmul %m, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @dot
func.func @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  // CHECK:      aicf_loop.nest domain = [4] iterators = [reduction]
  // CHECK:        maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> ()]
  // CHECK-NEXT:   combiners = [add]
  %0 = aicf_tensor.matmul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// f16 multiplies and accumulates in f32; the store converts to f16.
// CHECK-LABEL: func.func @half
func.func @half(%a: tensor<8x16xf16>, %b: tensor<16x4xf16>) -> tensor<8x4xf16> {
  // CHECK:      aicf_loop.nest domain = [8, 4, 16] iterators = [parallel, parallel, reduction]
  // CHECK:      ^{{.*}}(%[[X:.*]]: f16, %[[Y:.*]]: f16):
  // CHECK-NEXT:   %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
  // CHECK-NEXT:   %[[Y32:.*]] = arith.extf %[[Y]] : f16 to f32
  // CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[X32]], %[[Y32]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[P]] : f32
  %0 = aicf_tensor.matmul %a, %b : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
  func.return %0 : tensor<8x4xf16>
}
