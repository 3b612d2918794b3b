// RUN: aicf-opt %s -p 'aicf-plan{target=h100},aicf-lower-to-gpu{target=h100}' | filecheck %s
// A hand-written guard that ends rows mid-vector (row d0 is 4096 - d0 points long):
// gpu.rows reads a guarded row in whole vectors, so the planner must not give it
// vec = 4 (the lowering refused the planner's schedule: "the guard cuts rows that
// are not whole vectors of 4").
// CHECK: aicf_gpu.kernel @tri_nest0
// CHECK-SAME: aicf.schedule = "gpu.rows vec=1
// CHECK: arith.minui
func.func @tri(%x: memref<4096x64xf32>, %y: memref<4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 64] iterators = [parallel, reduction]
      ins(%x : memref<4096x64xf32>) outs(%y : memref<4096xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (4095 - d0 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
