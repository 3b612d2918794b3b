// RUN: not aicf-opt %s 2>&1 | filecheck %s
// A use of a value that is never defined is reported at the use.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: undefined-value.mlir:[[# @LINE + 1]]:24: error: use of undefined value %y
  %0 = aicf_tensor.exp %y : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK-NOT: Traceback
