// RUN: aicf-opt %s -p 'aicf-decompose-attention{keep_flash=true}' --split-input-file | filecheck %s
// With keep_flash, an attention the GPU's flash kernel takes (f16/bf16, head dim 64
// or 128, no mask, the head dim stored last) stays whole; any other is decomposed.

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:  %{{.*}} = aicf_tensor.attention %q, %k, %v scale = 0.125 causal
// CHECK-NOT:   aicf_tensor.matmul
func.func @kept(%q: tensor<2x32x64xf16>, %k: tensor<2x32x64xf16>, %v: tensor<2x32x64xf16>) -> tensor<2x32x64xf16> {
  %o = aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (tensor<2x32x64xf16>, tensor<2x32x64xf16>, tensor<2x32x64xf16>) -> tensor<2x32x64xf16>
  func.return %o : tensor<2x32x64xf16>
}

// -----

// CHECK-LABEL: func.func @f32
// CHECK-NOT:   aicf_tensor.attention
// CHECK:       aicf_tensor.matmul
func.func @f32(%q: tensor<32x64xf32>, %k: tensor<32x64xf32>, %v: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %o = aicf_tensor.attention %q, %k, %v scale = 0.125 : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  func.return %o : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func.func @masked
// CHECK-NOT:   aicf_tensor.attention
// CHECK:       aicf_tensor.matmul
func.func @masked(%q: tensor<32x64xf16>, %k: tensor<32x64xf16>, %v: tensor<32x64xf16>, %m: tensor<32x32xf16>) -> tensor<32x64xf16> {
  %o = aicf_tensor.attention %q, %k, %v, %m scale = 0.125 : (tensor<32x64xf16>, tensor<32x64xf16>, tensor<32x64xf16>, tensor<32x32xf16>) -> tensor<32x64xf16>
  func.return %o : tensor<32x64xf16>
}
