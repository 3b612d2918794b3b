// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// transpose: result dim i is operand dim perm[i] (numpy.transpose(x, perm)).

// CHECK-LABEL: func.func @two_d
// CHECK-SAME: -> tensor<8x4xf32>
func.func @two_d(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @rank_three
func.func @rank_three(%x: tensor<2x3x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [2, 0, 1] : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>
  %0 = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x5xf32>) -> tensor<*xf32>
  // Composing with the inverse permutation gives the original shape back.
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 2, 0] : (tensor<5x2x3xf32>) -> tensor<2x3x5xf32>
  %1 = aicf_tensor.transpose %0 perm = [1, 2, 0] : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [0, 1, 2] : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = aicf_tensor.transpose %x perm = [0, 1, 2] : (tensor<2x3x5xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// Rank 0 with the empty permutation; 0-size and 1-size dims move like others.
// CHECK-LABEL: func.func @degenerate
// CHECK-SAME: -> (tensor<f32>, tensor<1x3x0xf32>)
func.func @degenerate(%s: tensor<f32>, %x: tensor<0x1x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.transpose %s perm = [] : (tensor<f32>) -> tensor<*xf32>
  %1 = aicf_tensor.transpose %x perm = [1, 2, 0] : (tensor<0x1x3xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
