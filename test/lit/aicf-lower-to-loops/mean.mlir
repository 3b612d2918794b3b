// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// reduce_mean: a sum nest into an f32 buffer (the output itself when it is f32),
// then an elementwise nest dividing by the count, as NumPy does (0/0 = NaN for an
// empty reduction).

// CHECK-LABEL: func.func @mean_f32
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4x1xf32>)
func.func @mean_f32(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // CHECK-NOT:  memref.alloc
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK-NEXT:   ins(%[[X]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<4x1xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)]
  // CHECK-NEXT:   combiners = [add] {
  // The scaling reads and writes the output with identical maps (in place).
  // CHECK:      aicf_loop.nest domain = [4, 1] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%[[OUT]] : memref<4x1xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<4x1xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  // CHECK-NEXT: ^{{.*}}(%[[S:.*]]: f32):
  // CHECK-NEXT:   %[[N:.*]] = arith.constant 8.000000e+00 : f32
  // CHECK-NEXT:   %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[M]] : f32
  %0 = aicf_tensor.reduce_mean %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  func.return %0 : tensor<4x1xf32>
}

// -----

// CHECK-LABEL: func.func @mean_f16
// CHECK-SAME: (%[[X:.*]]: memref<2x3x4xf16>, %[[OUT:.*]]: memref<3xf16>)
func.func @mean_f16(%x: tensor<2x3x4xf16>) -> tensor<3xf16> {
  // CHECK:      %[[ACC:.*]] = memref.alloc() : memref<3xf32>
  // CHECK-NEXT: aicf_loop.nest domain = [2, 3, 4] iterators = [reduction, parallel, reduction]
  // CHECK-NEXT:   ins(%[[X]] : memref<2x3x4xf16>)
  // CHECK-NEXT:   outs(%[[ACC]] : memref<3xf32>)
  // CHECK-NEXT:   maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d1)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   aicf_loop.yield %[[W]] : f32
  // CHECK:      aicf_loop.nest domain = [3] iterators = [parallel]
  // CHECK-NEXT:   ins(%[[ACC]] : memref<3xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<3xf16>)
  // CHECK-NEXT:   maps = [(d0) -> (d0), (d0) -> (d0)] {
  // CHECK-NEXT: ^{{.*}}(%[[S:.*]]: f32):
  // CHECK-NEXT:   %[[N:.*]] = arith.constant 8.000000e+00 : f32
  // CHECK-NEXT:   %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
  // CHECK-NEXT:   %[[H:.*]] = arith.truncf %[[M]] : f32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[H]] : f16
  // CHECK:      memref.dealloc %[[ACC]] : memref<3xf32>
  %0 = aicf_tensor.reduce_mean %x axes = [0, -1] : (tensor<2x3x4xf16>) -> tensor<3xf16>
  func.return %0 : tensor<3xf16>
}

// -----

// f64 accumulates in f64; an empty reduction divides by a count of 0.
// CHECK-LABEL: func.func @mean_f64_empty
func.func @mean_f64_empty(%x: tensor<0x3xf64>) -> tensor<3xf64> {
  // CHECK:      aicf_loop.nest domain = [0, 3] iterators = [reduction, parallel]
  // CHECK:        combiners = [add]
  // CHECK:        arith.constant 0.000000e+00 : f64
  // CHECK-NEXT:   arith.divf %{{.*}}, %{{.*}} : f64
  %0 = aicf_tensor.reduce_mean %x axes = [0] : (tensor<0x3xf64>) -> tensor<3xf64>
  func.return %0 : tensor<3xf64>
}
