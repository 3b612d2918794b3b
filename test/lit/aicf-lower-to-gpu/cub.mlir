// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file | filecheck %s
// A nest whose aicf.schedule is {kind = "gpu.cub_reduce", ...} becomes one
// aicf_gpu.library_call "cub.reduce" (CuPy's sum/max over the trailing axes).

// CHECK-LABEL: func.func @rows
// CHECK-NOT:   aicf_loop.nest
// CHECK:       aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x1000xf32>) outs(%y : memref<4xf32>)
// CHECK-SAME:  params = {op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 1000 : i64, dtype = "f32", out_dtype = "f32"}
// CHECK-NEXT:  func.return
func.func @rows(%x: memref<4x1000xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 1000] iterators = [parallel, reduction]
      ins(%x : memref<4x1000xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cub_reduce", op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 1000 : i64, dtype = "f32", out_dtype = "f32"}} {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// A max over two trailing dims of a strided f16 input, into a keepdims output.
// CHECK-LABEL: func.func @max2
// CHECK:       aicf_gpu.library_call "cub.reduce" ins(%x : memref<2x4x8xf16, strided<[?, ?, ?], offset: ?>>) outs(%y : memref<2x1x1xf16>)
// CHECK-SAME:  params = {op = "max", reduce_dims = 2 : i64, rows = 2 : i64, cols = 32 : i64, dtype = "f16", out_dtype = "f16"}
func.func @max2(%x: memref<2x4x8xf16, strided<[?, ?, ?], offset: ?>>, %y: memref<2x1x1xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 4, 8] iterators = [parallel, reduction, reduction]
      ins(%x : memref<2x4x8xf16, strided<[?, ?, ?], offset: ?>>) outs(%y : memref<2x1x1xf16>)
      maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0, 0, 0)] combiners = [max]
      attrs = {aicf.schedule = {kind = "gpu.cub_reduce", op = "max", reduce_dims = 2 : i64, rows = 2 : i64, cols = 32 : i64, dtype = "f16", out_dtype = "f16"}} {
  ^bb0(%v: f16):
    %w = arith.extf %v : f16 to f32
    aicf_loop.yield %w : f32
  }
  func.return
}
