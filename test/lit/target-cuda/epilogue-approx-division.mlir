// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-fuse{target=gpu},aicf-lower-to-loops,aicf-fuse-epilogue,aicf-plan{target=h100},aicf-lower-to-gpu{target=h100},aicf-swizzle-smem,aicf-lower-smem-layouts' -t cuda | filecheck %s
// A math = "approx" wgmma epilogue prints the tanh GELU's division (its quotient only
// rounds to f16) as div.full.f32: the correctly rounded one calls a slow path inside
// the consumer warps' epilogue, around ~128 live accumulator registers.

// CHECK: // gelu_group0: gpu.wgmma_epilogue {{.*}}math=approx
// CHECK: void __launch_bounds__({{.*}}) gelu_group0(
// CHECK: = aicf_div_full(
// CHECK-NOT: = {{v_[0-9]+}} / {{v_[0-9]+}};
// CHECK: }
func.func @gelu(%x: tensor<4096x768xf16>, %w: tensor<768x3072xf16>, %b: tensor<3072xf16>) -> tensor<4096x3072xf16> {
  %0 = aicf_tensor.matmul %x, %w : (tensor<4096x768xf16>, tensor<768x3072xf16>) -> tensor<4096x3072xf16>
  %1 = aicf_tensor.add %0, %b : (tensor<4096x3072xf16>, tensor<3072xf16>) -> tensor<4096x3072xf16>
  %2 = aicf_tensor.gelu %1 approximate = "tanh" : (tensor<4096x3072xf16>) -> tensor<4096x3072xf16>
  func.return %2 : tensor<4096x3072xf16>
}
