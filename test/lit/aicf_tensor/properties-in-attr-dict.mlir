// RUN: aicf-opt %s --split-input-file | filecheck %s
// RUN: aicf-opt %s --split-input-file -p aicf-infer-shapes | filecheck %s --check-prefix=SHAPES
// A property written in the attribute dictionary of an op's custom syntax is that
// property, as MLIR and xDSL's generic form read it: it was kept as a discardable
// attribute, which nothing reads, so `{causal}` gave a non-causal attention, `{ddof = 1}`
// the variance with ddof 0 and `{keepdims}` no kept dims, silently.

// CHECK-LABEL: func.func @causal
// CHECK: aicf_tensor.attention %{{.*}}, %{{.*}}, %{{.*}} scale = 0.25 causal :
// CHECK-NOT: {causal}
func.func @causal(%q: tensor<8x16xf32>) -> tensor<*xf32> {
  %y = aicf_tensor.attention %q, %q, %q scale = 0.25 {causal} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @var_keepdims
// CHECK: aicf_tensor.reduce_var %{{.*}} axes = [1] ddof = 1 keepdims :
// SHAPES-LABEL: func.func @var_keepdims
// SHAPES: -> tensor<4x1xf32>
func.func @var_keepdims(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %y = aicf_tensor.reduce_var %x axes = [1] {ddof = 1 : i64, keepdims} : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @loop_attention
// CHECK: aicf_loop.attention scale = 0.125 causal ins(
func.func @loop_attention(%q: memref<8x64xf32>, %o: memref<8x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 ins(%q, %q, %q : memref<8x64xf32>, memref<8x64xf32>, memref<8x64xf32>) outs(%o : memref<8x64xf32>) {causal}
  func.return
}
