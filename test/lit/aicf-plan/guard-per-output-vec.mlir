// RUN: aicf-opt %s -p 'aicf-plan{target=h100 force="gpu.per_output"},aicf-lower-to-gpu{target=h100}' | filecheck %s
// A hand-written guard that reads the dim gpu.per_output would vectorise (column d0
// sums d0 + 1 points): the lanes of one vector would need bounds of their own, so the
// planner must give it vec = 1 (it gave vec = 4, which the lowering refused: "the
// guard's bound reads d0, which a thread's lanes do not share").
// CHECK: aicf_gpu.kernel @tric_nest0
// CHECK-SAME: aicf.schedule = "gpu.per_output vec=1
// CHECK: arith.minui
func.func @tric(%x: memref<4x65536xf32>, %y: memref<65536xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [65536, 4] iterators = [parallel, reduction]
      ins(%x : memref<4x65536xf32>) outs(%y : memref<65536xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (d0 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
