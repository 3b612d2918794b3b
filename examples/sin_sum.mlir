// sum(sin(1.7 * x + 0.3), axis=-1) on a 4096x4096 f32 input (the README example).
//   aicf-run examples/sin_sum.mlir --target cpu
func.func @sin_sum(%x: tensor<4096x4096xf32>) -> tensor<*xf32> {
  %a = aicf_tensor.constant dense<1.7> : tensor<f32>
  %b = aicf_tensor.constant dense<0.3> : tensor<f32>
  %0 = aicf_tensor.mul %x, %a : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<*xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %2 = aicf_tensor.sin %1 : (tensor<*xf32>) -> tensor<*xf32>
  %3 = aicf_tensor.reduce_sum %2 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %3 : tensor<*xf32>
}
