// RUN: aicf-opt %s -p aicf-fuse | filecheck %s
// RUN: aicf-opt %s -p aicf-fuse | aicf-opt

// Dead ops are removed before grouping: a group that nobody reads is never built, so
// its members must not stay behind reading a value that another group does not export
// (%v3 here, merged with %v6's group through their shared input %v1).

// CHECK-LABEL: func.func @dead_reader
// CHECK-NEXT:    %{{.*}} = aicf_tensor.fused ins() -> tensor<f32> {
// CHECK-NOT:       aicf_tensor.div
// CHECK:           aicf_tensor.abs
// CHECK:         func.return
func.func @dead_reader(%in0: tensor<1xf32>) -> (tensor<f32>) {
  %v0 = aicf_tensor.constant dense<0.5> : tensor<f32>
  %v1 = aicf_tensor.mul %v0, %v0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v2 = aicf_tensor.constant dense<1.0> : tensor<f32>
  %v3 = aicf_tensor.add %v1, %v2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v4 = aicf_tensor.div %in0, %v3 : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
  %v5 = aicf_tensor.add %in0, %v4 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %v6 = aicf_tensor.abs %v1 : (tensor<f32>) -> tensor<f32>
  func.return %v6 : tensor<f32>
}
