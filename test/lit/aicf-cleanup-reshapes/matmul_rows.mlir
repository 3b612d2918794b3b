// RUN: aicf-opt %s -p aicf-cleanup-reshapes --split-input-file | filecheck %s

// torch's linear layer on [batch, seq, features]: rows merged, a 2-D matmul, rows
// split back. It becomes one batched matmul (the weight broadcast over the batch) that
// writes the result in its final shape.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %[[W:.*]] = aicf_tensor.transpose %w
// CHECK-NEXT:    %[[O:.*]] = aicf_tensor.matmul %x, %[[W]] : (tensor<2x5x4xf32>, tensor<4x7xf32>) -> tensor<2x5x7xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @linear(%x: tensor<2x5x4xf32>, %w: tensor<7x4xf32>) -> tensor<2x5x7xf32> {
  %x2 = aicf_tensor.reshape %x shape = [10, 4] : (tensor<2x5x4xf32>) -> tensor<10x4xf32>
  %wt = aicf_tensor.transpose %w perm = [1, 0] : (tensor<7x4xf32>) -> tensor<4x7xf32>
  %h = aicf_tensor.matmul %x2, %wt : (tensor<10x4xf32>, tensor<4x7xf32>) -> tensor<10x7xf32>
  %o = aicf_tensor.reshape %h shape = [2, 5, 7] : (tensor<10x7xf32>) -> tensor<2x5x7xf32>
  func.return %o : tensor<2x5x7xf32>
}

// -----

// The rows are split into other dims than were merged: the reshapes stay.
// CHECK-LABEL: func.func @other_split
// CHECK:         aicf_tensor.matmul %{{.*}} : (tensor<10x4xf32>, tensor<4x7xf32>) -> tensor<10x7xf32>
// CHECK-NEXT:    aicf_tensor.reshape
func.func @other_split(%x: tensor<2x5x4xf32>, %b: tensor<4x7xf32>) -> tensor<5x2x7xf32> {
  %x2 = aicf_tensor.reshape %x shape = [10, 4] : (tensor<2x5x4xf32>) -> tensor<10x4xf32>
  %h = aicf_tensor.matmul %x2, %b : (tensor<10x4xf32>, tensor<4x7xf32>) -> tensor<10x7xf32>
  %o = aicf_tensor.reshape %h shape = [5, 2, 7] : (tensor<10x7xf32>) -> tensor<5x2x7xf32>
  func.return %o : tensor<5x2x7xf32>
}

// -----

// A linear layer after elementwise code (a layer norm's scale and shift): the rows
// reshape stays for the matmul to take, rather than moving up through the add.
// CHECK-LABEL: func.func @after_elementwise
// CHECK-NEXT:    %[[A:.*]] = aicf_tensor.add %x, %b : (tensor<2x5x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
// CHECK-NEXT:    %[[O:.*]] = aicf_tensor.matmul %[[A]], %w : (tensor<2x5x4xf32>, tensor<4x7xf32>) -> tensor<2x5x7xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @after_elementwise(%x: tensor<2x5x4xf32>, %b: tensor<4xf32>, %w: tensor<4x7xf32>) -> tensor<2x5x7xf32> {
  %a = aicf_tensor.add %x, %b : (tensor<2x5x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  %x2 = aicf_tensor.reshape %a shape = [10, 4] : (tensor<2x5x4xf32>) -> tensor<10x4xf32>
  %h = aicf_tensor.matmul %x2, %w : (tensor<10x4xf32>, tensor<4x7xf32>) -> tensor<10x7xf32>
  %o = aicf_tensor.reshape %h shape = [2, 5, 7] : (tensor<10x7xf32>) -> tensor<2x5x7xf32>
  func.return %o : tensor<2x5x7xf32>
}
