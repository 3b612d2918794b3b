// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// numpy.matmul shapes: 2-D, 1-D operands (promoted, then the added dim dropped),
// batched with broadcast batch dims.

// CHECK-LABEL: func.func @two_d
// CHECK-SAME: -> tensor<4x16xf32>
func.func @two_d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %0 = aicf_tensor.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @one_d
func.func @one_d(%v: tensor<8xf32>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // vector @ matrix: (8) @ (8x16) -> (16)
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %0 = aicf_tensor.matmul %v, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<*xf32>
  // matrix @ vector: (4x8) @ (8) -> (4)
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.matmul %a, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // vector @ vector: a rank-0 dot product
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %2 = aicf_tensor.matmul %v, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @batched
func.func @batched(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<3x1x4x8xf32>, %d: tensor<5x8x16xf32>, %v: tensor<8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %0 = aicf_tensor.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<*xf32>
  // Batch dims 3x1 and 5 broadcast to 3x5.
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<3x1x4x8xf32>, tensor<5x8x16xf32>) -> tensor<3x5x4x16xf32>
  %1 = aicf_tensor.matmul %c, %d : (tensor<3x1x4x8xf32>, tensor<5x8x16xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<5x8x16xf32>) -> tensor<5x16xf32>
  %2 = aicf_tensor.matmul %v, %d : (tensor<8xf32>, tensor<5x8x16xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<3x1x4x8xf32>, tensor<8xf32>) -> tensor<3x1x4xf32>
  %3 = aicf_tensor.matmul %c, %v : (tensor<3x1x4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  func.return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// 0-size extents: K = 0 gives a (zero-filled) MxN result; M = 0 an empty one.
// CHECK-LABEL: func.func @zero_size
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<0x16xf32>)
func.func @zero_size(%a: tensor<4x0xf32>, %b: tensor<0x16xf32>, %c: tensor<16x16xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.matmul %a, %b : (tensor<4x0xf32>, tensor<0x16xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.matmul %b, %c : (tensor<0x16xf32>, tensor<16x16xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// A matmul of inferred operands: the chain x @ W + b.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: -> tensor<32x10xf32>
func.func @linear(%x: tensor<32x64xf32>, %w: tensor<64x10xf32>, %b: tensor<10xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.relu %x : (tensor<32x64xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<32x64xf32>, tensor<64x10xf32>) -> tensor<32x10xf32>
  %1 = aicf_tensor.matmul %0, %w : (tensor<*xf32>, tensor<64x10xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
  %2 = aicf_tensor.add %1, %b : (tensor<*xf32>, tensor<10xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
