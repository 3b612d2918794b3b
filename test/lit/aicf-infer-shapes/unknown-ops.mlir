// RUN: aicf-opt %s --allow-unregistered-dialect -p aicf-infer-shapes | filecheck %s
// Ops of other dialects are left alone, even with tensor results; what depends on an
// unranked value they produce stays unranked, and the rest is still inferred.

// CHECK-LABEL: func.func @unknown
// CHECK-SAME: -> (tensor<*xf32>, tensor<4xf32>)
func.func @unknown(%x: tensor<4x8xf32>) -> (tensor<*xf32>, tensor<4xf32>) {
  // CHECK: %[[U:.*]] = "test.opaque"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<*xf32>
  %0 = "test.opaque"(%x) : (tensor<4x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.exp %[[U]] : (tensor<*xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.exp %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<*xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.add %1, %x : (tensor<*xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  // A ranked type written on a result whose operand is unknown is kept.
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [1] : (tensor<*xf32>) -> tensor<4xf32>
  %3 = aicf_tensor.reduce_sum %2 axes = [1] : (tensor<*xf32>) -> tensor<4xf32>
  // CHECK: "test.opaque"(%{{.*}}) : (tensor<4xf32>) -> tensor<*xf32>
  %4 = "test.opaque"(%3) : (tensor<4xf32>) -> tensor<*xf32>
  func.return %4, %3 : tensor<*xf32>, tensor<4xf32>
}
