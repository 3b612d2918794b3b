// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// Both consumers join the producer's group: exp is computed once, in registers.
// CHECK-LABEL: func.func @two_consumers_one_group
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = aicf_tensor.fused ins(%x : tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
// CHECK:           aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.sin
// CHECK-NEXT:      aicf_tensor.cos
// CHECK-NEXT:      aicf_tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @two_consumers_one_group(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = aicf_tensor.exp %x : (tensor<256xf32>) -> tensor<256xf32>
  %a = aicf_tensor.sin %e : (tensor<256xf32>) -> tensor<256xf32>
  %b = aicf_tensor.cos %e : (tensor<256xf32>) -> tensor<256xf32>
  func.return %a, %b : tensor<256xf32>, tensor<256xf32>
}

// Materialised: the value is also returned, so the group writes it once and keeps
// using it inside.
// CHECK-LABEL: func.func @returned_and_consumed
// CHECK-NEXT:    %[[E:.*]], %[[A:.*]] = aicf_tensor.fused ins(%x : tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
// CHECK:           %[[E1:.*]] = aicf_tensor.exp
// CHECK-NEXT:      %[[A1:.*]] = aicf_tensor.sin %[[E1]]
// CHECK-NEXT:      aicf_tensor.yield %[[E1]], %[[A1]]
// CHECK:         func.return %[[E]], %[[A]]
func.func @returned_and_consumed(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = aicf_tensor.exp %x : (tensor<256xf32>) -> tensor<256xf32>
  %a = aicf_tensor.sin %e : (tensor<256xf32>) -> tensor<256xf32>
  func.return %e, %a : tensor<256xf32>, tensor<256xf32>
}

// Recomputed: the two reductions fold different axes, so they cannot share a group;
// exp is cheap, so each group recomputes it from x instead of writing a 64x32
// temporary and reading it twice.
// CHECK-LABEL: func.func @recompute_for_two_reductions
// CHECK-NEXT:    %[[R0:.*]] = aicf_tensor.fused ins(%x : tensor<64x32xf32>) -> tensor<32xf32> {
// CHECK:           aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.reduce_sum %{{.*}} axes = [0]
// CHECK:         %[[R1:.*]] = aicf_tensor.fused ins(%x : tensor<64x32xf32>) -> tensor<64xf32> {
// CHECK:           aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.reduce_sum %{{.*}} axes = [1]
// CHECK:         func.return %[[R0]], %[[R1]]
// CHECK-NOT:     aicf_tensor.exp
func.func @recompute_for_two_reductions(%x: tensor<64x32xf32>) -> (tensor<32xf32>, tensor<64xf32>) {
  %p = aicf_tensor.exp %x : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %r0 = aicf_tensor.reduce_sum %p axes = [0] : (tensor<64x32xf32>) -> tensor<32xf32>
  %r1 = aicf_tensor.reduce_sum %p axes = [1] : (tensor<64x32xf32>) -> tensor<64xf32>
  func.return %r0, %r1 : tensor<32xf32>, tensor<64xf32>
}

// Materialised for a later op that cannot be fused: the matmul reads the value, so
// the group writes it out; the rest of the chain still fuses with it.
// CHECK-LABEL: func.func @needed_by_matmul
// CHECK-NEXT:    %[[T:.*]], %[[U:.*]] = aicf_tensor.fused ins(%x : tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
// CHECK:           aicf_tensor.tanh
// CHECK-NEXT:      aicf_tensor.neg
// CHECK:         aicf_tensor.matmul %[[T]], %w
func.func @needed_by_matmul(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %t = aicf_tensor.tanh %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = aicf_tensor.neg %t : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = aicf_tensor.matmul %t, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %u, %m : tensor<8x8xf32>, tensor<8x8xf32>
}
