// RUN: aicf-opt %s -p 'aicf-fuse{max_ops=2}' | filecheck %s --check-prefix=OPS
// RUN: aicf-opt %s -p 'aicf-fuse{max_inputs=2}' | filecheck %s --check-prefix=INS
// RUN: aicf-opt %s -p aicf-fuse | filecheck %s --check-prefix=ALL

// Past the budget a chain is cut into several groups.
// OPS-LABEL: func.func @chain
// OPS-COUNT-2: aicf_tensor.fused
// OPS-NOT:     aicf_tensor.fused
// ALL-LABEL: func.func @chain
// ALL-COUNT-1: aicf_tensor.fused
// ALL-NOT:     aicf_tensor.fused
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = aicf_tensor.sin %x : (tensor<64xf32>) -> tensor<64xf32>
  %1 = aicf_tensor.cos %0 : (tensor<64xf32>) -> tensor<64xf32>
  %2 = aicf_tensor.tanh %1 : (tensor<64xf32>) -> tensor<64xf32>
  %3 = aicf_tensor.exp %2 : (tensor<64xf32>) -> tensor<64xf32>
  func.return %3 : tensor<64xf32>
}

// Three inputs do not fit in a group of at most two.
// OPS-LABEL: func.func @three_inputs
// INS-LABEL: func.func @three_inputs
// INS:         aicf_tensor.fused ins(%a, %b : tensor<64xf32>, tensor<64xf32>)
// INS-NOT:     aicf_tensor.fused
// INS:         aicf_tensor.mul %{{.*}}, %c
// ALL-LABEL: func.func @three_inputs
// ALL:         aicf_tensor.fused ins(%a, %b, %c : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
func.func @three_inputs(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %0 = aicf_tensor.add %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = aicf_tensor.sin %0 : (tensor<64xf32>) -> tensor<64xf32>
  %2 = aicf_tensor.mul %1, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %2 : tensor<64xf32>
}
