// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// An iota is computed from nothing, like a splat constant: it is cloned into the group
// that reads it (no group input, no buffer of its own).
// CHECK-LABEL: func.func @scaled_index
func.func @scaled_index(%x: tensor<3x5000xf32>) -> tensor<3x5000xf32> {
  // CHECK:      aicf_tensor.fused ins(%x : tensor<3x5000xf32>) -> tensor<3x5000xf32> {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<3x5000xf32>):
  // CHECK-NEXT:   %[[I:.*]] = aicf_tensor.iota dim = 1 : tensor<3x5000xf32>
  // CHECK-NEXT:   aicf_tensor.mul %[[I]], %[[X]]
  // CHECK:        aicf_tensor.add
  // CHECK-NOT:  aicf_tensor.iota
  %i = aicf_tensor.iota dim = 1 : tensor<3x5000xf32>
  %m = aicf_tensor.mul %i, %x : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
  %c = aicf_tensor.constant dense<1.0> : tensor<3x5000xf32>
  %a = aicf_tensor.add %m, %c : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
  func.return %a : tensor<3x5000xf32>
}
