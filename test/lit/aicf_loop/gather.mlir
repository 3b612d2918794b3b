// RUN: aicf-opt %s --split-input-file | aicf-opt --split-input-file | filecheck %s
// RUN: aicf-opt %s --split-input-file -p canonicalize,cse,dce | filecheck %s --check-prefix=KEEP
// aicf_loop.gather round-trips, and reads its source and indices and writes its
// output (declared memory effects): dce keeps it though it has no results.

// CHECK-LABEL: func.func @gather
// CHECK: aicf_loop.gather axis = 1 ins(%x, %i : memref<3x5xf32>, memref<2xi64>) outs(%y : memref<3x2xf32>)
// KEEP-LABEL: func.func @gather
// KEEP: aicf_loop.gather
func.func @gather(%x: memref<3x5xf32>, %i: memref<2xi64>, %y: memref<3x2xf32>) {
  aicf_loop.gather axis = 1 ins(%x, %i : memref<3x5xf32>, memref<2xi64>) outs(%y : memref<3x2xf32>)
  func.return
}
