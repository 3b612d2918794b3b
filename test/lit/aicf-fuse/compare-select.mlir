// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// A masked softmax numerator: comparison, select and the elementwise ops around
// them are elementwise, so they fuse into one group; reduce_var is not a group
// member (two passes over its input) and stays outside.
// CHECK-LABEL: func.func @masked
// CHECK-NEXT:    %{{.*}} = aicf_tensor.fused ins(%i, %j, %s : tensor<8x1xi32>, tensor<8xi32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
// CHECK:           aicf_tensor.ge
// CHECK:           aicf_tensor.select
// CHECK:           aicf_tensor.exp
// CHECK:           aicf_tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = aicf_tensor.reduce_var
// CHECK-NOT:     aicf_tensor.fused
func.func @masked(%s: tensor<8x8xf32>, %i: tensor<8x1xi32>, %j: tensor<8xi32>) -> (tensor<8x8xf32>, tensor<8xf32>) {
  %m = aicf_tensor.ge %i, %j : (tensor<8x1xi32>, tensor<8xi32>) -> tensor<8x8xi1>
  %n = aicf_tensor.constant dense<-1.0e10> : tensor<f32>
  %x = aicf_tensor.select %m, %s, %n : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
  %e = aicf_tensor.exp %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v = aicf_tensor.reduce_var %s axes = [1] : (tensor<8x8xf32>) -> tensor<8xf32>
  func.return %e, %v : tensor<8x8xf32>, tensor<8xf32>
}
