// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// take becomes an aicf_loop.gather (its reads depend on the data, so no nest's
// affine maps can state them) with the axis made non-negative; readers of its
// result are nests as usual.

// CHECK-LABEL: func.func @embedding
func.func @embedding(%w: tensor<50x8xf32>, %p: tensor<4x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  // CHECK:      %[[BUF:.*]] = memref.alloc() : memref<4x8xf32>
  // CHECK-NEXT: aicf_loop.gather axis = 0 ins(%w, %i : memref<50x8xf32>, memref<4xi64>) outs(%[[BUF]] : memref<4x8xf32>)
  // CHECK-NEXT: aicf_loop.nest domain = [4, 8]
  // CHECK-NEXT:   ins(%[[BUF]], %p : memref<4x8xf32>, memref<4x8xf32>)
  %0 = aicf_tensor.take %w, %i axis = 0 : (tensor<50x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %1 = aicf_tensor.add %0, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %1 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @negative_axis
func.func @negative_axis(%x: tensor<3x5xf32>, %i: tensor<2x2xi32>) -> tensor<3x2x2xf32> {
  // CHECK: aicf_loop.gather axis = 1 ins(%x, %i : memref<3x5xf32>, memref<2x2xi32>) outs(%out0 : memref<3x2x2xf32>)
  %0 = aicf_tensor.take %x, %i axis = -1 : (tensor<3x5xf32>, tensor<2x2xi32>) -> tensor<3x2x2xf32>
  func.return %0 : tensor<3x2x2xf32>
}
