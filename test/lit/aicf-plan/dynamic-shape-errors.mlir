// RUN: aicf-opt %s -p 'aicf-plan{target=cpu}' --verify-diagnostics
// RUN: aicf-opt %s -p 'aicf-plan{target=h100}' --verify-diagnostics
// The planner plans static extents: a nest over a dynamic memref is an error at the
// nest (a GPU schedule was computed from the -2^63 placeholder before).

func.func @f(%x: memref<?x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' operand memref<?x8xf32> has dynamic dims: aicf-plan needs static shapes (specialise them first)}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction] ins(%x : memref<?x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
