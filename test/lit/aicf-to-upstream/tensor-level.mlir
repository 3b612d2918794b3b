// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties | filecheck %s
// A tensor-level program goes through aicf.compile's tensor pipeline for the cpu
// target first (shapes, canonicalisation, fusion, aicf-lower-to-loops): the result
// has destination-passing signatures and upstream ops only. Constants become
// memref.global (printed with attributes, not MLIR 16-unknown properties).

// CHECK:       "memref.global"() {sym_name = "scale_cst0", type = memref<4xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>, sym_visibility = "private", constant} : () -> ()
// CHECK-LABEL: func.func @scale
// CHECK-SAME:    (%x: memref<3x4xf32>, %out0: memref<3xf32>) attributes {aicf.num_outputs = 1 : i64}
// CHECK-NOT:     aicf_
// CHECK:         memref.get_global @scale_cst0 : memref<4xf32>
// CHECK:         scf.for
// CHECK:         func.return
func.func @scale(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %c = aicf_tensor.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = aicf_tensor.mul %x, %c : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.reduce_max %0 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
