// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// Causal masks (query i keeps keys j <= i) in their spellings become the op's causal
// flag: torch's is_causal (ge of two iotas) and np.tril's (le with the operands
// swapped), the dropped part (gt) under where(drop, -inf, s), a constant i1 np.tri,
// and a finite fill of at most -1e9 (each row keeps its diagonal, so the fill's exp
// underflows to 0 as -inf's does).

// where(iota0 >= iota1, s, -inf)
// CHECK-LABEL: func.func @aten_is_causal
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 causal :
// CHECK-NOT: aicf_tensor.select
func.func @aten_is_causal(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x4xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<4x4xi32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %keep = aicf_tensor.ge %r, %c : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
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

// where(iota1 <= iota0, s, -inf), iotas broadcast from [4, 1] and [1, 4]
// CHECK-LABEL: func.func @tril
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 causal :
// CHECK-NOT: aicf_tensor.select
func.func @tril(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x1xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<1x4xi32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %keep = aicf_tensor.le %c, %r : (tensor<1x4xi32>, tensor<4x1xi32>) -> tensor<4x4xi1>
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

// where(iota1 > iota0, -inf, s)
// CHECK-LABEL: func.func @drop_above
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 causal :
// CHECK-NOT: aicf_tensor.select
func.func @drop_above(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x4xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<4x4xi32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %drop = aicf_tensor.gt %c, %r : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
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

// where(np.tri(4), s, -inf)
// CHECK-LABEL: func.func @constant_tri
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 causal :
// CHECK-NOT: aicf_tensor.select
func.func @constant_tri(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %keep = aicf_tensor.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
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

// where(causal, s, -1e10): the fill is at most -1e9 and every row keeps one score
// CHECK-LABEL: func.func @finite_fill
// CHECK: aicf_tensor.attention %q, %k, %v scale = 1.0 causal :
// CHECK-NOT: aicf_tensor.select
func.func @finite_fill(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x4xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<4x4xi32>
  %big = aicf_tensor.constant dense<-1.0e+10> : tensor<f32>
  %keep = aicf_tensor.ge %r, %c : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
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

// a mask scaled after the select: where(causal, s, -inf) * c (c > 0 keeps -inf)
// CHECK-LABEL: func.func @fill_then_scale
// CHECK: aicf_tensor.attention %q, %k, %v scale = 0.5 causal :
func.func @fill_then_scale(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %r = aicf_tensor.iota dim = 0 : tensor<4x4xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<4x4xi32>
  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>
  %keep = aicf_tensor.ge %r, %c : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
  %s1 = aicf_tensor.select %keep, %s, %ninf : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %h = aicf_tensor.constant dense<0.5> : tensor<f32>
  %s2 = aicf_tensor.mul %s1, %h : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s2, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
