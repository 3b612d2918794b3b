// RUN: aicf-opt %s -p aicf-lower-to-loops | aicf-opt | filecheck %s
// RUN: aicf-opt %s -p aicf-lower-to-loops --print-op-generic | aicf-opt | filecheck %s
// The lowered IR parses again and verifies, in custom and generic form.

// CHECK: "memref.global"() <{sym_name = "f_cst0"
// CHECK-LABEL: func.func @f
// CHECK-SAME: attributes {aicf.num_outputs = 2 : i64}
func.func @f(%x: tensor<4x8xf16>, %b: tensor<8xf32>, %w: tensor<8x3xf32>) -> (tensor<4xf32>, tensor<3x2xf32>) {
  %c = aicf_tensor.constant dense<1.7> : tensor<f32>
  // CHECK-COUNT-10: aicf_loop.nest
  %0 = aicf_tensor.mul %c, %x : (tensor<f32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.gelu %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = aicf_tensor.reduce_mean %2 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %4 = aicf_tensor.matmul %2, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %5 = aicf_tensor.transpose %4 perm = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %6 = aicf_tensor.reshape %5 : (tensor<3x4xf32>) -> tensor<3x2x2xf32>
  %7 = aicf_tensor.reduce_max %6 axes = [2] : (tensor<3x2x2xf32>) -> tensor<3x2xf32>
  %8 = aicf_tensor.broadcast_to %3 shape = [2, 4] : (tensor<4xf32>) -> tensor<2x4xf32>
  %9 = aicf_tensor.reduce_sum %8 axes = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
  // CHECK: func.return
  func.return %9, %7 : tensor<4xf32>, tensor<3x2xf32>
}
