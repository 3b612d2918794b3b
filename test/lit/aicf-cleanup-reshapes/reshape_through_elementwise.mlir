// RUN: aicf-opt %s -p aicf-cleanup-reshapes --split-input-file | filecheck %s

// A model's view to [batch, seq, features] and back around an elementwise chain: the
// reshapes move up through the chain and cancel, the bias keeps broadcasting over the
// last dim, and the scalar stays a scalar.
// CHECK-LABEL: func.func @view_round_trip
// CHECK-NOT:     aicf_tensor.reshape
// CHECK:         %[[A:.*]] = aicf_tensor.add %h, %b : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT:    %[[M:.*]] = aicf_tensor.mul %[[A]], %c : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
// CHECK-NEXT:    %[[T:.*]] = aicf_tensor.tanh %[[A]] : (tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT:    %[[G:.*]] = aicf_tensor.mul %[[M]], %[[T]] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT:    func.return %[[G]] : tensor<6x8xf32>
func.func @view_round_trip(%h: tensor<6x8xf32>, %b: tensor<8xf32>, %c: tensor<f32>) -> tensor<6x8xf32> {
  %hb = aicf_tensor.add %h, %b : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
  %h3 = aicf_tensor.reshape %hb shape = [2, 3, 8] : (tensor<6x8xf32>) -> tensor<2x3x8xf32>
  %m = aicf_tensor.mul %h3, %c : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %t = aicf_tensor.tanh %h3 : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %g = aicf_tensor.mul %m, %t : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %g2 = aicf_tensor.reshape %g shape = [6, 8] : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  func.return %g2 : tensor<6x8xf32>
}

// -----

// The elementwise result is also read in its own shape: the reshape stays below it
// (moving it would compute the add twice).
// CHECK-LABEL: func.func @other_reader
// CHECK:         %[[A:.*]] = aicf_tensor.add %x, %y : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reshape %[[A]] shape = [6, 8]
func.func @other_reader(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> (tensor<6x8xf32>, tensor<2x3x8xf32>) {
  %a = aicf_tensor.add %x, %y : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %r = aicf_tensor.reshape %a shape = [6, 8] : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  func.return %r, %a : tensor<6x8xf32>, tensor<2x3x8xf32>
}

// -----

// A broadcast operand whose dims the reshape does not keep: [3, 1] over [2, 3, 8]
// has no meaning over [2, 24]; the reshape stays.
// CHECK-LABEL: func.func @broadcast_split
// CHECK:         aicf_tensor.add %x, %y : (tensor<2x3x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    aicf_tensor.reshape
func.func @broadcast_split(%x: tensor<2x3x8xf32>, %y: tensor<3x1xf32>) -> tensor<2x24xf32> {
  %a = aicf_tensor.add %x, %y : (tensor<2x3x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
  %r = aicf_tensor.reshape %a shape = [2, 24] : (tensor<2x3x8xf32>) -> tensor<2x24xf32>
  func.return %r : tensor<2x24xf32>
}

// -----

// A cast moves with the reshape like any elementwise op.
// CHECK-LABEL: func.func @cast
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reshape %x shape = [6] : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %[[C:.*]] = aicf_tensor.cast %[[R]]
// CHECK-SAME:    (tensor<6xf32>) -> tensor<6xf16>
func.func @cast(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  %c = aicf_tensor.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %r = aicf_tensor.reshape %c shape = [6] : (tensor<2x3xf16>) -> tensor<6xf16>
  func.return %r : tensor<6xf16>
}

// -----

// No operand has the result's shape (a causal mask from two iotas, then unsqueezed):
// the operands would not broadcast to the new shape, so the reshape stays.
// CHECK-LABEL: func.func @broadcast_only
// CHECK:         %[[M:.*]] = aicf_tensor.ge %i, %j : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
// CHECK-NEXT:    aicf_tensor.reshape %[[M]] shape = [1, 4, 4]
func.func @broadcast_only(%i: tensor<4x1xi64>, %j: tensor<1x4xi64>) -> tensor<1x4x4xi1> {
  %m = aicf_tensor.ge %i, %j : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
  %m3 = aicf_tensor.reshape %m shape = [1, 4, 4] : (tensor<4x4xi1>) -> tensor<1x4x4xi1>
  func.return %m3 : tensor<1x4x4xi1>
}

// -----

// A reshape to rows after a normalisation: the chain above it reads a per-row value
// ([2, 3, 1]) that has no meaning over [6, 8], so the reshape could not travel the
// whole chain; it stays where it is rather than cut the chain (and its row group) in
// two.
// CHECK-LABEL: func.func @stuck_halfway
// CHECK:         %[[N:.*]] = aicf_tensor.mul %x, %s : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    %[[G:.*]] = aicf_tensor.mul %[[N]], %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reshape %[[G]] shape = [6, 8]
func.func @stuck_halfway(%x: tensor<2x3x8xf32>, %s: tensor<2x3x1xf32>, %g: tensor<8xf32>) -> tensor<6x8xf32> {
  %n = aicf_tensor.mul %x, %s : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %ng = aicf_tensor.mul %n, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %r = aicf_tensor.reshape %ng shape = [6, 8] : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  func.return %r : tensor<6x8xf32>
}

// -----

// A linear layer on [batch, seq, features], its bias and activation, then the rows of
// the next one: the first matmul takes the batch (MatmulRowsReshape), the bias and
// gelu stay in its shape, and the merge to rows does not travel back onto it (it would
// undo the batching): it stays for the second matmul's rows.
// CHECK-LABEL: func.func @two_linears
// CHECK:         %[[H:.*]] = aicf_tensor.matmul %x, %w1 : (tensor<2x3x8xf32>, tensor<8x16xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT:    %[[A:.*]] = aicf_tensor.add %[[H]], %b1 : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT:    %[[G:.*]] = aicf_tensor.gelu %[[A]] : (tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT:    %[[O:.*]] = aicf_tensor.matmul %[[G]], %w2 : (tensor<2x3x16xf32>, tensor<16x8xf32>) -> tensor<2x3x8xf32>
func.func @two_linears(%x: tensor<2x3x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>) -> tensor<2x3x8xf32> {
  %x2 = aicf_tensor.reshape %x shape = [6, 8] : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %h = aicf_tensor.matmul %x2, %w1 : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %a = aicf_tensor.add %h, %b1 : (tensor<6x16xf32>, tensor<16xf32>) -> tensor<6x16xf32>
  %a3 = aicf_tensor.reshape %a shape = [2, 3, 16] : (tensor<6x16xf32>) -> tensor<2x3x16xf32>
  %g = aicf_tensor.gelu %a3 : (tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %g2 = aicf_tensor.reshape %g shape = [6, 16] : (tensor<2x3x16xf32>) -> tensor<6x16xf32>
  %o = aicf_tensor.matmul %g2, %w2 : (tensor<6x16xf32>, tensor<16x8xf32>) -> tensor<6x8xf32>
  %o3 = aicf_tensor.reshape %o shape = [2, 3, 8] : (tensor<6x8xf32>) -> tensor<2x3x8xf32>
  func.return %o3 : tensor<2x3x8xf32>
}
