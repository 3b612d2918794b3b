// RUN: aicf-opt %s --split-input-file --verify-diagnostics

func.func @too_few_maps(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' expected 2 indexing maps (one per input and output), got 1}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @reduction_needs_combiner(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' output #0 needs a combiner: the nest has reduction dims}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @output_uses_reduction_dim(%x: memref<4x8xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' output #0 map (d0, d1) -> (d1) uses a reduction dim}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @map_rank(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0, d1) -> (d0)) has 1 results for a rank-2 operand memref<4x8xf32>}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
      maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @yield_type(%x: memref<4xf32>, %y: memref<4xf16>) {
  // expected-error @+1 {{'aicf_loop.nest' yielded f32 for an output of element type f16}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @combiner_without_reduction(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' output #0 has combiner 'add' but the nest has no reduction dims}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @bad_iterator(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{unknown iterator type 'sideways' (expected parallel or reduction)}}
  aicf_loop.nest domain = [4] iterators = [sideways] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @body_args(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' body argument type f16 does not match input element type f32}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %e = arith.extf %a : f16 to f32
    aicf_loop.yield %e : f32
  }
  func.return
}

// -----

// A float accumulator is not converted into an integer output (a plain C cast, undefined
// past the integer's range), nor an integer one into a float output.
func.func @float_accumulator_into_int_output(%x: memref<4x8xf32>, %y: memref<4xi32>) {
  // expected-error @+1 {{'aicf_loop.nest' yielded f32 accumulates into an output of element type i32: the accumulator and the output must both be floats or both integers}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xi32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @int_accumulator_into_float_output(%x: memref<4x8xi32>, %y: memref<4xf16>) {
  // expected-error @+1 {{'aicf_loop.nest' yielded i32 accumulates into an output of element type f16: the accumulator and the output must both be floats or both integers}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xi32>) outs(%y : memref<4xf16>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
  ^bb0(%a: i32):
    aicf_loop.yield %a : i32
  }
  func.return
}
