// RUN: cat %s | aicf-opt - -p aicf-infer-shapes -o - | filecheck %s
// RUN: cat %s | aicf-opt -p aicf-infer-shapes | filecheck %s
// RUN: rm -rf %t && mkdir %t && cd %t && aicf-opt %s -p aicf-infer-shapes -o - | filecheck %s
// RUN: test ! -e %t/-
// As in mlir-opt: `-` is stdin and `-o -` stdout (no file named `-` is written).

// CHECK-LABEL: func.func @f
// CHECK: aicf_tensor.exp %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
