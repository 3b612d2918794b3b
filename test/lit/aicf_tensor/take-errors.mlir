// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of take: the axis is in range, the indices are i32 or i64, the
// result is the source's shape with the axis replaced by the indices' shape, and an
// empty axis has nothing to select.

func.func @axis_out_of_range(%w: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.take' axis 2 is out of range for rank 2}}
  %0 = aicf_tensor.take %w, %i axis = 2 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @float_indices(%w: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.take' indices must be an integer tensor (i32 or i64), got tensor<3xf32>}}
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @bool_indices(%w: tensor<10x4xf32>, %i: tensor<3xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.take' indices must be an integer tensor (i32 or i64), got tensor<3xi1>}}
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<10x4xf32>, tensor<3xi1>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @wrong_result(%w: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'aicf_tensor.take' declared result shape 4x3 does not match the inferred shape 3x4}}
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}

// -----

func.func @empty_axis(%w: tensor<0x4xf32>, %i: tensor<3xi32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.take' take along axis 0 of extent 0 of 0x4: no element to select}}
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<0x4xf32>, tensor<3xi32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @scalar_source(%w: tensor<f32>, %i: tensor<3xi32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.take' take from a scalar (rank 0)}}
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<f32>, tensor<3xi32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
