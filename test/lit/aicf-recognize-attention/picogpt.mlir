// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// picoGPT's attention as aicf.jit traces it: softmax(q @ k.T / sqrt(d) + mask) @ v
// with mask = (1 - np.tri(n)) * -1e10 (a constant): one attention op, K read in place
// (the transpose folds into its layout), the scale 1 / c of the divisor, and the
// constant causal mask as the causal flag (each row keeps its diagonal, and -1e10 is
// below aicf-recognize-attention's MASKED_AT_MOST).

// CHECK-LABEL: func.func @picogpt
// CHECK-NEXT: %[[A:.*]] = aicf_tensor.attention %q, %k, %v scale = 0.3535533966440824 causal : (tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
// CHECK-NEXT: func.return %[[A]]
func.func @picogpt(%q: tensor<5x8xf32>, %k: tensor<5x8xf32>, %v: tensor<5x8xf32>) -> tensor<5x8xf32> {
  %3 = aicf_tensor.transpose %k perm = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
  %4 = aicf_tensor.matmul %q, %3 : (tensor<5x8xf32>, tensor<8x5xf32>) -> tensor<5x5xf32>
  %5 = aicf_tensor.constant dense<2.82842708> : tensor<f32>
  %6 = aicf_tensor.div %4, %5 : (tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>
  %7 = aicf_tensor.constant dense<[[-0.0, -1.0e+10, -1.0e+10, -1.0e+10, -1.0e+10], [-0.0, -0.0, -1.0e+10, -1.0e+10, -1.0e+10], [-0.0, -0.0, -0.0, -1.0e+10, -1.0e+10], [-0.0, -0.0, -0.0, -0.0, -1.0e+10], [-0.0, -0.0, -0.0, -0.0, -0.0]]> : tensor<5x5xf32>
  %8 = aicf_tensor.add %6, %7 : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  %9 = aicf_tensor.reduce_max %8 axes = [-1] keepdims : (tensor<5x5xf32>) -> tensor<5x1xf32>
  %10 = aicf_tensor.sub %8, %9 : (tensor<5x5xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %11 = aicf_tensor.exp %10 : (tensor<5x5xf32>) -> tensor<5x5xf32>
  %12 = aicf_tensor.reduce_sum %11 axes = [-1] keepdims : (tensor<5x5xf32>) -> tensor<5x1xf32>
  %13 = aicf_tensor.div %11, %12 : (tensor<5x5xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %14 = aicf_tensor.matmul %13, %v : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
  func.return %14 : tensor<5x8xf32>
}

// -----

// A mask that is not causal (the last row drops its diagonal) stays an additive mask.
// CHECK-LABEL: func.func @not_causal
// CHECK: %[[M:.*]] = aicf_tensor.constant
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v, %[[M]] scale = 0.5 k_perm = [1, 0]
// CHECK-NOT: aicf_tensor.matmul
func.func @not_causal(%q: tensor<3x4xf32>, %k: tensor<4x3xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %4 = aicf_tensor.matmul %q, %k : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  %5 = aicf_tensor.constant dense<2.0> : tensor<f32>
  %6 = aicf_tensor.div %4, %5 : (tensor<3x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  %7 = aicf_tensor.constant dense<[[0.0, -1.0e+10, -1.0e+10], [0.0, 0.0, -1.0e+10], [0.0, 0.0, -1.0e+10]]> : tensor<3x3xf32>
  %8 = aicf_tensor.add %6, %7 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %9 = aicf_tensor.reduce_max %8 axes = [-1] keepdims : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %10 = aicf_tensor.sub %8, %9 : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %11 = aicf_tensor.exp %10 : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %12 = aicf_tensor.reduce_sum %11 axes = [-1] keepdims : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %13 = aicf_tensor.div %11, %12 : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %14 = aicf_tensor.matmul %13, %v : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %14 : tensor<3x4xf32>
}

// -----

// A causal mask whose fill is f16's lowest (-65504, above MASKED_AT_MOST) is not
// the causal flag: it stays an additive mask, which is exact.
// CHECK-LABEL: func.func @f16_lowest
// CHECK: aicf_tensor.attention %q, %k, %v, %{{.*}} scale = 1.0 k_perm = [1, 0] :
func.func @f16_lowest(%q: tensor<2x4xf16>, %k: tensor<4x2xf16>, %v: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %4 = aicf_tensor.matmul %q, %k : (tensor<2x4xf16>, tensor<4x2xf16>) -> tensor<2x2xf16>
  %7 = aicf_tensor.constant dense<[[0.0, -65504.0], [0.0, 0.0]]> : tensor<2x2xf16>
  %8 = aicf_tensor.add %4, %7 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  %9 = aicf_tensor.reduce_max %8 axes = [-1] keepdims : (tensor<2x2xf16>) -> tensor<2x1xf16>
  %10 = aicf_tensor.sub %8, %9 : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x2xf16>
  %11 = aicf_tensor.exp %10 : (tensor<2x2xf16>) -> tensor<2x2xf16>
  %12 = aicf_tensor.reduce_sum %11 axes = [-1] keepdims : (tensor<2x2xf16>) -> tensor<2x1xf16>
  %13 = aicf_tensor.div %11, %12 : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x2xf16>
  %14 = aicf_tensor.matmul %13, %v : (tensor<2x2xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
  func.return %14 : tensor<2x4xf16>
}
