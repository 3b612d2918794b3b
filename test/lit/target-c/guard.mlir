// RUN: aicf-opt %s -t c --split-input-file | filecheck %s
// A guarded nest's bounded dim runs to min(extent, bound + 1), the bound computed
// from the enclosing loops' indices (a split's last, shorter chunk).

// Inner reduction: chunk i1 of row i0 is min(30, 100 - 30 * i1) points long.
// CHECK-LABEL: int aicf_rows
// CHECK: for (int64_t i0 = 0; i0 < 5; ++i0) {
// CHECK: for (int64_t i1 = 0; i1 < 4; ++i1) {
// CHECK: for (int64_t i2 = 0; i2 < ((((i1 * INT64_C(-30)) + 99) + 1) < 30 ? (((i1 * INT64_C(-30)) + 99) + 1) : 30); ++i2) {
func.func @rows(%x: memref<5x100xf32>, %y: memref<5x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [5, 4, 30] iterators = [parallel, parallel, reduction]
      ins(%x : memref<5x100xf32>) outs(%y : memref<5x4xf32>)
      maps = [(d0, d1, d2) -> (d0, d1 * 30 + d2), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      guard = (d0, d1, d2) : (99 - d1 * 30 - d2 >= 0)
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Outer reduction (the chunk index outermost, a parallel dim after the bounded one).
// CHECK-LABEL: int aicf_cols
// CHECK: for (int64_t i0 = 0; i0 < 4; ++i0) {
// CHECK: for (int64_t i1 = 0; i1 < ((((i0 * INT64_C(-30)) + 99) + 1) < 30 ? (((i0 * INT64_C(-30)) + 99) + 1) : 30); ++i1) {
// CHECK: for (int64_t i2 = 0; i2 < 8; ++i2) {
func.func @cols(%x: memref<100x8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 30, 8] iterators = [parallel, reduction, parallel]
      ins(%x : memref<100x8xf32>) outs(%y : memref<4x8xf32>)
      maps = [(d0, d1, d2) -> (d0 * 30 + d1, d2), (d0, d1, d2) -> (d0, d2)] combiners = [add]
      guard = (d0, d1, d2) : (99 - d0 * 30 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// A shared loop over a triangle (a scan: element i0 folds i0 + 1 points) deals its
// iterations round-robin: contiguous blocks gave the last of two threads 3/4 of the work.
// CHECK-LABEL: int aicf_triangle
// CHECK: #pragma omp parallel for schedule(static, 1)
// CHECK-NEXT: for (int64_t i0 = 0; i0 < 64; ++i0) {
// CHECK: for (int64_t i1 = 0; i1 < ((i0 + 1) < 64 ? (i0 + 1) : 64); ++i1) {
func.func @triangle(%x: memref<64xf32>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 64] iterators = [parallel, reduction]
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>)
      maps = [(d0, d1) -> (d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (d0 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// The same for an outer reduction (a scan along a leading axis).
// CHECK-LABEL: int aicf_triangle_cols
// CHECK: #pragma omp parallel for schedule(static, 1)
// CHECK-NEXT: for (int64_t i0 = 0; i0 < 16; ++i0) {
func.func @triangle_cols(%x: memref<16x8xf32>, %y: memref<16x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [16, 16, 8] iterators = [parallel, reduction, parallel]
      ins(%x : memref<16x8xf32>) outs(%y : memref<16x8xf32>)
      maps = [(d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d2)] combiners = [add]
      guard = (d0, d1, d2) : (d0 - d1 >= 0)
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
