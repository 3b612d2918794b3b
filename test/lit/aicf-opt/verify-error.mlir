// RUN: aicf-opt %s --verify-diagnostics
// RUN: aicf-opt %s -p aicf-infer-shapes --verify-diagnostics
// An op that fails its verifier is reported at its location, naming the op and the
// shapes, whether or not a pass runs (the verifier runs on the parsed input first).

func.func @f(%x: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.add' shapes 4x8, 3 are not broadcast-compatible}}
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
