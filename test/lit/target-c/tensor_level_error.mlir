// RUN: aicf-opt %s -t c --verify-diagnostics

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.sin' is a tensor-level op: the cpu target needs the loop level; run aicf-infer-shapes,aicf-lower-to-loops first}}
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
