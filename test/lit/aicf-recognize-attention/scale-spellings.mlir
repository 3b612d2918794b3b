// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// The scale in its spellings: s * c, c * s, s / c (c a splat constant), several
// scales, Q or K scaled before the product, or none; each becomes the op's scale.

// s * c
// CHECK-LABEL: func.func @mul_after
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 0.125 :
func.func @mul_after(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.125> : tensor<f32>
  %s1 = aicf_tensor.mul %s, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// c * s
// CHECK-LABEL: func.func @mul_before
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 0.125 :
func.func @mul_before(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.125> : tensor<f32>
  %s1 = aicf_tensor.mul %c, %s : (tensor<f32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// s / c, c a splat constant of the scores' shape
// CHECK-LABEL: func.func @div_splat
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 0.25 :
func.func @div_splat(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<4.0> : tensor<4x4xf32>
  %s1 = aicf_tensor.div %s, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// two scales multiply
// CHECK-LABEL: func.func @two_scales
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 0.0625 :
func.func @two_scales(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.25> : tensor<f32>
  %s1 = aicf_tensor.mul %s, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s2 = aicf_tensor.mul %s1, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s2, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// Q and K scaled before the product (torch's math decomposition scales both by
// sqrt(scale))
// CHECK-LABEL: func.func @scaled_operands
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 0.125 :
func.func @scaled_operands(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = aicf_tensor.constant dense<0.5> : tensor<f32>
  %qs = aicf_tensor.mul %q, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %kts = aicf_tensor.mul %kt, %c : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %qs, %kts : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %d = aicf_tensor.constant dense<2.0> : tensor<f32>
  %s1 = aicf_tensor.div %s, %d : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// no scale at all
// CHECK-LABEL: func.func @unscaled
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v scale = 1.0 :
func.func @unscaled(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
