// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Inside an aicf_tensor.fused group the block arguments take the inputs' inferred
// types, the body is inferred, and the group's results take the yielded types.

// CHECK-LABEL: func.func @fused
// CHECK-SAME: -> tensor<4xf32>
func.func @fused(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: %[[E:.*]] = aicf_tensor.exp %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.fused ins(%[[E]], %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^{{.*}}(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>):
  // CHECK-NEXT: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: aicf_tensor.reduce_sum %{{.*}} axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK-NEXT: aicf_tensor.yield %{{.*}} : tensor<4xf32>
  %y = aicf_tensor.fused ins(%e, %b : tensor<*xf32>, tensor<8xf32>) -> tensor<*xf32> {
  ^bb0(%a: tensor<*xf32>, %c: tensor<8xf32>):
    %0 = aicf_tensor.add %a, %c : (tensor<*xf32>, tensor<8xf32>) -> tensor<*xf32>
    %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
    aicf_tensor.yield %1 : tensor<*xf32>
  }
  // CHECK: func.return %{{.*}} : tensor<4xf32>
  func.return %y : tensor<*xf32>
}
