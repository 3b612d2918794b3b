// RUN: aicf-opt %s -p aicf-cleanup-reshapes --split-input-file | filecheck %s

// expand_dims then reduce the inserted dim's neighbour: keepdims says it.
// CHECK-LABEL: func.func @expand_dims
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @expand_dims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = aicf_tensor.reshape %x shape = [4, 1, 8] : (tensor<4x8xf32>) -> tensor<4x1x8xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [2] : (tensor<4x1x8xf32>) -> tensor<4x1xf32>
  func.return %1 : tensor<4x1xf32>
}

// -----

// Reducing only the inserted unit dim reduces nothing.
// CHECK-LABEL: func.func @reduce_unit_only
// CHECK-NEXT:    func.return %x : tensor<4x8xf32>
func.func @reduce_unit_only(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.reshape %x shape = [4, 1, 8] : (tensor<4x8xf32>) -> tensor<4x1x8xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<4x1x8xf32>) -> tensor<4x8xf32>
  func.return %1 : tensor<4x8xf32>
}

// -----

// squeeze before a reduction.
// CHECK-LABEL: func.func @squeeze
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_max %x axes = [0, 2] : (tensor<4x1x8xf32>) -> tensor<1xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @squeeze(%x: tensor<4x1x8xf32>) -> tensor<1xf32> {
  %0 = aicf_tensor.reshape %x shape = [4, 8] : (tensor<4x1x8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.reduce_max %0 axes = [0, 1] keepdims : (tensor<4x8xf32>) -> tensor<1x1xf32>
  %2 = aicf_tensor.reshape %1 shape = [1] : (tensor<1x1xf32>) -> tensor<1xf32>
  func.return %2 : tensor<1xf32>
}

// -----

// A merge of reduced dims only: reduce the dims it merged.
// CHECK-LABEL: func.func @merge_reduced
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_mean %x axes = [1, 2] : (tensor<4x8x16xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @merge_reduced(%x: tensor<4x8x16xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.reshape %x shape = [4, 128] : (tensor<4x8x16xf32>) -> tensor<4x128xf32>
  %1 = aicf_tensor.reduce_mean %0 axes = [-1] : (tensor<4x128xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// The reshape mixes reduced and kept dims (32 = 4x8, only part of it reduced):
// it must stay.
// CHECK-LABEL: func.func @mixes_reduced_and_kept
// CHECK-NEXT:    aicf_tensor.reshape %x shape = [2, 16]
// CHECK-NEXT:    aicf_tensor.reduce_sum %{{.*}} axes = [1]
func.func @mixes_reduced_and_kept(%x: tensor<4x8xf32>) -> tensor<2xf32> {
  %0 = aicf_tensor.reshape %x shape = [2, 16] : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<2x16xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// -----

// The reshape merges kept dims only: folding would need a reshape after the
// reduction, so it stays.
// CHECK-LABEL: func.func @merges_kept
// CHECK-NEXT:    aicf_tensor.reshape %x shape = [32, 16]
// CHECK-NEXT:    aicf_tensor.reduce_sum %{{.*}} axes = [1]
func.func @merges_kept(%x: tensor<4x8x16xf32>) -> tensor<32xf32> {
  %0 = aicf_tensor.reshape %x shape = [32, 16] : (tensor<4x8x16xf32>) -> tensor<32x16xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<32x16xf32>) -> tensor<32xf32>
  func.return %1 : tensor<32xf32>
}

// -----

// The reshape has another user: it stays for that user, the reduction still
// reads x directly.
// CHECK-LABEL: func.func @reshape_shared
// CHECK-NEXT:    %[[V:.*]] = aicf_tensor.reshape %x
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reduce_sum %x axes = [1] keepdims
// CHECK-NEXT:    func.return %[[R]], %[[V]]
func.func @reshape_shared(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x1x8xf32>) {
  %0 = aicf_tensor.reshape %x shape = [4, 1, 8] : (tensor<4x8xf32>) -> tensor<4x1x8xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [2] : (tensor<4x1x8xf32>) -> tensor<4x1xf32>
  func.return %1, %0 : tensor<4x1xf32>, tensor<4x1x8xf32>
}
