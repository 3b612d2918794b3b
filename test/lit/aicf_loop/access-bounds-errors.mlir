// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every access of a nest stays inside its buffer for the whole iteration domain
// (interval arithmetic over the affine maps): a nest that would read or write out of
// bounds is rejected, not compiled into a heap overflow.

func.func @write_past_the_end(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #1 ((d0) -> ((d0 + 1))) may reach index 4 of dim 0 of memref<4xf32> (extent 4) over the domain [4]}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0 + 1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @read_before_the_start(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0) -> ((d0 + -2))) may reach index -2 of dim 0 of memref<4xf32> (extent 4) over the domain [4]}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0 - 2), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @domain_larger_than_buffer(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0, d1) -> (d0, d1)) may reach index 15 of dim 1 of memref<4x8xf32> (extent 8) over the domain [4, 16]}}
  aicf_loop.nest domain = [4, 16] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @reshape_read_out_of_range(%x: memref<4x8xf32>, %y: memref<64xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0) -> ((d0 floordiv 8), (d0 mod 8))) may reach index 7 of dim 0 of memref<4x8xf32> (extent 4) over the domain [64]}}
  aicf_loop.nest domain = [64] iterators = [parallel] ins(%x : memref<4x8xf32>) outs(%y : memref<64xf32>)
      maps = [(d0) -> (d0 floordiv 8, d0 mod 8), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @division_by_zero_in_a_map(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0) -> ((d0 mod 0))) divides by 0}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0 mod 0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// An empty domain accesses nothing, whatever the maps say.
// CHECK: func.func @empty_domain
func.func @empty_domain(%x: memref<4xf32>, %y: memref<4xf32>) {
  aicf_loop.nest domain = [0] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0 + 100), (d0) -> (d0 + 100)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
