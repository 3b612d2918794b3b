// RUN: aicf-opt %s --verify-diagnostics
// A region opened where a block was expected (here: a nest's attributes written after
// its body) names what it expected; xDSL's message was ` in block definition` alone.

func.func @f(%x: memref<2xf32>, %z: memref<1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1, 2] iterators = [parallel, reduction]
      ins(%x : memref<2xf32>) outs(%z : memref<1xf32>)
      maps = [(d0, d1) -> (d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  // expected-error @+1 {{expected a block label (^name) in block definition}}
  } {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}}
  func.return
}
