// RUN: not aicf-opt %s 2>&1 | filecheck %s
// RUN: aicf-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s --check-prefix=DIAG
// An op the dialect does not have (custom or generic form) is an error at the op's
// name; with --verify-diagnostics each case is reported and the next one runs.

func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: unknown-op.mlir:[[# @LINE + 2]]:8: error: Operation aicf_tensor.frobnicate is not registered
  // DIAG: unknown-op.mlir:[[# @LINE + 1]]:8
  %0 = aicf_tensor.frobnicate %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK-NOT: Traceback
// DIAG: Operation aicf_tensor.frobnicate is not registered

// -----

func.func @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  // DIAG: unknown-op.mlir:[[# @LINE + 1]]:8
  %0 = "aicf_tensor.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// DIAG: Operation aicf_tensor.frobnicate is not registered

// -----

func.func @other_dialect(%x: tensor<4xf32>) -> tensor<4xf32> {
  // DIAG: unknown-op.mlir:[[# @LINE + 1]]:8
  %0 = "mystery.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// DIAG: Operation mystery.op is not registered
