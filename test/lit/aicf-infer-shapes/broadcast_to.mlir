// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// numpy.broadcast_to: the operand aligns to the right of the target shape.

// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<3x4x8xf32>, tensor<2x3xf32>, tensor<0x8xf32>)
func.func @broadcast_to(%v: tensor<8xf32>, %r: tensor<1x8xf32>, %s: tensor<f32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [4, 8] : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.broadcast_to %v shape = [4, 8] : (tensor<8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [3, 4, 8] : (tensor<1x8xf32>) -> tensor<3x4x8xf32>
  %1 = aicf_tensor.broadcast_to %r shape = [3, 4, 8] : (tensor<1x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [2, 3] : (tensor<f32>) -> tensor<2x3xf32>
  %2 = aicf_tensor.broadcast_to %s shape = [2, 3] : (tensor<f32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [0, 8] : (tensor<1x8xf32>) -> tensor<0x8xf32>
  %3 = aicf_tensor.broadcast_to %r shape = [0, 8] : (tensor<1x8xf32>) -> tensor<*xf32>
  func.return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// The operand's shape is known only after inference.
// CHECK-LABEL: func.func @of_inferred
// CHECK-SAME: -> tensor<5x4x1xf32>
func.func @of_inferred(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_max %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [5, 4, 1] : (tensor<4x1xf32>) -> tensor<5x4x1xf32>
  %1 = aicf_tensor.broadcast_to %0 shape = [5, 4, 1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
