// RUN: aicf-opt %s --split-input-file -p aicf-infer-shapes --verify-diagnostics | filecheck %s
// Every chunk runs: the second fails (at its line in the whole file), the first and
// third are still transformed and printed, separated by `// -----`. (Without
// --verify-diagnostics the exit code is 1: test_cli.py.)

// CHECK-LABEL: func.func @first
// CHECK: aicf_tensor.exp {{.*}} -> tensor<4xf32>
// CHECK: // -----
// CHECK-NEXT: // -----
// CHECK-NEXT: builtin.module
// CHECK-LABEL: func.func @third
// CHECK: aicf_tensor.sin {{.*}} -> tensor<4xf32>
func.func @first(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @second(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'aicf_tensor.add' shapes 4, 3 are not broadcast-compatible}}
  %0 = aicf_tensor.add %x, %y : (tensor<4xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @third(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
