// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s
// torch's matmul of 4-D tensors arrives as a bmm of views merging the batch dims,
// viewed back; next to a softmax that is the 4-D product, and the attention is
// recognised (here with HF GPT-2's eager causal mask: torch.tril of ones through
// aranges, filled with finfo(f32).min, and an additive padding mask). A bmm of views
// elsewhere keeps its form.

// CHECK-LABEL: func.func @torch_eager
// CHECK: aicf_tensor.attention %q, %k, %v, %pad scale = 0.25 causal : (tensor<2x3x10x16xf32>, tensor<2x3x10x16xf32>, tensor<2x3x10x16xf32>, tensor<2x1x1x10xf32>) -> tensor<2x3x10x16xf32>
// CHECK-NOT: aicf_tensor.matmul
func.func @torch_eager(%q: tensor<2x3x10x16xf32>, %k: tensor<2x3x10x16xf32>, %v: tensor<2x3x10x16xf32>, %pad: tensor<2x1x1x10xf32>) -> tensor<2x3x10x16xf32> {
  %kt = aicf_tensor.transpose %k perm = [0, 1, 3, 2] : (tensor<2x3x10x16xf32>) -> tensor<2x3x16x10xf32>
  %q3 = aicf_tensor.reshape %q shape = [6, 10, 16] : (tensor<2x3x10x16xf32>) -> tensor<6x10x16xf32>
  %k3 = aicf_tensor.reshape %kt shape = [6, 16, 10] : (tensor<2x3x16x10xf32>) -> tensor<6x16x10xf32>
  %s3 = aicf_tensor.matmul %q3, %k3 : (tensor<6x10x16xf32>, tensor<6x16x10xf32>) -> tensor<6x10x10xf32>
  %s = aicf_tensor.reshape %s3 shape = [2, 3, 10, 10] : (tensor<6x10x10xf32>) -> tensor<2x3x10x10xf32>
  %c = aicf_tensor.constant dense<4.0> : tensor<f32>
  %s1 = aicf_tensor.div %s, %c : (tensor<2x3x10x10xf32>, tensor<f32>) -> tensor<2x3x10x10xf32>
  %ones = aicf_tensor.constant dense<true> : tensor<10x10xi1>
  %ar = aicf_tensor.iota dim = 0 : tensor<10xi64>
  %row = aicf_tensor.reshape %ar shape = [10, 1] : (tensor<10xi64>) -> tensor<10x1xi64>
  %col = aicf_tensor.reshape %ar shape = [1, 10] : (tensor<10xi64>) -> tensor<1x10xi64>
  %diff = aicf_tensor.sub %col, %row : (tensor<1x10xi64>, tensor<10x1xi64>) -> tensor<10x10xi64>
  %zero = aicf_tensor.constant dense<0> : tensor<i64>
  %le = aicf_tensor.le %diff, %zero : (tensor<10x10xi64>, tensor<i64>) -> tensor<10x10xi1>
  %false = aicf_tensor.constant dense<false> : tensor<i1>
  %keep = aicf_tensor.select %le, %ones, %false : (tensor<10x10xi1>, tensor<10x10xi1>, tensor<i1>) -> tensor<10x10xi1>
  %min = aicf_tensor.constant dense<-3.40282347e+38> : tensor<f32>
  %s2 = aicf_tensor.select %keep, %s1, %min : (tensor<10x10xi1>, tensor<2x3x10x10xf32>, tensor<f32>) -> tensor<2x3x10x10xf32>
  %s3b = aicf_tensor.add %s2, %pad : (tensor<2x3x10x10xf32>, tensor<2x1x1x10xf32>) -> tensor<2x3x10x10xf32>
  %mx = aicf_tensor.reduce_max %s3b axes = [-1] keepdims : (tensor<2x3x10x10xf32>) -> tensor<2x3x10x1xf32>
  %sh = aicf_tensor.sub %s3b, %mx : (tensor<2x3x10x10xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x10xf32>
  %e = aicf_tensor.exp %sh : (tensor<2x3x10x10xf32>) -> tensor<2x3x10x10xf32>
  %sum = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<2x3x10x10xf32>) -> tensor<2x3x10x1xf32>
  %p = aicf_tensor.div %e, %sum : (tensor<2x3x10x10xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x10xf32>
  %p3 = aicf_tensor.reshape %p shape = [6, 10, 10] : (tensor<2x3x10x10xf32>) -> tensor<6x10x10xf32>
  %v3 = aicf_tensor.reshape %v shape = [6, 10, 16] : (tensor<2x3x10x16xf32>) -> tensor<6x10x16xf32>
  %o3 = aicf_tensor.matmul %p3, %v3 : (tensor<6x10x10xf32>, tensor<6x10x16xf32>) -> tensor<6x10x16xf32>
  %o = aicf_tensor.reshape %o3 shape = [2, 3, 10, 16] : (tensor<6x10x16xf32>) -> tensor<2x3x10x16xf32>
  func.return %o : tensor<2x3x10x16xf32>
}

// -----

// no softmax near: the bmm of views stays
// CHECK-LABEL: func.func @plain_bmm
// CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<6x10x16xf32>, tensor<6x16x10xf32>) -> tensor<6x10x10xf32>
func.func @plain_bmm(%q: tensor<2x3x10x16xf32>, %kt: tensor<2x3x16x10xf32>) -> tensor<2x3x10x10xf32> {
  %q3 = aicf_tensor.reshape %q shape = [6, 10, 16] : (tensor<2x3x10x16xf32>) -> tensor<6x10x16xf32>
  %k3 = aicf_tensor.reshape %kt shape = [6, 16, 10] : (tensor<2x3x16x10xf32>) -> tensor<6x16x10xf32>
  %s3 = aicf_tensor.matmul %q3, %k3 : (tensor<6x10x16xf32>, tensor<6x16x10xf32>) -> tensor<6x10x10xf32>
  %s = aicf_tensor.reshape %s3 shape = [2, 3, 10, 10] : (tensor<6x10x10xf32>) -> tensor<2x3x10x10xf32>
  func.return %s : tensor<2x3x10x10xf32>
}
