// RUN: aicf-opt %s --split-input-file -p 'aicf-infer-shapes,aicf-fuse{target=gpu},aicf-lower-to-loops,aicf-fuse-epilogue,aicf-plan{target=h100}' | filecheck %s
// A matmul's fused epilogue gets the elementwise kinds' math mode: "approx" where an
// op's result is only rounded to f16/bf16 (here the tanh GELU's division, x / (1 +
// exp(-2z))), and no math parameter where nothing qualifies.

// CHECK-LABEL: func.func @gelu_tanh_f16
// CHECK: kind = "gpu.wgmma_epilogue"
// CHECK-SAME: math = "approx"
func.func @gelu_tanh_f16(%x: tensor<4096x768xf16>, %w: tensor<768x3072xf16>, %b: tensor<3072xf16>) -> tensor<4096x3072xf16> {
  %0 = aicf_tensor.matmul %x, %w : (tensor<4096x768xf16>, tensor<768x3072xf16>) -> tensor<4096x3072xf16>
  %1 = aicf_tensor.add %0, %b : (tensor<4096x3072xf16>, tensor<3072xf16>) -> tensor<4096x3072xf16>
  %2 = aicf_tensor.gelu %1 approximate = "tanh" : (tensor<4096x3072xf16>) -> tensor<4096x3072xf16>
  func.return %2 : tensor<4096x3072xf16>
}

// -----

// CHECK-LABEL: func.func @bias_f16
// CHECK: kind = "gpu.wgmma_epilogue"
// CHECK-NOT: math =
// CHECK: func.return
func.func @bias_f16(%x: tensor<4096x768xf16>, %w: tensor<768x3072xf16>, %b: tensor<3072xf16>) -> tensor<4096x3072xf16> {
  %0 = aicf_tensor.matmul %x, %w : (tensor<4096x768xf16>, tensor<768x3072xf16>) -> tensor<4096x3072xf16>
  %1 = aicf_tensor.add %0, %b : (tensor<4096x3072xf16>, tensor<3072xf16>) -> tensor<4096x3072xf16>
  %2 = aicf_tensor.relu %1 : (tensor<4096x3072xf16>) -> tensor<4096x3072xf16>
  func.return %2 : tensor<4096x3072xf16>
}
