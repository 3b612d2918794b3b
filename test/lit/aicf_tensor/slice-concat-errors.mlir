// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of slice and concatenate: each error names the op, its location and
// the shapes, bounds or types at fault.

func.func @slice_bounds(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.slice' slice bounds out of range (axis 1 of 4x8: start 0, stop 9, step 1; each must be in [0, 8])}}
  %0 = aicf_tensor.slice %x start = [0, 0] stop = [4, 9] step = [1, 1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @slice_negative_index(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.slice' slice bounds out of range (axis 0 of 4x8: start -2, stop 4, step 1; each must be in [0, 4])}}
  %0 = aicf_tensor.slice %x start = [-2, 0] stop = [4, 8] step = [1, 1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @slice_step_zero(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.slice' slice step must not be 0 (axis 1 of 4x8: start 0, stop 8, step 0)}}
  %0 = aicf_tensor.slice %x start = [0, 0] stop = [4, 8] step = [1, 0] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @slice_rank(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.slice' slice of 4x8 needs 2 start, stop and step values, got 1, 1 and 1}}
  %0 = aicf_tensor.slice %x start = [0] stop = [4] step = [1] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @slice_declared(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'aicf_tensor.slice' declared result shape 4x3 does not match the inferred shape 4x4}}
  %0 = aicf_tensor.slice %x start = [0, 7] stop = [4, -1] step = [1, -2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_shapes(%x: tensor<4x8xf32>, %y: tensor<3x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.concatenate' concatenate along axis 1: shapes 4x8, 3x3 differ off the axis}}
  %0 = aicf_tensor.concatenate %x, %y axis = 1 : (tensor<4x8xf32>, tensor<3x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @concat_axis(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.concatenate' axis 2 is out of range for rank 2}}
  %0 = aicf_tensor.concatenate %x, %x axis = 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @concat_dtypes(%x: tensor<4x8xf32>, %y: tensor<4x8xf16>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.concatenate' operands have different element types (f16, f32); cast them first}}
  %0 = aicf_tensor.concatenate %x, %y axis = 0 : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @concat_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.concatenate' concatenate along axis 0: shapes 4x8, 8 differ off the axis}}
  %0 = aicf_tensor.concatenate %x, %y axis = 0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
