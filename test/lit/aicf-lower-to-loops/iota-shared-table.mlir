// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// Iotas of dims of one length share one table, whatever their element types and dims.
// CHECK:       memref.global{{.*}}sym_name = "shared_cst0", type = memref<64xi32>
// CHECK-NOT:   memref.global
// CHECK-LABEL: func.func @shared
func.func @shared() -> (tensor<2x2000xbf16>, tensor<2000x3xi32>) {
  // CHECK:     %[[T:.*]] = memref.get_global @shared_cst0 : memref<64xi32>
  // CHECK-NOT: memref.get_global
  // CHECK:     aicf_loop.nest domain = [2, 2000]
  // CHECK-NEXT:  ins(%[[T]], %[[T]] : memref<64xi32>, memref<64xi32>)
  // CHECK:       arith.sitofp %{{.*}} : i32 to bf16
  // CHECK:     aicf_loop.nest domain = [2000, 3]
  // CHECK-NEXT:  ins(%[[T]], %[[T]] : memref<64xi32>, memref<64xi32>)
  // CHECK:       maps = [(d0, d1) -> ((d0 floordiv 64)), (d0, d1) -> ((d0 mod 64)), (d0, d1) -> (d0, d1)] {
  %0 = aicf_tensor.iota dim = 1 : tensor<2x2000xbf16>
  %1 = aicf_tensor.iota dim = 0 : tensor<2000x3xi32>
  func.return %0, %1 : tensor<2x2000xbf16>, tensor<2000x3xi32>
}
