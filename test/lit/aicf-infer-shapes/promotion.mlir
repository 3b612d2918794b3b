// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Mixed element types promote (shape_rules.promote_dtypes, documented in README.md):
// equal types stay; a float beats an integer; the wider float wins; f16 with bf16
// gives f32.

// CHECK-LABEL: func.func @promote
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf64>, tensor<4xi32>)
func.func @promote(%h: tensor<4xf16>, %b: tensor<4xbf16>, %f: tensor<4xf32>, %d: tensor<f64>, %i: tensor<4xi32>)
    -> (tensor<*xf32>, tensor<*xf16>, tensor<*xf32>, tensor<*xf64>, tensor<*xi32>) {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  %0 = aicf_tensor.add %h, %f : (tensor<4xf16>, tensor<4xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  %1 = aicf_tensor.mul %i, %h : (tensor<4xi32>, tensor<4xf16>) -> tensor<*xf16>
  // CHECK: aicf_tensor.sub %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  %2 = aicf_tensor.sub %h, %b : (tensor<4xf16>, tensor<4xbf16>) -> tensor<*xf32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f64>) -> tensor<4xf64>
  %3 = aicf_tensor.pow %0, %d : (tensor<*xf32>, tensor<f64>) -> tensor<*xf64>
  // CHECK: aicf_tensor.max %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = aicf_tensor.max %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<*xi32>
  func.return %0, %1, %2, %3, %4 : tensor<*xf32>, tensor<*xf16>, tensor<*xf32>, tensor<*xf64>, tensor<*xi32>
}

// matmul promotes its operands the same way.
// CHECK-LABEL: func.func @matmul_mixed
// CHECK-SAME: -> tensor<2x3xf32>
func.func @matmul_mixed(%a: tensor<2x4xbf16>, %b: tensor<4x3xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<2x4xbf16>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %0 = aicf_tensor.matmul %a, %b : (tensor<2x4xbf16>, tensor<4x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
