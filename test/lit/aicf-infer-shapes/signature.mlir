// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Function results take the inferred types of what func.return returns, and call
// sites take their callee's new result types (callees are inferred first, whatever
// their order in the module).

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
func.func @caller(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: %[[R:.*]] = func.call @callee(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %0 = func.call @callee(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.add %[[R]], %{{.*}} : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %2 = aicf_tensor.add %0, %1 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  // CHECK: func.return %{{.*}}, %[[R]] : tensor<4x4xf32>, tensor<4xf32>
  func.return %2, %0 : tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<4xf32>
func.func @callee(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: func.return %{{.*}} : tensor<4xf32>
  func.return %1 : tensor<*xf32>
}

// Arguments returned as they are, a ranked result that is already right, and a
// result written with `?` where the body knows the extent.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>)
func.func @mixed(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<?xf32>) {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = aicf_tensor.reduce_max %x axes = [0] : (tensor<2x3xf32>) -> tensor<?xf32>
  // CHECK: func.return %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>
  func.return %x, %0, %1 : tensor<2x3xf32>, tensor<2xf32>, tensor<?xf32>
}

// Two calls of one callee chained; a declaration with ranked arguments is kept.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: -> tensor<4xf32>
func.func @twice(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: func.call @callee({{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %0 = func.call @callee(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // CHECK: func.call @external({{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = func.call @external(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: func.call @callee({{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %2 = func.call @callee(%1, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.mul {{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = aicf_tensor.mul %0, %2 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %3 : tensor<*xf32>
}

// CHECK-LABEL: func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>
func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>
