// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t c --verify-diagnostics

// Shapes whose element count or byte size does not fit in int64 (what the code
// indexes and allocates with) are rejected where they appear, before any emission.

// expected-error @+1 {{tensor<18446744073709551616xf32> has 18446744073709551616 elements, more than int64 can count}}
func.func @extent(%x: tensor<18446744073709551616xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<18446744073709551616xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
