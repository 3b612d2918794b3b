// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Reductions follow numpy.sum(x, axis=axes, keepdims=...): negative axes count from
// the end, several axes at once, empty axes reduce nothing.

// CHECK-LABEL: func.func @last_axis
// CHECK-SAME: -> tensor<4xf32>
func.func @last_axis(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [-1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @keepdims
func.func @keepdims(%x: tensor<4x8x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [-2] keepdims : (tensor<4x8x3xf32>) -> tensor<4x1x3xf32>
  %0 = aicf_tensor.reduce_max %x axes = [-2] keepdims : (tensor<4x8x3xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_mean %{{.*}} axes = [0] keepdims : (tensor<4x8x3xf32>) -> tensor<1x8x3xf32>
  %1 = aicf_tensor.reduce_mean %x axes = [0] keepdims : (tensor<4x8x3xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// Several axes, in any order and sign; the result keeps the remaining dims in order.
// CHECK-LABEL: func.func @several_axes
func.func @several_axes(%x: tensor<2x3x4x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [3, 1] : (tensor<2x3x4x5xf32>) -> tensor<2x4xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [3, 1] : (tensor<2x3x4x5xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [-4, -2] keepdims : (tensor<2x3x4x5xf32>) -> tensor<1x3x1x5xf32>
  %1 = aicf_tensor.reduce_sum %x axes = [-4, -2] keepdims : (tensor<2x3x4x5xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [0, -1, 2] : (tensor<2x3x4x5xf32>) -> tensor<3xf32>
  %2 = aicf_tensor.reduce_max %x axes = [0, -1, 2] : (tensor<2x3x4x5xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// All axes give a rank-0 tensor (or all 1s with keepdims); empty axes change nothing.
// CHECK-LABEL: func.func @all_and_none
// CHECK-SAME: -> (tensor<f32>, tensor<1x1xf32>, tensor<4x8xf32>)
func.func @all_and_none(%x: tensor<4x8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  %0 = aicf_tensor.reduce_sum %x axes = [0, 1] : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_mean %{{.*}} axes = [0, 1] keepdims : (tensor<4x8xf32>) -> tensor<1x1xf32>
  %1 = aicf_tensor.reduce_mean %x axes = [0, 1] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.reduce_sum %x axes = [] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// 0-size and 1-size dims reduce like any other.
// CHECK-LABEL: func.func @degenerate
func.func @degenerate(%x: tensor<0x1x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [0] : (tensor<0x1x5xf32>) -> tensor<1x5xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<0x1x5xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [1] : (tensor<0x1x5xf32>) -> tensor<0x5xf32>
  %1 = aicf_tensor.reduce_max %x axes = [1] : (tensor<0x1x5xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// A reduction of an inferred value, and an integer sum that stays i32.
// CHECK-LABEL: func.func @after_broadcast
func.func @after_broadcast(%x: tensor<4x1xi32>, %y: tensor<6xi32>) -> tensor<*xi32> {
  // CHECK: aicf_tensor.add {{.*}} -> tensor<4x6xi32>
  %0 = aicf_tensor.add %x, %y : (tensor<4x1xi32>, tensor<6xi32>) -> tensor<*xi32>
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [-1] keepdims : (tensor<4x6xi32>) -> tensor<4x1xi32>
  %1 = aicf_tensor.reduce_sum %0 axes = [-1] keepdims : (tensor<*xi32>) -> tensor<*xi32>
  func.return %1 : tensor<*xi32>
}
