// RUN: aicf-opt %s --split-input-file -p aicf-infer-shapes,canonicalize,aicf-infer-shapes --time-passes 2>&1 >/dev/null | filecheck %s
// --time-passes prints mlir-opt's execution time report on stderr, once, summed over
// the chunks: a row per pass of the pipeline (a pass given twice is two rows), the
// parser, the verifier and the output, then the total.

// CHECK: ... Execution time report ...
// CHECK: Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  Parser
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  aicf-infer-shapes
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  (verifier)
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  canonicalize
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  aicf-infer-shapes
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \( *[0-9.]+%\)}}  Output
// CHECK-NEXT: {{[0-9]+\.[0-9]+ \(100\.0%\)}}  Total
// CHECK-NOT: Execution time report
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
