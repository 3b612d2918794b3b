// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// Dense constants become private constant memref.globals (placed before the
// function) read with memref.get_global; a returned constant is copied into its
// output.

// CHECK:      "memref.global"() <{sym_name = "f_cst0", type = memref<2x2xf32>, initial_value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>, sym_visibility = "private", constant}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "f_cst1", type = memref<f32>, initial_value = dense<1.500000e+00> : tensor<f32>, sym_visibility = "private", constant}> : () -> ()
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: memref<2x2xf32>, %[[OUT0:.*]]: memref<2x2xf32>, %[[OUT1:.*]]: memref<f32>)
func.func @f(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<f32>) {
  // CHECK:      %[[C:.*]] = memref.get_global @f_cst0 : memref<2x2xf32>
  %c = aicf_tensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK-NEXT: %[[S:.*]] = memref.get_global @f_cst1 : memref<f32>
  %s = aicf_tensor.constant dense<1.5> : tensor<f32>
  // CHECK-NEXT: aicf_loop.nest domain = [2, 2] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%[[X]], %[[C]] : memref<2x2xf32>, memref<2x2xf32>)
  // CHECK-NEXT:   outs(%[[OUT0]] : memref<2x2xf32>)
  %0 = aicf_tensor.add %x, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK:      aicf_loop.nest domain = [] iterators = []
  // CHECK-NEXT:   ins(%[[S]] : memref<f32>)
  // CHECK-NEXT:   outs(%[[OUT1]] : memref<f32>)
  // CHECK-NEXT:   maps = [() -> (), () -> ()] {
  // CHECK-NOT:  memref.dealloc
  // CHECK:      func.return
  func.return %0, %s : tensor<2x2xf32>, tensor<f32>
}

// -----

// Names do not collide with existing symbols.
// CHECK-LABEL: func.func @g_cst0(
func.func @g_cst0() -> tensor<i32> {
  %c = aicf_tensor.constant dense<7> : tensor<i32>
  func.return %c : tensor<i32>
}
// CHECK: sym_name = "g_cst1"
// CHECK-LABEL: func.func @g(
func.func @g() -> tensor<i32> {
  // CHECK: memref.get_global @g_cst1 : memref<i32>
  %c = aicf_tensor.constant dense<3> : tensor<i32>
  func.return %c : tensor<i32>
}
