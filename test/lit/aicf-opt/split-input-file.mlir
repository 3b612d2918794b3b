// RUN: not aicf-opt %s --split-input-file -p aicf-infer-shapes 2>%t.err | filecheck %s
// RUN: filecheck %s --input-file=%t.err --check-prefix=ERR
// Every chunk runs: the second fails (its diagnostic goes to stderr, with the line in
// the whole file), the first and third are still transformed and printed, separated
// by `// -----`; the exit code is 1 because one chunk failed.

// CHECK-LABEL: func.func @first
// CHECK: aicf_tensor.exp {{.*}} -> tensor<4xf32>
// CHECK: // -----
// CHECK-NEXT: // -----
// CHECK-NEXT: builtin.module
// CHECK-LABEL: func.func @third
// CHECK: aicf_tensor.sin {{.*}} -> tensor<4xf32>
// ERR: split-input-file.mlir:[[# @LINE + 10]]:3: error: 'aicf_tensor.add' shapes 4, 3 are not broadcast-compatible
// ERR-NOT: error
func.func @first(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @second(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.add %x, %y : (tensor<4xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @third(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
