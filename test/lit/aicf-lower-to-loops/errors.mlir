// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file --verify-diagnostics
// The lowering needs ranked, static types (run aicf-infer-shapes first) and only
// knows aicf_tensor ops; anything else is an error at the op's location.

func.func @unranked(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.exp' result #0 has unranked type tensor<*xf32>: run aicf-infer-shapes first}}
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'aicf_tensor.exp' operand #0 has type tensor<?x4xf32> with dynamic dims: dynamic dims must be specialised before aicf-lower-to-loops}}
  %0 = aicf_tensor.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{'func.func' argument #0 has unranked type tensor<*xf32>: run aicf-infer-shapes first}}
func.func @unranked_arg(%x: tensor<*xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.constant dense<1.0> : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.constant' cannot be lowered to loops (not an aicf_tensor op)}}
  %c = arith.constant 1.0 : f32
  func.return %x : tensor<4xf32>
}

