// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.sin %{{.*}} : (tensor<*xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.sin %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.constant dense<1.500000e+00> : tensor<f32>
  %c = aicf_tensor.constant dense<1.5> : tensor<f32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %2 = aicf_tensor.pow %1, %c : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<1x8xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %1 = aicf_tensor.reduce_max %x axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<1x8xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<4x8xf16>) -> tensor<2x16xf32> {
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  %1 = aicf_tensor.matmul %x, %0 : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [2, -1] : (tensor<4x8xf16>) -> tensor<2x16xf16>
  %2 = aicf_tensor.reshape %x shape = [2, -1] : (tensor<4x8xf16>) -> tensor<2x16xf16>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [3, 4, 4] : (tensor<4x4xf16>) -> tensor<3x4x4xf16>
  %3 = aicf_tensor.broadcast_to %1 shape = [3, 4, 4] : (tensor<4x4xf16>) -> tensor<3x4x4xf16>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<2x16xf16>) -> tensor<2x16xf32>
  %4 = aicf_tensor.cast %2 : (tensor<2x16xf16>) -> tensor<2x16xf32>
  func.return %4 : tensor<2x16xf32>
}
