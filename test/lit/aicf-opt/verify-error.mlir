// RUN: not aicf-opt %s 2>&1 | filecheck %s
// RUN: not aicf-opt %s -p aicf-infer-shapes 2>&1 | filecheck %s
// An op that fails its verifier is reported at its location, naming the op and the
// shapes, with a non-zero exit code and no traceback.

func.func @f(%x: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // CHECK: verify-error.mlir:[[# @LINE + 1]]:3: error: 'aicf_tensor.add' shapes 4x8, 3 are not broadcast-compatible
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
// CHECK-NOT: Traceback
