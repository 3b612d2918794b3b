// RUN: env COLUMNS=10000 aicf-opt --help | filecheck %s
// `aicf-opt --help` lists aicf's passes beside xDSL's own, and the output targets.

// CHECK: Available targets are:
// CHECK-SAME: mlir
// CHECK-SAME: c,cuda,ptx
// CHECK: Available passes are:
// CHECK-SAME: canonicalize
// CHECK-SAME: cse
// CHECK-SAME: dce
// CHECK-SAME: aicf-infer-shapes
// CHECK-SAME: aicf-lower-to-loops
