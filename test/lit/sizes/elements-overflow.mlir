// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t c --verify-diagnostics

// Shapes whose element count or byte size does not fit in int64 (what the code
// indexes and allocates with) are rejected where they appear, before any emission.

// expected-error @+1 {{tensor<268435456x268435456x4096xf32> has 295147905179352825856 elements, more than int64 can count (at most 9223372036854775807)}}
func.func @elements(%x: tensor<268435456x268435456x4096xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<268435456x268435456x4096xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
