// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// numpy.reshape: one -1 stands for the extent that keeps the element count.

// CHECK-LABEL: func.func @minus_one
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<32xf32>, tensor<2x4x4xf32>)
func.func @minus_one(%x: tensor<4x2x4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [4, -1] : (tensor<4x2x4xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.reshape %x shape = [4, -1] : (tensor<4x2x4xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [-1] : (tensor<4x2x4xf32>) -> tensor<32xf32>
  %1 = aicf_tensor.reshape %x shape = [-1] : (tensor<4x2x4xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [2, -1, 4] : (tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %2 = aicf_tensor.reshape %0 shape = [2, -1, 4] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// Fully static targets, size-1 dims added and removed, to and from rank 0.
// CHECK-LABEL: func.func @static
func.func @static(%x: tensor<1x6x1xf32>, %s: tensor<1x1xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [3, 1, 2] : (tensor<1x6x1xf32>) -> tensor<3x1x2xf32>
  %0 = aicf_tensor.reshape %x shape = [3, 1, 2] : (tensor<1x6x1xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [] : (tensor<1x1xf32>) -> tensor<f32>
  %1 = aicf_tensor.reshape %s shape = [] : (tensor<1x1xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [1, -1, 1] : (tensor<f32>) -> tensor<1x1x1xf32>
  %2 = aicf_tensor.reshape %1 shape = [1, -1, 1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// Without a `shape` property the declared result type is the target.
// CHECK-LABEL: func.func @from_result_type
// CHECK-SAME: -> tensor<2x16xf32>
func.func @from_result_type(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %1 = aicf_tensor.reshape %0 : (tensor<*xf32>) -> tensor<2x16xf32>
  func.return %1 : tensor<2x16xf32>
}

// 0-size: an explicit 0 extent is fine when the element count is 0.
// CHECK-LABEL: func.func @zero_size
// CHECK-SAME: -> tensor<3x0x2xf32>
func.func @zero_size(%x: tensor<0x6xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reshape %x shape = [3, 0, 2] : (tensor<0x6xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
