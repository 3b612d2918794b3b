// RUN: aicf-opt %s -p cse,dce,canonicalize | filecheck %s
// A library call writes its outputs: dead-code elimination keeps it although it has
// no results, and CSE does not merge two identical calls (the second one may read
// what a step between them wrote).

// CHECK-LABEL: func.func @twice
// CHECK-COUNT-2: aicf_gpu.library_call "cub.reduce"
func.func @twice(%x: memref<3x7xf32>, %y: memref<3xf32>) {
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<3x7xf32>) outs(%y : memref<3xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 3 : i64, cols = 7 : i64, dtype = "f32", out_dtype = "f32"}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<3x7xf32>) outs(%y : memref<3xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 3 : i64, cols = 7 : i64, dtype = "f32", out_dtype = "f32"}
  func.return
}
