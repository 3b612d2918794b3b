// A chain: a linear layer with bias, tanh, a row softmax-like normalisation and a
// mean over the last axis.
func.func @chain(%x: tensor<32x64xf32>, %w: tensor<64x48xf32>, %bias: tensor<48xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.matmul %x, %w : (tensor<32x64xf32>, tensor<64x48xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.add %0, %bias : (tensor<*xf32>, tensor<48xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.tanh %1 : (tensor<*xf32>) -> tensor<*xf32>
  %m = aicf_tensor.reduce_max %2 axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %3 = aicf_tensor.sub %2, %m : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %4 = aicf_tensor.exp %3 : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %4 axes = [1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %5 = aicf_tensor.div %4, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %6 = aicf_tensor.reduce_mean %5 axes = [0] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %5, %6 : tensor<*xf32>, tensor<*xf32>
}
