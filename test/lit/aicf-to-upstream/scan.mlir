// RUN: aicf-opt %s -p aicf-lower-to-loops,aicf-to-upstream --verify-diagnostics
// A scan lowers to a guarded nest (each element folds the ones up to it), which
// aicf-to-upstream refuses at the scan; the message named only a split's partial.

func.func @cumsum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'aicf_loop.nest' aicf-to-upstream does not lower a guarded nest (a split's partial or a scan); emit it with -t c or -t cuda}}
  %0 = aicf_tensor.cumsum %x axis = -1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
