// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Literals the parser cannot hold are errors at the op that holds them, never a
// Python ValueError or MemoryError: integers out of their type's range, a dense
// literal too large to build from text, a dense type that is not static, and an
// integer type wider than MLIR's 2^24 - 1 bits.

func.func @int_out_of_range() -> tensor<2xi32> {
  // expected-error @+1 {{Integer value 99999999999 is out of range for type i32}}
  %0 = aicf_tensor.constant dense<[99999999999, 1]> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @array_out_of_range(%x: tensor<4x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{Integer value 99999999999999999999 is out of range for type i64}}
  %0 = aicf_tensor.transpose %x perm = [1, 99999999999999999999] : (tensor<4x4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// expected-error @+1 {{Integer value 99999999999999999999 is out of range for type i64}}
func.func @attribute_out_of_range(%x: memref<4xf32>) attributes {aicf.num_outputs = 99999999999999999999 : i64} {
  func.return
}

// -----

func.func @huge_splat() -> tensor<1000000000000xf32> {
  // expected-error @+1 {{a dense literal of tensor<1000000000000xf32> is 4000000000000 bytes, more than aicf reads from text}}
  %0 = aicf_tensor.constant dense<1.0> : tensor<1000000000000xf32>
  func.return %0 : tensor<1000000000000xf32>
}

// -----

func.func @dynamic_dense() -> tensor<?xf32> {
  // expected-error @+1 {{Dense literal attribute should have a static shape}}
  %0 = aicf_tensor.constant dense<1.0> : tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// expected-error @+1 {{integer width 1844674407370955161664 exceeds the limit of 16777215 bits}}
func.func @int_type_too_wide(%x: memref<4xf32>) attributes {aicf.num_outputs = 1 : i1844674407370955161664} {
  func.return
}
