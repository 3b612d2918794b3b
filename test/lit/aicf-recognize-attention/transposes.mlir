// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// K^T written as a transpose, a swapaxes-style transpose of the last two dims of a
// 4-D tensor, or K given as D x S; transposes of Q, K and V into [batch, heads, seq,
// dim] (torch's view(B, T, H, D).transpose(1, 2)) become the operands' layouts.

// K^T by a transpose: K is read in place
// CHECK-LABEL: func.func @transpose_k
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 :
func.func @transpose_k(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
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

// -----

// K given as D x S: read through k_perm
// CHECK-LABEL: func.func @k_given_transposed
// CHECK: aicf_tensor.attention %q, %kt, %v scale = 1.0 k_perm = [1, 0] :
func.func @k_given_transposed(%q: tensor<4x8xf32>, %kt: tensor<8x4xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// [batch, seq, heads, dim] operands: Q, K and V transposed to heads first, K to
// [batch, heads, dim, seq] (swapaxes(-1, -2) of the transposed K); the layouts compose
// CHECK-LABEL: func.func @bshd
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3] :
// CHECK-SAME: -> tensor<2x4x16x8xf32>
func.func @bshd(%q: tensor<2x16x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32> {
  %qh = aicf_tensor.transpose %q perm = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %kh = aicf_tensor.transpose %k perm = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %vh = aicf_tensor.transpose %v perm = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %kt = aicf_tensor.transpose %kh perm = [0, 1, 3, 2] : (tensor<2x4x16x8xf32>) -> tensor<2x4x8x16xf32>
  %s = aicf_tensor.matmul %qh, %kt : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %e = aicf_tensor.exp %sh : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %o = aicf_tensor.matmul %p, %vh : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  func.return %o : tensor<2x4x16x8xf32>
}
