// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of attention: Q, K, V of one float type; an i1 or float mask that
// does not extend the query or key length; head dims and key lengths that agree;
// layouts that are permutations; rank >= 2; a finite scale.

func.func @mixed_types(%q: tensor<4x8xf32>, %k: tensor<4x8xf16>, %v: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' Q, K and V must share one float element type, got f32, f16, f32}}
  %0 = aicf_tensor.attention %q, %k, %v scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @int_operands(%q: tensor<4x8xi32>) -> tensor<*xi32> {
  // expected-error @+1 {{'aicf_tensor.attention' Q, K and V must share one float element type, got i32, i32, i32}}
  %0 = aicf_tensor.attention %q, %q, %q scale = 1.0 : (tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}

// -----

func.func @int_mask(%q: tensor<4x8xf32>, %m: tensor<4x4xi32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' the mask must be i1 (true keeps) or a float tensor (added to the scores), got i32}}
  %0 = aicf_tensor.attention %q, %q, %q, %m scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xi32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @head_dims(%q: tensor<4x8xf32>, %k: tensor<4x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' head dims differ: Q is 4x8, K is 4x16 (seq, head dim last)}}
  %0 = aicf_tensor.attention %q, %k, %k scale = 1.0 : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @key_lengths(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<5x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' key sequence lengths differ: K is 6x8, V is 5x8}}
  %0 = aicf_tensor.attention %q, %k, %v scale = 1.0 : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<5x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @vector(%q: tensor<8xf32>, %k: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' Q must have rank >= 2 (batch..., seq, head dim), got 8}}
  %0 = aicf_tensor.attention %q, %k, %k scale = 1.0 : (tensor<8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @bad_layout(%q: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' K layout: perm [0, 0] is not a permutation of the 2 dims of 4x8}}
  %0 = aicf_tensor.attention %q, %q, %q scale = 1.0 k_perm = [0, 0] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// a mask of 3 query rows would repeat the single query three times
func.func @mask_extends_queries(%q: tensor<1x8xf32>, %k: tensor<4x8xf32>, %m: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' mask 3x4 would broadcast the scores 1x4 to 3x4: it may not change the query or key length}}
  %0 = aicf_tensor.attention %q, %k, %k, %m scale = 1.0 : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @mask_mismatch(%q: tensor<4x8xf32>, %m: tensor<4x5xi1>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' mask 4x5 does not broadcast to the scores 4x4: shapes 4x4, 4x5 are not broadcast-compatible (dimension -1: 4 vs 5)}}
  %0 = aicf_tensor.attention %q, %q, %q, %m scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x5xi1>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @wrong_result(%q: tensor<4x8xf32>, %v: tensor<4x6xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'aicf_tensor.attention' declared result shape 4x8 does not match the inferred shape 4x6}}
  %0 = aicf_tensor.attention %q, %q, %v scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

func.func @missing_scale(%q: tensor<4x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{property 'scale' expected}}
  %0 = aicf_tensor.attention %q, %q, %q : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// A scale finite in f64 but not in f32, where the scores of f16/bf16/f32 operands are
// computed: every output was NaN.
func.func @scale_past_f32(%q: tensor<4x8xf16>) -> tensor<*xf16> {
  // expected-error @+1 {{'aicf_tensor.attention' scale 1e+39 overflows f32, in which the scores of f16 operands are computed}}
  %0 = aicf_tensor.attention %q, %q, %q scale = 1.0e39 : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<*xf16>
  func.return %0 : tensor<*xf16>
}

// -----

// f64 operands compute in f64: the same scale is valid there.
func.func @scale_f64(%q: tensor<4x8xf64>) -> tensor<*xf64> {
  %0 = aicf_tensor.attention %q, %q, %q scale = 1.0e39 : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<*xf64>
  func.return %0 : tensor<*xf64>
}
