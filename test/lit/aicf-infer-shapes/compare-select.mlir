// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Comparisons give i1 with NumPy broadcasting; select broadcasts all three operands
// and gives its branches' promoted type; reduce_var follows the reduction rules.

// CHECK-LABEL: func.func @compare_broadcast
func.func @compare_broadcast(%x: tensor<4x8xf32>, %b: tensor<8xf16>) -> tensor<*xi1> {
  // CHECK: aicf_tensor.gt %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf16>) -> tensor<4x8xi1>
  %0 = aicf_tensor.gt %x, %b : (tensor<4x8xf32>, tensor<8xf16>) -> tensor<*xi1>
  func.return %0 : tensor<*xi1>
}

// CHECK-LABEL: func.func @select_broadcast
func.func @select_broadcast(%c: tensor<4x1xi1>, %x: tensor<8xf16>, %y: tensor<f32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xi1>, tensor<8xf16>, tensor<f32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.select %c, %x, %y : (tensor<4x1xi1>, tensor<8xf16>, tensor<f32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @var_keepdims
func.func @var_keepdims(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.reduce_var %{{.*}} axes = [-1] ddof = 1 keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %0 = aicf_tensor.reduce_var %x axes = [-1] ddof = 1 keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @int_compare
func.func @int_compare(%i: tensor<4xi64>, %j: tensor<4xi32>) -> tensor<*xi1> {
  // CHECK: aicf_tensor.le %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi1>
  %0 = aicf_tensor.le %i, %j : (tensor<4xi64>, tensor<4xi32>) -> tensor<*xi1>
  func.return %0 : tensor<*xi1>
}
