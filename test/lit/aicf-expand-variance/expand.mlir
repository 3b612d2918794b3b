// RUN: aicf-opt %s -p aicf-expand-variance --split-input-file | filecheck %s
// A variance becomes its two passes as tensor ops: the mean (kept), the squared
// deviations summed, divided by n - ddof; f16 accumulates in f32 (casts around it).

// CHECK-LABEL: func.func @f16_keepdims
// CHECK-NEXT:    %[[X:.*]] = aicf_tensor.cast %x : (tensor<4x768xf16>) -> tensor<4x768xf32>
// CHECK-NEXT:    %[[M:.*]] = aicf_tensor.reduce_mean %[[X]] axes = [1] keepdims : (tensor<4x768xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[D:.*]] = aicf_tensor.sub %[[X]], %[[M]] : (tensor<4x768xf32>, tensor<4x1xf32>) -> tensor<4x768xf32>
// CHECK-NEXT:    %[[Q:.*]] = aicf_tensor.mul %[[D]], %[[D]] : (tensor<4x768xf32>, tensor<4x768xf32>) -> tensor<4x768xf32>
// CHECK-NEXT:    %[[S:.*]] = aicf_tensor.reduce_sum %[[Q]] axes = [1] keepdims : (tensor<4x768xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[N:.*]] = aicf_tensor.constant dense<7.680000e+02> : tensor<f32>
// CHECK-NEXT:    %[[V:.*]] = aicf_tensor.div %[[S]], %[[N]] : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.cast %[[V]] : (tensor<4x1xf32>) -> tensor<4x1xf16>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     reduce_var
func.func @f16_keepdims(%x: tensor<4x768xf16>) -> tensor<4x1xf16> {
  %v = aicf_tensor.reduce_var %x axes = [1] keepdims : (tensor<4x768xf16>) -> tensor<4x1xf16>
  func.return %v : tensor<4x1xf16>
}

// -----

// f32, ddof = 1, two axes, no keepdims: no casts; the sum drops the dims, the mean
// keeps them; the divisor is n - ddof = 3 * 5 - 1.
// CHECK-LABEL: func.func @f32_ddof
// CHECK-NOT:     aicf_tensor.cast
// CHECK:         aicf_tensor.reduce_mean %x axes = [0, 2] keepdims : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
// CHECK:         aicf_tensor.reduce_sum %{{.*}} axes = [0, 2] : (tensor<3x4x5xf32>) -> tensor<4xf32>
// CHECK:         aicf_tensor.constant dense<1.400000e+01> : tensor<f32>
// CHECK:         aicf_tensor.div
func.func @f32_ddof(%x: tensor<3x4x5xf32>) -> tensor<4xf32> {
  %v = aicf_tensor.reduce_var %x axes = [0, 2] ddof = 1 : (tensor<3x4x5xf32>) -> tensor<4xf32>
  func.return %v : tensor<4xf32>
}

// -----

// n <= ddof divides by zero, as NumPy (inf or NaN): the divisor is 0.
// CHECK-LABEL: func.func @n_le_ddof
// CHECK:         aicf_tensor.constant dense<0.000000e+00> : tensor<f32>
func.func @n_le_ddof(%x: tensor<2x1xf32>) -> tensor<2xf32> {
  %v = aicf_tensor.reduce_var %x axes = [1] ddof = 1 : (tensor<2x1xf32>) -> tensor<2xf32>
  func.return %v : tensor<2xf32>
}
