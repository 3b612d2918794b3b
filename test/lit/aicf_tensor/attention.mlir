// RUN: aicf-opt %s --split-input-file | aicf-opt --split-input-file | filecheck %s
// RUN: aicf-opt %s --split-input-file -p aicf-infer-shapes | filecheck %s --check-prefix=INFER
// attention round-trips (scale printed exactly, the causal flag, the layouts, the
// optional mask); its result is [batch..., Sq, Dv], batch dims and the mask broadcasting.

// CHECK-LABEL: func.func @causal
// CHECK: aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x64xf16>) -> tensor<*xf16>
// INFER-LABEL: func.func @causal
// INFER: -> tensor<2x8x64xf16>
func.func @causal(%q: tensor<2x8x64xf16>, %k: tensor<2x8x64xf16>, %v: tensor<2x8x64xf16>) -> tensor<*xf16> {
  %0 = aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x64xf16>) -> tensor<*xf16>
  func.return %0 : tensor<*xf16>
}

// -----

// K given as D x Sk, an additive mask, a scale that needs all its digits
// CHECK-LABEL: func.func @k_transposed
// CHECK: aicf_tensor.attention %q, %kt, %v, %m scale = 0.35355339059327373 k_perm = [1, 0] : (tensor<5x64xf32>, tensor<64x7xf32>, tensor<7x32xf32>, tensor<5x7xf32>) -> tensor<*xf32>
// INFER-LABEL: func.func @k_transposed
// INFER: -> tensor<5x32xf32>
func.func @k_transposed(%q: tensor<5x64xf32>, %kt: tensor<64x7xf32>, %v: tensor<7x32xf32>, %m: tensor<5x7xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.attention %q, %kt, %v, %m scale = 0.35355339059327373 k_perm = [1, 0] : (tensor<5x64xf32>, tensor<64x7xf32>, tensor<7x32xf32>, tensor<5x7xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// [batch, seq, heads, dim] operands read as [batch, heads, seq, dim]; an i1 key
// padding mask [batch, 1, 1, Sk]; a scale written with an exponent
// CHECK-LABEL: func.func @bshd
// CHECK: aicf_tensor.attention %q, %k, %v, %m scale = 1.0e-05 q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3]
// INFER-LABEL: func.func @bshd
// INFER: -> tensor<2x4x16x8xbf16>
func.func @bshd(%q: tensor<2x16x4x8xbf16>, %k: tensor<2x16x4x8xbf16>, %v: tensor<2x16x4x8xbf16>, %m: tensor<2x1x1x16xi1>) -> tensor<*xbf16> {
  %0 = aicf_tensor.attention %q, %k, %v, %m scale = 1.0e-5 q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3] : (tensor<2x16x4x8xbf16>, tensor<2x16x4x8xbf16>, tensor<2x16x4x8xbf16>, tensor<2x1x1x16xi1>) -> tensor<*xbf16>
  func.return %0 : tensor<*xbf16>
}

// -----

// Q shared by every head of K and V, and a mask with a batch dim of its own
// INFER-LABEL: func.func @broadcast
// INFER: -> tensor<3x4x5x6xf32>
func.func @broadcast(%q: tensor<5x8xf32>, %k: tensor<4x7x8xf32>, %v: tensor<1x7x6xf32>, %m: tensor<3x1x5x7xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.attention %q, %k, %v, %m scale = 1.0 : (tensor<5x8xf32>, tensor<4x7x8xf32>, tensor<1x7x6xf32>, tensor<3x1x5x7xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
