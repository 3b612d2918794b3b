// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// cast keeps the shape and takes the element type written on its result.

// CHECK-LABEL: func.func @cast
// CHECK-SAME: -> (tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi32>, tensor<4x8xf64>)
func.func @cast(%x: tensor<4x8xf32>) -> (tensor<*xf16>, tensor<*xbf16>, tensor<*xi32>, tensor<*xf64>) {
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %0 = aicf_tensor.cast %x : (tensor<4x8xf32>) -> tensor<*xf16>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<4x8xf16>) -> tensor<4x8xbf16>
  %1 = aicf_tensor.cast %0 : (tensor<*xf16>) -> tensor<*xbf16>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %2 = aicf_tensor.cast %x : (tensor<4x8xf32>) -> tensor<*xi32>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<4x8xi32>) -> tensor<4x8xf64>
  %3 = aicf_tensor.cast %2 : (tensor<*xi32>) -> tensor<*xf64>
  func.return %0, %1, %2, %3 : tensor<*xf16>, tensor<*xbf16>, tensor<*xi32>, tensor<*xf64>
}

// A cast to the same type, of a rank-0 and of a 0-size tensor.
// CHECK-LABEL: func.func @degenerate
// CHECK-SAME: -> (tensor<f32>, tensor<0x3xf16>)
func.func @degenerate(%s: tensor<f32>, %z: tensor<0x3xf32>) -> (tensor<*xf32>, tensor<*xf16>) {
  %0 = aicf_tensor.cast %s : (tensor<f32>) -> tensor<*xf32>
  %1 = aicf_tensor.cast %z : (tensor<0x3xf32>) -> tensor<*xf16>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf16>
}
