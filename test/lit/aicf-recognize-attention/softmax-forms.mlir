// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// The softmax with and without the max subtraction, and an f16 attention whose
// softmax runs in f32 (a widening cast before it, a narrowing one after): the op
// computes its softmax in f32 anyway.

// exp(s) / sum(exp(s))
// CHECK-LABEL: func.func @unshifted
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 :
func.func @unshifted(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %s : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// f16 operands, f32 softmax
// CHECK-LABEL: func.func @f32_softmax
// CHECK: aicf_tensor.attention %q, %k, %v scale = 0.25 : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NOT: aicf_tensor.cast
func.func @f32_softmax(%q: tensor<4x8xf16>, %k: tensor<4x8xf16>, %v: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  %s32 = aicf_tensor.cast %s : (tensor<4x4xf16>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.25> : tensor<f32>
  %s1 = aicf_tensor.mul %s32, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %p16 = aicf_tensor.cast %p : (tensor<4x4xf32>) -> tensor<4x4xf16>
  %o = aicf_tensor.matmul %p16, %v : (tensor<4x4xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  func.return %o : tensor<4x8xf16>
}
