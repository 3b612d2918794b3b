// RUN: not aicf-opt %s 2>&1 | filecheck %s
// A syntax error is reported MLIR-style at its line and column, with the source
// line, and no Python traceback.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: syntax-error.mlir:[[# @LINE + 3]]:44: error: Expected ')'
  // CHECK-NEXT: %0 = aicf_tensor.exp %x : (tensor<4xf32> -> tensor<4xf32>
  // CHECK-NEXT: {{^ +}}^
  %0 = aicf_tensor.exp %x : (tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK-NOT: Traceback
