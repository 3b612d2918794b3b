// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// An iota inside a group is computed in the nest that reads it, at the index the
// reader reads it: broadcast along d1 here, so the table is read at d0 only, inside
// the reduction's nest.
// CHECK-LABEL: func.func @row_sums
func.func @row_sums(%x: tensor<5000x4xf32>) -> tensor<5000x1xf32> {
  // CHECK:      %[[T:.*]] = memref.get_global @row_sums_cst0 : memref<128xi32>
  // CHECK-NEXT: aicf_loop.nest domain = [5000, 4] iterators = [parallel, reduction]
  // CHECK-NEXT:   ins(%x, %[[T]], %[[T]] : memref<5000x4xf32>, memref<128xi32>, memref<128xi32>)
  // CHECK-NEXT:   outs(%out0 : memref<5000x1xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> ((d0 floordiv 128)), (d0, d1) -> ((d0 mod 128)), (d0, d1) -> (d0, 0)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[HI:.*]]: i32, %[[LO:.*]]: i32):
  // CHECK-NEXT:   %[[B:.*]] = arith.constant 128 : i32
  // CHECK-NEXT:   %[[S:.*]] = arith.muli %[[HI]], %[[B]] : i32
  // CHECK-NEXT:   %[[I:.*]] = arith.addi %[[S]], %[[LO]] : i32
  // CHECK-NEXT:   %[[F:.*]] = arith.sitofp %[[I]] : i32 to f32
  // CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[X]], %[[F]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[P]] : f32
  // CHECK-NOT:  aicf_loop.nest
  %r = aicf_tensor.fused ins(%x : tensor<5000x4xf32>) -> tensor<5000x1xf32> {
  ^bb0(%0: tensor<5000x4xf32>):
    %i = aicf_tensor.iota dim = 0 : tensor<5000x1xf32>
    %m = aicf_tensor.mul %0, %i : (tensor<5000x4xf32>, tensor<5000x1xf32>) -> tensor<5000x4xf32>
    %s = aicf_tensor.reduce_sum %m axes = [1] keepdims : (tensor<5000x4xf32>) -> tensor<5000x1xf32>
    aicf_tensor.yield %s : tensor<5000x1xf32>
  }
  func.return %r : tensor<5000x1xf32>
}
