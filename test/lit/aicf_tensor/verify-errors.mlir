// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of aicf_tensor; each error names the op, its location
// and the shapes or types at fault.

func.func @broadcast(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.add' shapes 4x8, 4 are not broadcast-compatible (dimension -1: 4 vs 8)}}
  %0 = aicf_tensor.add %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @declared_shape(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'aicf_tensor.mul' declared result shape 4x9 does not match the inferred shape 4x8}}
  %0 = aicf_tensor.mul %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x9xf32>
  func.return %0 : tensor<4x9xf32>
}

// -----

func.func @declared_rank(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'aicf_tensor.exp' declared result shape 32 does not match the inferred shape 4x8}}
  %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<32xf32>
  func.return %0 : tensor<32xf32>
}

// -----

func.func @axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_sum' axis 2 is out of range for rank 2}}
  %0 = aicf_tensor.reduce_sum %x axes = [2] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @negative_axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_max' axis -3 is out of range for rank 2}}
  %0 = aicf_tensor.reduce_max %x axes = [-3] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @repeated_axis(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_mean' axis 1 is repeated in axes [1, -1]}}
  %0 = aicf_tensor.reduce_mean %x axes = [1, -1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reduce_keepdims_shape(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_sum' declared result shape 4 does not match the inferred shape 4x1}}
  %0 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @axes_type(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_sum' axes must be array<i64: ...>}}
  %0 = "aicf_tensor.reduce_sum"(%x) <{axes = array<i32: 0>}> : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @perm_not_permutation(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.transpose' perm [0, 0] is not a permutation of the 2 dims of 4x8}}
  %0 = aicf_tensor.transpose %x perm = [0, 0] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @perm_wrong_length(%x: tensor<2x4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.transpose' perm [1, 0] is not a permutation of the 3 dims of 2x4x8}}
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<2x4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<6x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.matmul' matmul contraction sizes differ: 4x8 @ 6x16 (lhs has K=8, rhs has K=6)}}
  %0 = aicf_tensor.matmul %a, %b : (tensor<4x8xf32>, tensor<6x16xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @matmul_vector_k(%a: tensor<4x8xf32>, %v: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.matmul' matmul contraction sizes differ: 4x8 @ 4 (lhs has K=8, rhs has K=4)}}
  %0 = aicf_tensor.matmul %a, %v : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.matmul' matmul batch dims of 2x4x8 @ 3x8x16: shapes 2, 3 are not broadcast-compatible (dimension -1: 2 vs 3)}}
  %0 = aicf_tensor.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.matmul' matmul operands must have rank >= 1, got a scalar}}
  %0 = aicf_tensor.matmul %a, %b : (tensor<f32>, tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reshape' cannot reshape 4x8 (32 elements) to 5x6 (30 elements)}}
  %0 = aicf_tensor.reshape %x shape = [5, 6] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reshape_result_type_count(%x: tensor<4x8xf32>) -> tensor<33xf32> {
  // expected-error @+1 {{'aicf_tensor.reshape' cannot reshape 4x8 (32 elements) to 33 (33 elements)}}
  %0 = aicf_tensor.reshape %x : (tensor<4x8xf32>) -> tensor<33xf32>
  func.return %0 : tensor<33xf32>
}

// -----

func.func @reshape_two_minus_ones(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reshape' reshape to [-1, -1]: at most one extent may be -1}}
  %0 = aicf_tensor.reshape %x shape = [-1, -1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reshape_indivisible(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reshape' cannot reshape 4x8 (32 elements) to [3, -1]}}
  %0 = aicf_tensor.reshape %x shape = [3, -1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reshape_no_target(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reshape' needs a `shape` property or a ranked result type}}
  %0 = aicf_tensor.reshape %x : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.broadcast_to' cannot broadcast 3 to 4x8}}
  %0 = aicf_tensor.broadcast_to %x shape = [4, 8] : (tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.broadcast_to' cannot broadcast 2x8 to 8: target has lower rank}}
  %0 = aicf_tensor.broadcast_to %x shape = [8] : (tensor<2x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @unsupported_element_type(%x: tensor<4xi8>) -> tensor<*xi8> {
  // expected-error @+1 {{'aicf_tensor.neg' unsupported element type i8 (expected one of f16, bf16, f32, f64, i32, i64, i1)}}
  %0 = aicf_tensor.neg %x : (tensor<4xi8>) -> tensor<*xi8>
  func.return %0 : tensor<*xi8>
}

// -----

// A signed or unsigned integer is not aicf's (signless) i32: ui32 was read as i32,
// and its max failed in lowering ('arith.trunci' Destination bit-width must be smaller).
func.func @unsigned_element_type(%x: tensor<4xui32>, %y: tensor<4xui32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.max' unsupported element type ui32: aicf's integers are signless (i32, not si32 or ui32)}}
  %0 = aicf_tensor.max %x, %y : (tensor<4xui32>, tensor<4xui32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @signed_element_type(%x: tensor<4xsi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.add' unsupported element type si32: aicf's integers are signless (i32, not si32 or ui32)}}
  %0 = aicf_tensor.add %x, %x : (tensor<4xsi32>, tensor<4xsi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @result_element_type(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.sin' result element type f32 does not match the inferred f16}}
  %0 = aicf_tensor.sin %x : (tensor<4xf16>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @promotion(%x: tensor<4xf16>, %y: tensor<4xf32>) -> tensor<*xf16> {
  // expected-error @+1 {{'aicf_tensor.add' result element type f16 does not match the inferred f32}}
  %0 = aicf_tensor.add %x, %y : (tensor<4xf16>, tensor<4xf32>) -> tensor<*xf16>
  func.return %0 : tensor<*xf16>
}

// -----

func.func @float_only_unary(%x: tensor<4xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.exp' operand must be a float tensor, got tensor<4xi32>}}
  %0 = aicf_tensor.exp %x : (tensor<4xi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @mean_of_int(%x: tensor<4xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.reduce_mean' operand must be a float tensor}}
  %0 = aicf_tensor.reduce_mean %x axes = [0] : (tensor<4xi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) -> tensor<5xf16> {
  // expected-error @+1 {{'aicf_tensor.cast' declared result shape 5 does not match the inferred shape 4}}
  %0 = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<5xf16>
  func.return %0 : tensor<5xf16>
}

// -----

func.func @constant_type() -> tensor<5xf32> {
  // expected-error @+1 {{'aicf_tensor.constant' declared result shape 5 does not match the inferred shape 4}}
  %0 = "aicf_tensor.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

// The last case is valid: the errors above do not stop the following chunks.
// CHECK-LABEL: func.func @fine
func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @max_over_empty_axis(%x: tensor<0x5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_max' reduction over a zero-size axis of 0x5 has no identity (NumPy raises here too)}}
  %0 = aicf_tensor.reduce_max %x axes = [0] : (tensor<0x5xf32>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

// a sum of bools used to lower to an add over i1 (an "or"): np.sum(x > 0) gave True
func.func @sum_of_bools(%x: tensor<4xi1>) -> tensor<*xi1> {
  // expected-error @+1 {{'aicf_tensor.reduce_sum' a sum of i1 (bool) values is not defined; cast them to an integer type first (NumPy counts them as int64)}}
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<4xi1>) -> tensor<*xi1>
  func.return %0 : tensor<*xi1>
}

// -----

// NumPy and torch refuse it; in one bit it was the identity, so -max(-x) gave max(x)
func.func @neg_of_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'aicf_tensor.neg' negation of i1 (bool) is not defined (NumPy and torch raise too); use a comparison with false}}
  %0 = aicf_tensor.neg %x : (tensor<4xi1>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

// max(x, 0), refused on i1 as max is: it lowered to arith.maxsi, which reads true as
// -1, so every output was false (and folding gave x)
func.func @relu_of_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'aicf_tensor.relu' arithmetic on i1 (bool) tensors is not defined; cast them to an integer or float type first}}
  %0 = aicf_tensor.relu %x : (tensor<4xi1>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

func.func @log1p_of_ints(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'aicf_tensor.log1p' operand must be a float tensor, got tensor<4xi32>}}
  %0 = aicf_tensor.log1p %x : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

func.func @atan2_of_ints(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'aicf_tensor.atan2' operands must promote to a float type, got tensor<4xi32> and tensor<4xi32>}}
  %0 = aicf_tensor.atan2 %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

func.func @min_over_empty_axis(%x: tensor<3x0xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'aicf_tensor.reduce_min' reduction over a zero-size axis of 3x0 has no identity (NumPy raises here too)}}
  %0 = aicf_tensor.reduce_min %x axes = [-1] : (tensor<3x0xi32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @scan_axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.cumsum' axis 2 is out of range for rank 2}}
  %0 = aicf_tensor.cumsum %x axis = 2 : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @scan_of_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'aicf_tensor.cumprod' a scan of i1 (bool) values is not defined; cast them to an integer type first (NumPy takes them as int64)}}
  %0 = aicf_tensor.cumprod %x axis = 0 : (tensor<4xi1>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

// An integer property of another type than i64 is refused: `axis = true` (an i1,
// whose value xDSL holds as -1) was taken as the last axis, and printed back as
// `axis = -1`.
func.func @scan_axis_of_i1(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'aicf_tensor.cumsum' property axis must be an i64 integer, got true}}
  %0 = "aicf_tensor.cumsum"(%x) <{axis = true}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

func.func @scan_axis_of_i8(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'aicf_tensor.cumprod' property axis must be an i64 integer, got -1 : i8}}
  %0 = "aicf_tensor.cumprod"(%x) <{axis = -1 : i8}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

func.func @scan_too_long(%x: tensor<2x20000xf32>) -> tensor<2x20000xf32> {
  // expected-error @+1 {{'aicf_tensor.cumsum' an axis of 20000 elements is not supported yet (at most 16384: a scan lowers to a triangle of folds)}}
  %0 = aicf_tensor.cumsum %x axis = 1 : (tensor<2x20000xf32>) -> tensor<2x20000xf32>
  func.return %0 : tensor<2x20000xf32>
}
