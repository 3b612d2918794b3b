// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of the comparison, select, iota, erf, gelu and reduce_var ops; each
// error names the op, its location and the types at fault.

func.func @select_cond_not_i1(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.select' condition must be an i1 tensor, got tensor<4xf32>}}
  %0 = aicf_tensor.select %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @select_shapes(%c: tensor<4xi1>, %x: tensor<5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.select' shapes 4, 5, 5 are not broadcast-compatible (dimension -1: 4 vs 5)}}
  %0 = aicf_tensor.select %c, %x, %x : (tensor<4xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @compare_result_not_i1(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.lt' result element type f32 does not match the inferred i1}}
  %0 = aicf_tensor.lt %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @compare_shapes(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<*xi1> {
  // expected-error @+1 {{'aicf_tensor.eq' shapes 4x8, 4 are not broadcast-compatible (dimension -1: 4 vs 8)}}
  %0 = aicf_tensor.eq %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<*xi1>
  func.return %0 : tensor<*xi1>
}

// -----

func.func @bool_arithmetic(%m: tensor<4xi1>) -> tensor<*xi1> {
  // expected-error @+1 {{'aicf_tensor.add' arithmetic on i1 (bool) tensors is not defined; cast them to an integer or float type first}}
  %0 = aicf_tensor.add %m, %m : (tensor<4xi1>, tensor<4xi1>) -> tensor<*xi1>
  func.return %0 : tensor<*xi1>
}

// -----

func.func @iota_dim() -> tensor<4x8xi32> {
  // expected-error @+1 {{'aicf_tensor.iota' dim 2 is out of range for rank 2}}
  %0 = aicf_tensor.iota dim = 2 : tensor<4x8xi32>
  func.return %0 : tensor<4x8xi32>
}

// -----

func.func @iota_unranked() -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.iota' the result type must have a static shape}}
  %0 = aicf_tensor.iota dim = 0 : tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

// NumPy's astype would wrap index 2^31 to -2^31: an integer type must hold every index
func.func @iota_extent_past_i32() -> tensor<2x2147483649xi32> {
  // expected-error @+1 {{'aicf_tensor.iota' dim 1 has extent 2147483649: its indices up to 2147483648 do not fit i32 (at most 2147483647)}}
  %0 = aicf_tensor.iota dim = 1 : tensor<2x2147483649xi32>
  func.return %0 : tensor<2x2147483649xi32>
}

// -----

func.func @erf_int(%x: tensor<4xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.erf' operand must be a float tensor, got tensor<4xi32>}}
  %0 = aicf_tensor.erf %x : (tensor<4xi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @gelu_form(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aicf_tensor.gelu' approximate must be one of 'none', 'tanh', got 'fast'}}
  %0 = aicf_tensor.gelu %x approximate = "fast" : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @var_ddof(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_var' ddof must be >= 0, got -1}}
  %0 = aicf_tensor.reduce_var %x axes = [1] ddof = -1 : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @var_axis(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.reduce_var' axis 2 is out of range for rank 2}}
  %0 = aicf_tensor.reduce_var %x axes = [2] : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
