// RUN: aicf-opt %s --split-input-file -p 'aicf-recognize-attention{explain=true}' | filecheck %s
// softmax(..) @ V that must not become an attention, each with the reason the pass
// gives (on the matmul with explain=true): what the op would compute differs.

// (s + m) * c scales the mask too
// CHECK-LABEL: func.func @mask_before_scale
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: the mask is added before the scale, which would scale it too: the op adds it after (aicf_tensor.add at
func.func @mask_before_scale(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %m: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.5> : tensor<f32>
  %s1 = aicf_tensor.add %s, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
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

// where(keep, s, -1e9) with a run-time mask: a row masked out entirely would
// average V in the program and give 0 in the op
// CHECK-LABEL: func.func @finite_fill_not_causal
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: the fill -1000000000.0 is finite and the mask is not causal
func.func @finite_fill_not_causal(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %keep: tensor<4x4xi1>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %big = aicf_tensor.constant dense<-1.0e+09> : tensor<f32>
  %s1 = aicf_tensor.select %keep, %s, %big : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// where(keep, s, 0) does not drop scores
// CHECK-LABEL: func.func @fill_not_masking
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: the fill 0.0 does not mask a score out
func.func @fill_not_masking(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %keep: tensor<4x4xi1>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %z = aicf_tensor.constant dense<0.0> : tensor<f32>
  %s1 = aicf_tensor.select %keep, %s, %z : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// where(keep, s, -inf) * -1 turns the fill into +inf
// CHECK-LABEL: func.func @negative_scale
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: a fill under the scale -1.0, which turns it into inf
func.func @negative_scale(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %keep: tensor<4x4xi1>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %s1 = aicf_tensor.select %keep, %s, %ninf : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %n = aicf_tensor.constant dense<-1.0> : tensor<f32>
  %s2 = aicf_tensor.mul %s1, %n : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s2, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// two run-time masks: the op takes one besides the causal flag
// CHECK-LABEL: func.func @two_masks
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: a second mask (i1 mask): the op takes one mask besides the causal flag
func.func @two_masks(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %keep: tensor<4x4xi1>, %m: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
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

// -----

// the scores are returned too: the op would not remove them
// CHECK-LABEL: func.func @scores_read_twice
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: an intermediate of the scores: also read by aicf_tensor.add
func.func @scores_read_twice(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = aicf_tensor.constant dense<0.5> : tensor<f32>
  %s1 = aicf_tensor.mul %s, %c : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %s2 = aicf_tensor.add %s, %s : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s1 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s1, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o, %s2 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// softmax of a function argument
// CHECK-LABEL: func.func @not_a_product
// CHECK-NOT: aicf_tensor.attention
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: the scores are a function argument, not a matmul of Q and K
func.func @not_a_product(%s: tensor<4x4xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// the weights normalised over the first axis
// CHECK-LABEL: func.func @wrong_axis
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: the weights are divided by something other than their own sum over the last axis
func.func @wrong_axis(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %s : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [0] keepdims : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// f32 weights times an f16 V: an f32 result of f16 operands
// CHECK-LABEL: func.func @mixed_types
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: Q, K, V and the result are f32, f32, f16, f32: the op takes one float type"}
func.func @mixed_types(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf16>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// -----

// exp(s - m) where m is the max over the other axis
// CHECK-LABEL: func.func @other_max
// CHECK: aicf_tensor.matmul %p, %v {aicf.attention = "not matched: exp(x - m) where m is not x's own max over the last axis
func.func @other_max(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s axes = [0] keepdims : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
