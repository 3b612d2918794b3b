// RUN: aicf-opt %s --verify-diagnostics
// A syntax error is reported at its line (and column: test_cli.py checks the column,
// the source line and the caret aicf-opt prints without --verify-diagnostics).

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Expected ')'}}
  %0 = aicf_tensor.exp %x : (tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
