// RUN: aicf-opt %s -p aicf-plan{target=cpu},aicf-to-upstream --print-no-properties | filecheck %s
// Schedules (how aicf runs a nest or group: threads, BLAS, per-slice groups) have no
// upstream meaning and are dropped; what the nest computes is lowered as always.

// CHECK-LABEL: func.func @gemm
// CHECK-NOT:     aicf.schedule
// CHECK:         scf.for
// CHECK:           arith.mulf
// CHECK:         func.return
func.func @gemm(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 64, 64] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] {
  ^bb0(%x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
