// RUN: aicf-opt %s -p 'aicf-plan{target=cpu}' | filecheck %s
// A nest that already has an aicf.schedule (written by hand, by aicf-plan or by the
// planner) keeps it.

// CHECK-LABEL: func.func @kept
// CHECK: attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}}
// CHECK-NOT: cpu.blas_gemm
func.func @kept(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<64x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
