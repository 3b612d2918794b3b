// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A nest's guard takes one form, the ragged bound of its outermost reduction dim by
// the parallel dims before it (a split's last chunk), and its accesses are checked
// inside the guard.

func.func @two_constraints(%x: memref<4x100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{guard ((d0, d1) : (((d1 * -1) + 9) >= 0, d0 >= 0)) must be one `>= 0` constraint}}
  aicf_loop.nest domain = [4, 100] iterators = [parallel, reduction]
      ins(%x : memref<4x100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (9 - d1 >= 0, d0 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @bounds_a_parallel_dim(%x: memref<4x100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{must be `B - d1 >= 0` for the outermost reduction dim d1, with B affine in the parallel dims before it}}
  aicf_loop.nest domain = [4, 100] iterators = [parallel, reduction]
      ins(%x : memref<4x100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (2 - d0 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @reads_a_later_dim(%x: memref<100x4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{must be `B - d0 >= 0` for the outermost reduction dim d0, with B affine in the parallel dims before it}}
  aicf_loop.nest domain = [100, 4] iterators = [reduction, parallel]
      ins(%x : memref<100x4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add]
      guard = (d0, d1) : (50 + d1 - d0 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// chunks of 30 over 100 points: the guard keeps the last chunk's reads inside; a
// guard one point too loose does not
func.func @past_the_end(%x: memref<100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{map #0 ((d0, d1) -> (((d0 * 30) + d1))) may reach index 100 of dim 0 of memref<100xf32> (extent 100)}}
  aicf_loop.nest domain = [4, 30] iterators = [parallel, reduction]
      ins(%x : memref<100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0 * 30 + d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (100 - d0 * 30 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @no_reduction(%x: memref<100xf32>, %y: memref<100xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{must bound the outermost reduction dim by an affine sum of parallel dims}}
  aicf_loop.nest domain = [100] iterators = [parallel]
      ins(%x : memref<100xf32>) outs(%y : memref<100xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      guard = (d0) : (50 - d0 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// the emitters compute the loop's end, bound + 1, in 64-bit integers: a bound at the
// top of int64 would wrap there (the C loop ran no point at all)
func.func @end_wraps(%x: memref<4x100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{guard ((d0, d1) : (((d1 * -1) + 9223372036854775807) >= 0)) overflows 64-bit index arithmetic: 9223372036854775808 (in the loop's end, bound + 1) reaches 9223372036854775808 over the domain [4, 100]}}
  aicf_loop.nest domain = [4, 100] iterators = [parallel, reduction]
      ins(%x : memref<4x100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (9223372036854775807 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @bound_term_wraps(%x: memref<4x100xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{overflows 64-bit index arithmetic: (d0 * 4611686018427387904) (in the loop's end, bound + 1) reaches 13835058055282163712 over the domain [4, 100]}}
  aicf_loop.nest domain = [4, 100] iterators = [parallel, reduction]
      ins(%x : memref<4x100xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      guard = (d0, d1) : (d0 * 4611686018427387904 - d1 >= 0) {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
