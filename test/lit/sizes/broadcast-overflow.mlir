// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t c --verify-diagnostics

// Shapes whose element count or byte size does not fit in int64 (what the code
// indexes and allocates with) are rejected where they appear, before any emission.

// A 2^62-element intermediate from broadcasting: 2^64 bytes of f32.
// expected-error @+2 {{tensor<2147483648x2147483648xf32> is 18446744073709551616 bytes, more than can be allocated (at most 9223372036854775807)}}
func.func @broadcast(%x: tensor<2147483648x1xf32>, %y: tensor<1x2147483648xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %y : (tensor<2147483648x1xf32>, tensor<1x2147483648xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
