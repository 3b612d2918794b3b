// RUN: not aicf-opt %s -t c 2>&1 | filecheck %s
// A nest scheduled as an external kernel this process has never seen (not
// registered, not admitted by the gate into the cache) is an error at the nest,
// not a guess.

// CHECK: error: 'aicf_loop.nest' is scheduled as the external kernel 'nowhere-000000000000', which this process does not know
// CHECK-NOT: Traceback
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "cpu.external", key = "nowhere-000000000000", args = array<i64: 0, 1>,
               workspace = 0, layout = "contiguous"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
