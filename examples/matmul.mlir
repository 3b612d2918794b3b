// A 2-D matmul and a batched one whose batch dim broadcasts.
func.func @matmul(%a: tensor<96x64xf32>, %b: tensor<64x80xf32>, %c: tensor<3x96x64xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.matmul %a, %b : (tensor<96x64xf32>, tensor<64x80xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.matmul %c, %b : (tensor<3x96x64xf32>, tensor<64x80xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
