// RUN: aicf-opt %s -p aicf-cleanup-reshapes --split-input-file | filecheck %s

// A reshape that only drops the kept 1: the reduction without keepdims.
// CHECK-LABEL: func.func @drop_kept_dim
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @drop_kept_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %1 = aicf_tensor.reshape %0 shape = [4] : (tensor<4x1xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// The reverse: a reshape that puts the reduced dim back is keepdims.
// CHECK-LABEL: func.func @add_kept_dim
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_max %x axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @add_kept_dim(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %0 = aicf_tensor.reduce_max %x axes = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
  %1 = aicf_tensor.reshape %0 shape = [1, 8] : (tensor<8xf32>) -> tensor<1x8xf32>
  func.return %1 : tensor<1x8xf32>
}

// -----

// The reduction has another user: folding would compute it twice.
// CHECK-LABEL: func.func @shared_reduction
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] keepdims
// CHECK-NEXT:    %[[S:.*]] = aicf_tensor.reshape %[[R]]
// CHECK-NEXT:    func.return %[[S]], %[[R]]
func.func @shared_reduction(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x1xf32>) {
  %0 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %1 = aicf_tensor.reshape %0 shape = [4] : (tensor<4x1xf32>) -> tensor<4xf32>
  func.return %1, %0 : tensor<4xf32>, tensor<4x1xf32>
}

// -----

// A reshape that splits a kept dim is not a keepdims change: it stays.
// CHECK-LABEL: func.func @split_kept
// CHECK-NEXT:    aicf_tensor.reduce_sum %x axes = [1]
// CHECK-NEXT:    aicf_tensor.reshape
func.func @split_kept(%x: tensor<4x8xf32>) -> tensor<2x2xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.reshape %0 shape = [2, 2] : (tensor<4xf32>) -> tensor<2x2xf32>
  func.return %1 : tensor<2x2xf32>
}
