// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A nest's body is scalar code without memory effects (the nest's inputs and
// outputs are its only memory); an op with effects is an error at that op.

func.func @store(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction] ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    %c = arith.constant 0 : index
    // expected-error @+1 {{'memref.store' has memory effects: the body of an aicf_loop.nest is scalar code without any}}
    memref.store %a, %x[%c, %c] : memref<4x8xf32>
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func private @g(f32) -> f32
func.func @call(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    // expected-error @+1 {{'func.call' has memory effects}}
    %b = func.call @g(%a) : (f32) -> f32
    aicf_loop.yield %b : f32
  }
  func.return
}
