// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-fuse{target=cpu},aicf-lower-to-loops,aicf-plan{target=cpu explain=true kernels="%S/Inputs/softmax_log.kernels.json"}' 2>&1 >/dev/null | filecheck %s
// A registered kernel whose pattern matches the group (softmax of log, its rows) but
// whose guard does not hold (c = 1022 is not a multiple of 4) is listed and dropped,
// with the reason; the compiler's own group runs.

// CHECK-LABEL: @softmax_log group #0 shared=[16], 3 nests on
// CHECK:         -> cpu.group
// CHECK:            cpu.external:softmax_of_log does not apply: guard: 'c' = 1022 is outside its constraints (multiple_of 4)
func.func @softmax_log(%x: tensor<16x1022xf32>) -> tensor<*xf32> {
  %l = aicf_tensor.log %x : (tensor<16x1022xf32>) -> tensor<*xf32>
  %m = aicf_tensor.reduce_max %l axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %l, %m : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
