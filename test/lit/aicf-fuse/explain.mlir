// RUN: aicf-opt %s -p 'aicf-fuse{explain=true}' | filecheck %s
// RUN: aicf-opt %s -p 'aicf-fuse{explain}' | filecheck %s

// With `explain`, a group says what the cost model saw: one kernel that reads x and
// writes y once, against two kernels and a 256-byte temporary written and read back.
// CHECK-LABEL: func.func @two_ops
// CHECK: aicf_tensor.fused ins(%x : tensor<64xf32>) -> tensor<64xf32> attributes {aicf.fusion = "fused: 1 kernel(s), 256 B read, 256 B written, {{[0-9]+}} flop; unfused: 2 kernel(s), 512 B read, 512 B written, {{[0-9]+}} flop"}
func.func @two_ops(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = aicf_tensor.sin %x : (tensor<64xf32>) -> tensor<64xf32>
  %1 = aicf_tensor.tanh %0 : (tensor<64xf32>) -> tensor<64xf32>
  func.return %1 : tensor<64xf32>
}
