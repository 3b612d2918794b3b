// RUN: aicf-opt %s --split-input-file | aicf-opt --split-input-file | filecheck %s
// RUN: aicf-opt %s --split-input-file -p aicf-infer-shapes | filecheck %s --check-prefix=INFER
// take round-trips; its result shape is the source's with the axis replaced by the
// indices' shape (negative axes count from the end).

// CHECK-LABEL: func.func @embedding
// CHECK: aicf_tensor.take %w, %i axis = 0 : (tensor<50x8xf32>, tensor<2x3xi64>) -> tensor<*xf32>
// INFER-LABEL: func.func @embedding
// INFER: -> tensor<2x3x8xf32>
func.func @embedding(%w: tensor<50x8xf32>, %i: tensor<2x3xi64>) -> tensor<*xf32> {
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<50x8xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @last_axis
// INFER-LABEL: func.func @last_axis
// INFER: aicf_tensor.take %{{.*}}, %{{.*}} axis = -1 : (tensor<4x5x6xf16>, tensor<7xi32>) -> tensor<4x5x7xf16>
func.func @last_axis(%x: tensor<4x5x6xf16>, %i: tensor<7xi32>) -> tensor<*xf16> {
  %0 = aicf_tensor.take %x, %i axis = -1 : (tensor<4x5x6xf16>, tensor<7xi32>) -> tensor<*xf16>
  func.return %0 : tensor<*xf16>
}

// -----

// CHECK-LABEL: func.func @scalar_index
// INFER-LABEL: func.func @scalar_index
// INFER: aicf_tensor.take %{{.*}}, %{{.*}} axis = 1 : (tensor<4x5xf32>, tensor<i64>) -> tensor<4xf32>
func.func @scalar_index(%x: tensor<4x5xf32>, %i: tensor<i64>) -> tensor<*xf32> {
  %0 = aicf_tensor.take %x, %i axis = 1 : (tensor<4x5xf32>, tensor<i64>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
