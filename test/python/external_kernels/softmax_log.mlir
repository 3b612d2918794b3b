// softmax(log(x)) over the last axis: a row group (log, max, exp, sum, divide).
func.func @softmax_log(%x: tensor<?x?xf32>) -> tensor<*xf32> {
  %l = aicf_tensor.log %x : (tensor<?x?xf32>) -> tensor<*xf32>
  %m = aicf_tensor.reduce_max %l axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %l, %m : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
