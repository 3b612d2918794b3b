// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu}' -t c --verify-diagnostics

// A name chosen equal to another's sanitised form: a located error, not a C
// compiler's "redefinition".
// expected-error @+5 {{'func.func' @a_b_2e7336dc and @a.b both become `aicf_a_b_2e7336dc` in the generated code; rename one of them}}
func.func @"a.b"(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @a_b_2e7336dc(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.cos %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
