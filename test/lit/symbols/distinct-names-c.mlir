// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu}' -t c | filecheck %s

// Names that sanitise to the same C identifier still get distinct symbols: a name
// that had to change carries a hash of the original.
// CHECK-DAG: int aicf_a_b(void
// CHECK-DAG: int aicf_a_b_[[H1:[0-9a-f]{8}]](void
// CHECK-DAG: int aicf_a_b_[[H2:[0-9a-f]{8}]](void
func.func @"a.b"(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @"a-b"(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.cos %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @a_b(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
