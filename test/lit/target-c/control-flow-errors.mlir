// RUN: aicf-opt %s -p 'aicf-plan{target=cpu}' -t c --verify-diagnostics
// A loop-level function with a branch is an error at the branch, not a crash of
// the emitter.

func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  // expected-error @+1 {{'cf.br' the cpu target: a function of aicf has one block (no control flow), @f has 2}}
  cf.br ^bb1
^bb1:
  func.return
}
