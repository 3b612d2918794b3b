// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of aicf_tensor.fused: one block argument per input, of its type,
// a body ending in aicf_tensor.yield of the result types (printed as MLIR types).

func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.fused' yielded types (tensor<4xf32>, tensor<4xf32>) differ from result types (tensor<4xf32>)}}
  %a = aicf_tensor.fused ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: tensor<4xf32>):
    %0 = aicf_tensor.exp %v : (tensor<4xf32>) -> tensor<4xf32>
    aicf_tensor.yield %0, %0 : tensor<4xf32>, tensor<4xf32>
  }
  func.return %a : tensor<4xf32>
}

// -----

func.func @argument_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.fused' 2 block arguments for 1 inputs}}
  %a = aicf_tensor.fused ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: tensor<4xf32>, %w: tensor<4xf32>):
    %0 = aicf_tensor.exp %v : (tensor<4xf32>) -> tensor<4xf32>
    aicf_tensor.yield %0 : tensor<4xf32>
  }
  func.return %a : tensor<4xf32>
}
