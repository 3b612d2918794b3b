// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// An op the dialect does not have (custom or generic form, or of an unknown
// dialect) is an error at the op's name; each case is reported and the next one runs.

func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Operation aicf_tensor.frobnicate is not registered}}
  %0 = aicf_tensor.frobnicate %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Operation aicf_tensor.frobnicate is not registered}}
  %0 = "aicf_tensor.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @other_dialect(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Operation mystery.op is not registered}}
  %0 = "mystery.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
