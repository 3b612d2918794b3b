// RUN: aicf-opt %s --split-input-file -p aicf-decompose-attention | filecheck %s
// RUN: aicf-opt %s --split-input-file -p aicf-recognize-attention | filecheck %s --check-prefix=RECOGNIZE
// An attention whose result is still unranked (before aicf-infer-shapes) is left as
// it is by both attention passes (they read shapes), not an internal error.

// CHECK-LABEL: func.func @nomask
// CHECK: aicf_tensor.attention %q, %q, %q scale = 1.0 : {{.*}} -> tensor<*xf32>
// RECOGNIZE-LABEL: func.func @nomask
// RECOGNIZE: aicf_tensor.attention %q, %q, %q scale = 1.0 : {{.*}} -> tensor<*xf32>
func.func @nomask(%q: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.attention %q, %q, %q scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @mask
// CHECK: aicf_tensor.attention %q, %q, %q, %m scale = 0.5 : {{.*}} -> tensor<*xf32>
// RECOGNIZE-LABEL: func.func @mask
// RECOGNIZE: aicf_tensor.attention %q, %q, %q, %m scale = 0.5 : {{.*}} -> tensor<*xf32>
func.func @mask(%q: tensor<2x4x8xf32>, %m: tensor<4x4xi1>) -> tensor<*xf32> {
  %0 = aicf_tensor.attention %q, %q, %q, %m scale = 0.5 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xi1>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
