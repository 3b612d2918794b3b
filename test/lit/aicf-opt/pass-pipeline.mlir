// RUN: aicf-opt %s -p aicf-infer-shapes,canonicalize,cse | filecheck %s
// RUN: aicf-opt %s --pass-pipeline='builtin.module(aicf-infer-shapes,func.func(canonicalize,cse))' | filecheck %s
// RUN: aicf-opt %s -p 'builtin.module(aicf-infer-shapes, func.func(canonicalize), cse)' | filecheck %s
// RUN: aicf-opt %s --pass-pipeline='builtin.module(aicf-infer-shapes,aicf-fuse{explain=true})' | filecheck %s --check-prefix=FUSED
// RUN: aicf-opt %s --pass-pipeline='builtin.module(aicf-infer-shapes,aicf-fuse{max-ops=1 explain=true})' | filecheck %s --check-prefix=OPTS
// RUN: aicf-opt %s --pass-pipeline='builtin.module()' | filecheck %s --check-prefix=NONE
// MLIR's textual pipelines (mlir-opt's --pass-pipeline; -p takes them too) run the
// same passes as xDSL's flat lists; a func.func(...) group runs on every function,
// and options go in braces as in MLIR.

// CHECK-LABEL: func.func @f
// CHECK:       %[[S:.*]] = aicf_tensor.sin %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:   aicf_tensor.sin
// CHECK:       aicf_tensor.add %[[S]], %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// FUSED-LABEL: func.func @f
// FUSED: aicf_tensor.fused {{.*}}aicf.fusion = "fused: 1 kernel(s)

// OPTS-LABEL: func.func @f
// OPTS-NOT: aicf_tensor.fused
// OPTS: func.return

// NONE-LABEL: func.func @f
// NONE: -> tensor<*xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.add %0, %1 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
