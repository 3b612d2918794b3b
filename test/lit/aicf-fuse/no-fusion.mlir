// RUN: aicf-opt %s -p aicf-fuse --split-input-file | filecheck %s

// Matmul is its own kernel: nothing fuses into or out of it.
// CHECK-LABEL: func.func @matmul_stays_alone
// CHECK-NOT:     aicf_tensor.fused
// CHECK:         aicf_tensor.exp
// CHECK-NEXT:    aicf_tensor.matmul
// CHECK-NEXT:    aicf_tensor.relu
func.func @matmul_stays_alone(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = aicf_tensor.exp %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = aicf_tensor.matmul %a, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = aicf_tensor.relu %m : (tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

// exp and the add would form a group that both feeds the matmul and reads its
// result: a cycle. (Recomputing exp in the add's group saves nothing: it reads x
// instead of %e.)
// CHECK-LABEL: func.func @cycle_through_matmul
// CHECK-NOT:     aicf_tensor.fused
func.func @cycle_through_matmul(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = aicf_tensor.exp %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = aicf_tensor.matmul %e, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = aicf_tensor.add %m, %e : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %s : tensor<8x8xf32>
}

// -----

// Reductions over different axes of one input: no shared row dims, two kernels.
// CHECK-LABEL: func.func @different_axes
// CHECK-NOT:     aicf_tensor.fused
func.func @different_axes(%x: tensor<16x32xf32>) -> (tensor<32xf32>, tensor<16xf32>) {
  %a = aicf_tensor.reduce_sum %x axes = [0] : (tensor<16x32xf32>) -> tensor<32xf32>
  %b = aicf_tensor.reduce_max %x axes = [1] : (tensor<16x32xf32>) -> tensor<16xf32>
  func.return %a, %b : tensor<32xf32>, tensor<16xf32>
}

// -----

// A reduction of a reduction: the second one folds a different domain.
// CHECK-LABEL: func.func @reduction_of_reduction
// CHECK-NOT:     aicf_tensor.fused
func.func @reduction_of_reduction(%x: tensor<16x32xf32>) -> tensor<f32> {
  %a = aicf_tensor.reduce_sum %x axes = [1] : (tensor<16x32xf32>) -> tensor<16xf32>
  %b = aicf_tensor.reduce_max %a axes = [0] : (tensor<16xf32>) -> tensor<f32>
  func.return %b : tensor<f32>
}

// -----

// Row sums of shape [4] added to a 4x4 tensor broadcast along the columns (NumPy
// aligns trailing dims): a row's result needs every row's sum, so no row group.
// CHECK-LABEL: func.func @reduced_value_read_transposed
// CHECK-NOT:     aicf_tensor.fused
func.func @reduced_value_read_transposed(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
  %y = aicf_tensor.add %x, %s : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// One op is not a group.
// CHECK-LABEL: func.func @single_op
// CHECK-NOT:     aicf_tensor.fused
func.func @single_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = aicf_tensor.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %a : tensor<8xf32>
}

// -----

// Layout ops are not fused; neither are ops on dynamic shapes.
// CHECK-LABEL: func.func @layout_and_dynamic
// CHECK-NOT:     aicf_tensor.fused
func.func @layout_and_dynamic(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>) -> (tensor<8x4xf32>, tensor<?x8xf32>) {
  %a = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = aicf_tensor.transpose %a perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %b = aicf_tensor.neg %t : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %c = aicf_tensor.exp %d : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %e = aicf_tensor.neg %c : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %b, %e : tensor<8x4xf32>, tensor<?x8xf32>
}

// -----

// A dense (not splat) constant is not cloned into the group: it stays an input.
// CHECK-LABEL: func.func @dense_constant_is_an_input
// CHECK:         %[[C:.*]] = aicf_tensor.constant dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT:    aicf_tensor.fused ins(%x, %[[C]] : tensor<2xf32>, tensor<2xf32>)
func.func @dense_constant_is_an_input(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = aicf_tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = aicf_tensor.mul %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = aicf_tensor.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %b : tensor<2xf32>
}
