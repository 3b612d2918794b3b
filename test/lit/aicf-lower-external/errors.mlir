// RUN: not aicf-opt %s -p aicf-lower-external 2>&1 | filecheck %s
// A schedule whose argument order is not a permutation of the op's boundary buffers
// is refused at the nest, not run.

// CHECK: error: 'aicf_loop.nest' cannot be run as its external kernel: param 'args' must be a permutation of the 2 operands, got [0, 0]
// CHECK-NOT: Traceback
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "gpu.external", key = "k-0", args = array<i64: 0, 0>, workspace = 0,
               layout = "contiguous", grid = array<i64: 1, 1, 1>, block = array<i64: 32, 1, 1>, smem = 0}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
