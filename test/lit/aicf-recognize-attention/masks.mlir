// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// Masks: an additive float tensor after the scale; where(keep, s, -inf) with an i1
// tensor (the op's i1 mask, true keeps); where(drop, -inf, s) (the mask negated
// first); a key-padding mask that broadcasts; a causal mask beside another mask.

// s * c + m, m a float tensor
// CHECK-LABEL: func.func @additive
// CHECK: aicf_tensor.attention %q, %k, %v, %m scale = 0.5 :
func.func @additive(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %m: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.5> : tensor<f32>
  %s1 = aicf_tensor.mul %s, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s2 = aicf_tensor.add %m, %s1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s2, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// where(keep, s, -inf)
// CHECK-LABEL: func.func @keep
// CHECK: aicf_tensor.attention %q, %k, %v, %keep scale = 1.0 :
func.func @keep(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %keep: tensor<4x4xi1>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %s1 = aicf_tensor.select %keep, %s, %ninf : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// where(drop, -inf, s): the op keeps where drop == false
// CHECK-LABEL: func.func @drop
// CHECK: %[[F:.*]] = aicf_tensor.constant dense<false> : tensor<i1>
// CHECK-NEXT: %[[K:.*]] = aicf_tensor.eq %drop, %[[F]] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4x4xi1>
// CHECK-NEXT: aicf_tensor.attention %q, %k, %v, %[[K]] scale = 1.0 :
func.func @drop(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %drop: tensor<4x4xi1>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %s1 = aicf_tensor.select %drop, %ninf, %s : (tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// a key-padding mask [1, Sk] (broadcast over the queries)
// CHECK-LABEL: func.func @key_padding
// CHECK: aicf_tensor.attention %q, %k, %v, %pad scale = 1.0 :
func.func @key_padding(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %pad: tensor<1x4xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %s1 = aicf_tensor.add %s, %pad : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// a causal iota mask and an additive mask: the flag and the mask
// CHECK-LABEL: func.func @causal_and_mask
// CHECK: aicf_tensor.attention %q, %k, %v, %m scale = 1.0 causal :
func.func @causal_and_mask(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %m: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x4xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<4x4xi32>
  %keep = aicf_tensor.ge %r, %c : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
  %s1 = aicf_tensor.select %keep, %s, %ninf : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s2 = aicf_tensor.add %s1, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s2, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
