// RUN: aicf-opt %s -p aicf-cleanup-reshapes --split-input-file | filecheck %s

// Reducing the permuted dims of a transpose whose kept dims stay in order.
// CHECK-LABEL: func.func @reduce_of_transpose
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reduce_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = aicf_tensor.transpose %x perm = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [0] : (tensor<3x2x4xf32>) -> tensor<2x4xf32>
  func.return %1 : tensor<2x4xf32>
}

// -----

// Every dim reduced: the transpose does not matter.
// CHECK-LABEL: func.func @reduce_all_of_transpose
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_max %x axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reduce_all_of_transpose(%x: tensor<4x8xf32>) -> tensor<f32> {
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = aicf_tensor.reduce_max %0 axes = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  func.return %1 : tensor<f32>
}

// -----

// The kept dims come out in another order than x's: the transpose stays.
// CHECK-LABEL: func.func @kept_order_changes
// CHECK-NEXT:    aicf_tensor.transpose %x perm = [2, 1, 0]
// CHECK-NEXT:    aicf_tensor.reduce_sum %{{.*}} axes = [1]
func.func @kept_order_changes(%x: tensor<2x3x4xf32>) -> tensor<4x2xf32> {
  %0 = aicf_tensor.transpose %x perm = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<4x3x2xf32>) -> tensor<4x2xf32>
  func.return %1 : tensor<4x2xf32>
}

// -----

// With keepdims the result shape 1x4 is not one x's reduction can give (4x1).
// CHECK-LABEL: func.func @keepdims_shape_differs
// CHECK-NEXT:    aicf_tensor.transpose
// CHECK-NEXT:    aicf_tensor.reduce_sum
func.func @keepdims_shape_differs(%x: tensor<4x8xf32>) -> tensor<1x4xf32> {
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [0] keepdims : (tensor<8x4xf32>) -> tensor<1x4xf32>
  func.return %1 : tensor<1x4xf32>
}

// -----

// A transpose that moves only a unit dim is a reshape, and then folds into the
// reduction's keepdims.
// CHECK-LABEL: func.func @unit_transpose
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[T:.*]] = aicf_tensor.reshape %[[R]] shape = [1, 4] : (tensor<4x1xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @unit_transpose(%x: tensor<4x8xf32>) -> tensor<1x4xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %1 = aicf_tensor.transpose %0 perm = [1, 0] : (tensor<4x1xf32>) -> tensor<1x4xf32>
  func.return %1 : tensor<1x4xf32>
}
