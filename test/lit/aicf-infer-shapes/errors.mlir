// RUN: aicf-opt %s -p aicf-infer-shapes --split-input-file --verify-diagnostics | filecheck %s
// Rule violations that show only once operand shapes are inferred (the parser's
// verifier cannot see them): each is an error at the op's file:line:col naming the
// shapes, and the other cases still run.

func.func @broadcast(%x: tensor<4x8xf32>, %y: tensor<4x9xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.add' shapes 8, 4x9 are not broadcast-compatible (dimension -1: 8 vs 9)}}
  %1 = aicf_tensor.add %0, %y : (tensor<*xf32>, tensor<4x9xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.reduce_sum' axis -3 is out of range for rank 2}}
  %1 = aicf_tensor.reduce_sum %0 axes = [-3] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @repeated_axis(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.reduce_max' axis 0 is repeated in axes [0, -2]}}
  %1 = aicf_tensor.reduce_max %0 axes = [0, -2] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<2x16xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.transpose %a perm = [1, 0] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.matmul' matmul contraction sizes differ: 8x4 @ 2x16 (lhs has K=4, rhs has K=2)}}
  %1 = aicf_tensor.matmul %0, %b : (tensor<*xf32>, tensor<2x16xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @matmul_batch(%a: tensor<3x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.neg %a : (tensor<3x4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.matmul' matmul batch dims of 3x4x8 @ 2x8x16: shapes 3, 2 are not broadcast-compatible (dimension -1: 2 vs 3)}}
  %1 = aicf_tensor.matmul %0, %b : (tensor<*xf32>, tensor<2x8x16xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.reshape' cannot reshape 4 (4 elements) to 3x2 (6 elements)}}
  %1 = aicf_tensor.reshape %0 shape = [3, 2] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @reshape_minus_one(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.reshape' cannot reshape 4 (4 elements) to [3, -1]}}
  %1 = aicf_tensor.reshape %0 shape = [3, -1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @reshape_dynamic(%x: tensor<?x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<?x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.reshape' reshape of dynamic shape ?x8 to [-1]: -1 needs a static source}}
  %1 = aicf_tensor.reshape %0 shape = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @perm(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.transpose' perm [2, 0, 1] is not a permutation of the 2 dims of 1x8}}
  %1 = aicf_tensor.transpose %0 perm = [2, 0, 1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

func.func @broadcast_to(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.broadcast_to' cannot broadcast 4 to 4x8}}
  %1 = aicf_tensor.broadcast_to %0 shape = [4, 8] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

// A result type written in the file that contradicts the inferred one.
func.func @declared_shape(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  %0 = aicf_tensor.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.sin' declared result type tensor<4x9xf32> does not match the inferred tensor<4x8xf32> (operands: tensor<4x8xf32>)}}
  %1 = aicf_tensor.sin %0 : (tensor<*xf32>) -> tensor<4x9xf32>
  func.return %1 : tensor<4x9xf32>
}

// -----

func.func @declared_rank(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_mean %x axes = [0] : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.relu' declared result type tensor<1x8xf32> does not match the inferred tensor<8xf32> (operands: tensor<8xf32>)}}
  %1 = aicf_tensor.relu %0 : (tensor<*xf32>) -> tensor<1x8xf32>
  %2 = aicf_tensor.neg %1 : (tensor<1x8xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// -----

func.func @declared_dynamic(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.abs %x : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.cast' declared result type tensor<?x9xf16> does not match the inferred tensor<4x8xf16> (operands: tensor<4x8xf32>)}}
  %1 = aicf_tensor.cast %0 : (tensor<*xf32>) -> tensor<?x9xf16>
  %2 = aicf_tensor.cast %1 : (tensor<?x9xf16>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// -----

// Arguments must be ranked: there is nothing to infer them from.
// expected-error @+1 {{'func.func' argument #1 of @unranked_arg must have a ranked type, got tensor<*xf32>}}
func.func @unranked_arg(%x: tensor<4xf32>, %y: tensor<*xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %y : (tensor<4xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// An error inside a callee is reported at the callee's op, even when the caller
// comes first in the file.
func.func @caller(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = func.call @callee(%x) : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @callee(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'aicf_tensor.matmul' matmul contraction sizes differ: 4x1 @ 4x8 (lhs has K=1, rhs has K=4)}}
  %1 = aicf_tensor.matmul %0, %x : (tensor<*xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// -----

// The last case is valid: earlier errors do not stop the following chunks.
// CHECK-LABEL: func.func @fine
// CHECK-SAME: -> tensor<4xf32>
func.func @fine(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
