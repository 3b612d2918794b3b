// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops --print-between-passes 2>&1 >/dev/null | filecheck %s
// The IR after every pass, the last one included, on stderr (as mlir-opt's
// --mlir-print-ir-after-all), so stdout keeps only the result.

// CHECK: // -----// IR Dump After aicf-infer-shapes //----- //
// CHECK-NEXT: builtin.module
// CHECK: aicf_tensor.exp {{.*}} -> tensor<4xf32>
// CHECK: // -----// IR Dump After aicf-lower-to-loops //----- //
// CHECK-NEXT: builtin.module
// CHECK: aicf_loop.nest
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
