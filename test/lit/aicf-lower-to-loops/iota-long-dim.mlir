// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// An iota along a dim longer than 1024 is no table of all its values: the body reads
// T[i floordiv 128] and T[i mod 128] from one table T = 0..127 (128 * 128 >= 5000) and
// computes the index in i32, converted to the element type as astype does.
// CHECK:       memref.global{{.*}}sym_name = "long_dim_cst0", type = memref<128xi32>
// CHECK-LABEL: func.func @long_dim
func.func @long_dim() -> tensor<2x5000xf16> {
  // CHECK:      %[[T:.*]] = memref.get_global @long_dim_cst0 : memref<128xi32>
  // CHECK-NEXT: aicf_loop.nest domain = [2, 5000] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%[[T]], %[[T]] : memref<128xi32>, memref<128xi32>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<2x5000xf16>)
  // CHECK-NEXT:   maps = [(d0, d1) -> ((d1 floordiv 128)), (d0, d1) -> ((d1 mod 128)), (d0, d1) -> (d0, d1)] {
  // CHECK-NEXT: ^bb0(%[[HI:.*]]: i32, %[[LO:.*]]: i32):
  // CHECK-NEXT:   %[[B:.*]] = arith.constant 128 : i32
  // CHECK-NEXT:   %[[S:.*]] = arith.muli %[[HI]], %[[B]] : i32
  // CHECK-NEXT:   %[[I:.*]] = arith.addi %[[S]], %[[LO]] : i32
  // CHECK-NEXT:   %[[F:.*]] = arith.sitofp %[[I]] : i32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[F]] : f16
  %0 = aicf_tensor.iota dim = 1 : tensor<2x5000xf16>
  func.return %0 : tensor<2x5000xf16>
}
