// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// Dynamic extents (`?`) propagate: a static extent wins in broadcasting (the `?`
// must be 1 or equal to it at run time), reduced dynamic dims disappear, a dynamic
// contraction size is checked at run time.

// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%{{.*}}: tensor<?x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<4x1xf32>) -> (tensor<?x8xf32>, tensor<4x8xf32>)
func.func @elementwise(%x: tensor<?x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %0 = aicf_tensor.add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.exp %{{.*}} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = aicf_tensor.exp %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.mul %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.mul %1, %c : (tensor<*xf32>, tensor<4x1xf32>) -> tensor<*xf32>
  func.return %1, %2 : tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @both_dynamic
func.func @both_dynamic(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>, %c: tensor<?xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %0 = aicf_tensor.add %a, %b : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.sub %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = aicf_tensor.sub %0, %c : (tensor<*xf32>, tensor<?xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: -> (tensor<8xf32>, tensor<?xf32>, tensor<?x1xf32>)
func.func @reductions(%x: tensor<?x8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [0] : (tensor<?x8xf32>) -> tensor<8xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<?x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [-1] : (tensor<?x8xf32>) -> tensor<?xf32>
  %1 = aicf_tensor.reduce_max %x axes = [-1] : (tensor<?x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.reduce_mean %{{.*}} axes = [1] keepdims : (tensor<?x8xf32>) -> tensor<?x1xf32>
  %2 = aicf_tensor.reduce_mean %x axes = [1] keepdims : (tensor<?x8xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %a: tensor<4x?xf32>, %b: tensor<?x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %0 = aicf_tensor.matmul %x, %w : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x?xf32>, tensor<?x3xf32>) -> tensor<4x3xf32>
  %1 = aicf_tensor.matmul %a, %b : (tensor<4x?xf32>, tensor<?x3xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<?x8xf32>) -> (tensor<*xf32>, tensor<*xf16>) {
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 0] : (tensor<?x8xf32>) -> tensor<8x?xf32>
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<?x8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<8x?xf32>) -> tensor<8x?xf16>
  %1 = aicf_tensor.cast %0 : (tensor<*xf32>) -> tensor<*xf16>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf16>
}

// A static extent written on a result refines a dynamic inferred one; a `?` written
// on a result is filled in where the inferred extent is static.
// CHECK-LABEL: func.func @declared
// CHECK-SAME: -> (tensor<3x8xf32>, tensor<3x8xf32>)
func.func @declared(%x: tensor<?x8xf32>) -> (tensor<3x?xf32>, tensor<?x?xf32>) {
  // CHECK: aicf_tensor.neg %{{.*}} : (tensor<?x8xf32>) -> tensor<3x8xf32>
  %0 = aicf_tensor.neg %x : (tensor<?x8xf32>) -> tensor<3x?xf32>
  // CHECK: aicf_tensor.sqrt %{{.*}} : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %1 = aicf_tensor.sqrt %0 : (tensor<3x?xf32>) -> tensor<?x?xf32>
  func.return %0, %1 : tensor<3x?xf32>, tensor<?x?xf32>
}
