// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file --verify-diagnostics

// A hand-written group that cannot run as one: reductions over different axes.
func.func @different_axes(%x: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'aicf_tensor.fused' cannot be lowered as one group: reductions over different axes ([0] and [1])}}
  %a, %b = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  ^bb0(%v: tensor<4x8xf32>):
    %0 = aicf_tensor.reduce_sum %v axes = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
    %1 = aicf_tensor.reduce_sum %v axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    aicf_tensor.yield %0, %1 : tensor<8xf32>, tensor<4xf32>
  }
  func.return %a, %b : tensor<8xf32>, tensor<4xf32>
}

// -----

// An op that is never fused.
func.func @matmul_inside(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'aicf_tensor.fused' cannot be lowered as one group: 'aicf_tensor.matmul' cannot be fused}}
  %a = aicf_tensor.fused ins(%x : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%v: tensor<4x4xf32>):
    %0 = aicf_tensor.matmul %v, %v : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = aicf_tensor.exp %0 : (tensor<4x4xf32>) -> tensor<4x4xf32>
    aicf_tensor.yield %1 : tensor<4x4xf32>
  }
  func.return %a : tensor<4x4xf32>
}

// -----

// A [4]-shaped value of a [4, 8] elementwise group cannot be an output: the one nest
// over [4, 8] would write each of its elements 8 times.
func.func @output_smaller_than_domain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{'aicf_tensor.fused' cannot be lowered as one group: output of shape 8 is computed from group inputs only and is not on the domain 4x8}}
  %a, %c = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  ^bb0(%v: tensor<4x8xf32>, %w: tensor<8xf32>):
    %0 = aicf_tensor.neg %w : (tensor<8xf32>) -> tensor<8xf32>
    %1 = aicf_tensor.add %v, %0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    aicf_tensor.yield %0, %1 : tensor<8xf32>, tensor<4x8xf32>
  }
  func.return %a, %c : tensor<8xf32>, tensor<4x8xf32>
}
