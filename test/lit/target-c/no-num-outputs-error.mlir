// RUN: aicf-opt %s -p 'aicf-plan{target=cpu}' -t c --verify-diagnostics
// Without `aicf.num_outputs` every argument is an input, emitted as a `const` pointer:
// a nest that writes one is the program's error, at the nest, not the C compiler's
// "assignment of read-only location" about the generated code.

func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' writes %y (argument #1 of @f), but @f has no aicf.num_outputs, so every argument is an input: mark its trailing output arguments with attributes {aicf.num_outputs = N : i64}}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
