// RUN: aicf-opt %s -p aicf-recognize-attention | filecheck %s
// Without explain the ops carry no notes; the module lists each attention made and
// each near miss, with its location (what exe.explain() prints).

// CHECK: builtin.module attributes {aicf.attention = ["{{.*}}report.mlir:{{[0-9]+}}:{{[0-9]+}}: attention softmax max-subtracted; scale 1.0; K read through its transpose", "{{.*}}report.mlir:{{[0-9]+}}:{{[0-9]+}}: softmax(..) @ V not matched: the scores are a function argument, not a matmul of Q and K"]}
// CHECK-LABEL: func.func @two
// CHECK-NOT: {aicf.attention
func.func @two(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>, %x: tensor<4x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %kt = aicf_tensor.transpose %k perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = aicf_tensor.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %mx = aicf_tensor.reduce_max %s axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %sh = aicf_tensor.sub %s, %mx : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = aicf_tensor.exp %sh : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = aicf_tensor.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = aicf_tensor.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum2 = aicf_tensor.reduce_sum %e2 axes = [-1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p2 = aicf_tensor.div %e2, %sum2 : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o2 = aicf_tensor.matmul %p2, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o, %o2 : tensor<4x8xf32>, tensor<4x8xf32>
}
