// sin(a * x + b) with NumPy broadcasting: a scales columns, b shifts rows.
func.func @broadcast_sin(%x: tensor<64x128xf32>, %a: tensor<128xf32>, %b: tensor<64x1xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.mul %a, %x : (tensor<128xf32>, tensor<64x128xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<*xf32>, tensor<64x1xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.sin %1 : (tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
