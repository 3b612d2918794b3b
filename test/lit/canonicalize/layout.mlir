// RUN: aicf-opt %s -p canonicalize --split-input-file | filecheck %s

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reshape %x shape = [2, 16] : (tensor<4x8xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reshape_of_reshape(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = aicf_tensor.reshape %x shape = [32] : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = aicf_tensor.reshape %0 shape = [2, 16] : (tensor<32xf32>) -> tensor<2x16xf32>
  func.return %1 : tensor<2x16xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-NEXT:    func.return %x : tensor<4x8xf32>
func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.reshape %x shape = [-1] : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = aicf_tensor.reshape %0 shape = [4, 8] : (tensor<32xf32>) -> tensor<4x8xf32>
  func.return %1 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_shape
// CHECK-NEXT:    func.return %x : tensor<4x8xf32>
func.func @reshape_same_shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.reshape %x shape = [4, -1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT:    %[[T:.*]] = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = aicf_tensor.transpose %x perm = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = aicf_tensor.transpose %0 perm = [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  func.return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_inverse
// CHECK-NEXT:    func.return %x : tensor<2x3x4xf32>
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = aicf_tensor.transpose %0 perm = [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aicf_tensor.transpose %x perm = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT:    %[[C:.*]] = aicf_tensor.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @broadcast_splat() -> tensor<4x8xf32> {
  %c = aicf_tensor.constant dense<2.5> : tensor<8xf32>
  %0 = aicf_tensor.broadcast_to %c shape = [4, 8] : (tensor<8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// Too big to hold as a constant (over 1M elements): the broadcast stays.
// CHECK-LABEL: func.func @broadcast_splat_large
// CHECK:         aicf_tensor.broadcast_to
func.func @broadcast_splat_large() -> tensor<2048x1024xf32> {
  %c = aicf_tensor.constant dense<2.5> : tensor<f32>
  %0 = aicf_tensor.broadcast_to %c shape = [2048, 1024] : (tensor<f32>) -> tensor<2048x1024xf32>
  func.return %0 : tensor<2048x1024xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_shape
// CHECK-NEXT:    func.return %x : tensor<4x8xf32>
func.func @broadcast_same_shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.broadcast_to %x shape = [4, 8] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_grows_stays
// CHECK:         aicf_tensor.broadcast_to %x shape = [4, 8]
func.func @broadcast_grows_stays(%x: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.broadcast_to %x shape = [4, 8] : (tensor<1x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-NEXT:    %[[C:.*]] = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT:    func.return %x, %[[C]]
func.func @cast_same_type(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf16>
}
