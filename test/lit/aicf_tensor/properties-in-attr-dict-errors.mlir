// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A property given twice, in the op's syntax (or `<{...}>`) and as a discardable
// attribute of the same name: the op reads only the property, so the attribute was
// dropped without a word.

func.func @generic_both(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_sum' has 'axes' both as a property and as a discardable attribute, which the op does not read: give it once}}
  %y = "aicf_tensor.reduce_sum"(%x) <{axes = array<i64: 0>}> {axes = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

func.func @custom_both(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_var' has 'ddof' both as a property and as a discardable attribute}}
  %y = aicf_tensor.reduce_var %x axes = [1] ddof = 1 {ddof = 0 : i64} : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
