// RUN: aicf-opt %s --verify-diagnostics
// A use of a value that is never defined is reported at the use.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undefined value %y}}
  %0 = aicf_tensor.exp %y : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
