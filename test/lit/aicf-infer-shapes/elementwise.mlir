// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Elementwise ops: unary results keep the operand's shape; binary results follow
// NumPy broadcasting (align from the right, extents match or are 1).

// CHECK-LABEL: func.func @unary_chain
// CHECK-SAME: -> tensor<4x8xf32>
func.func @unary_chain(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.neg %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.neg %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.exp %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.exp %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.tanh %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.tanh %1 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.gelu %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = aicf_tensor.gelu %2 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: func.return %{{.*}} : tensor<4x8xf32>
  func.return %3 : tensor<*xf32>
}

// CHECK-LABEL: func.func @broadcast_row
func.func @broadcast_row(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// Both operands stretch: 4x1 against 1x8.
// CHECK-LABEL: func.func @broadcast_both
func.func @broadcast_both(%a: tensor<4x1xf32>, %b: tensor<1x8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.mul %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.mul %a, %b : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// Rank extension on the left, several 1s.
// CHECK-LABEL: func.func @broadcast_rank
func.func @broadcast_rank(%a: tensor<2x1x3xf32>, %b: tensor<5x1xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.sub %{{.*}}, %{{.*}} : (tensor<2x1x3xf32>, tensor<5x1xf32>) -> tensor<2x5x3xf32>
  %0 = aicf_tensor.sub %a, %b : (tensor<2x1x3xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// A rank-0 operand broadcasts to anything.
// CHECK-LABEL: func.func @scalar
func.func @scalar(%x: tensor<3x5xf32>) -> tensor<*xf32> {
  %c = aicf_tensor.constant dense<1.7> : tensor<f32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %0 = aicf_tensor.pow %x, %c : (tensor<3x5xf32>, tensor<f32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.div %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = aicf_tensor.div %c, %c : (tensor<f32>, tensor<f32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.max %{{.*}}, %{{.*}} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %2 = aicf_tensor.max %0, %1 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// A 0-size extent wins over 1 (NumPy: (0,1) with (1,3) gives (0,3)).
// CHECK-LABEL: func.func @zero_size
// CHECK-SAME: -> tensor<0x3xf32>
func.func @zero_size(%a: tensor<0x1xf32>, %b: tensor<1x3xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.min %{{.*}}, %{{.*}} : (tensor<0x1xf32>, tensor<1x3xf32>) -> tensor<0x3xf32>
  %0 = aicf_tensor.min %a, %b : (tensor<0x1xf32>, tensor<1x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// Inference flows through a chain: each op sees its producers' inferred types.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: -> tensor<2x4x8xf32>
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<2x1x8xf32>, %z: tensor<1xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.add {{.*}} -> tensor<2x4x8xf32>
  %0 = aicf_tensor.add %x, %y : (tensor<4x8xf32>, tensor<2x1x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.sigmoid {{.*}} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %1 = aicf_tensor.sigmoid %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.mul {{.*}} : (tensor<2x4x8xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  %2 = aicf_tensor.mul %1, %z : (tensor<*xf32>, tensor<1xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
