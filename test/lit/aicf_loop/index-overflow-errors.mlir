// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The emitters compute every subexpression of an access map in 64-bit integers
// (int64_t on the cpu target): a map whose exact range is inside the buffer, but
// whose intermediate values leave int64 over the domain, would wrap there (a wrong
// element, or an access far out of bounds). It is rejected, naming the value.

func.func @product_wraps_then_divided_back(%x: memref<8xf32>, %y: memref<80000000xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #1 ((d0) -> (((((d0 * 4611686018427387904) + 5) floordiv 4611686018427387904) * 10000000))) overflows 64-bit index arithmetic: (d0 * 4611686018427387904) reaches 32281802128991715328 in result 0 over the domain [8]}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<80000000xf32>)
      maps = [(d0) -> (d0), (d0) -> (((d0 * 4611686018427387904 + 5) floordiv 4611686018427387904) * 10000000)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @product_wraps_then_mod(%x: memref<8xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0) -> (((d0 * 4611686018427387904) mod 3))) overflows 64-bit index arithmetic: (d0 * 4611686018427387904) reaches 32281802128991715328 in result 0 over the domain [8]}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0) -> ((d0 * 4611686018427387904) mod 3), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @negative_product_wraps(%x: memref<8xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0) -> (((d0 * -4611686018427387904) mod 7))) overflows 64-bit index arithmetic: (d0 * -4611686018427387904) reaches -32281802128991715328 in result 0 over the domain [8]}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0) -> ((d0 * -4611686018427387904) mod 7), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// A constant past int64 is a value the emitted code cannot hold, even times 0.
func.func @constant_past_int64(%x: memref<8xf32>, %y: memref<8xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0, d1) -> ((d0 + (d1 * 18446744073709551616)))) overflows 64-bit index arithmetic: 18446744073709551616 reaches 18446744073709551616 in result 0 over the domain [8, 1]}}
  aicf_loop.nest domain = [8, 1] iterators = [parallel, parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0, d1) -> (d0 + d1 * 18446744073709551616), (d0, d1) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// A sum that wraps (each term fits), in the second result.
func.func @sum_wraps(%x: memref<8x8xf32>, %y: memref<2x2xf32>) {
  // expected-error @+1 {{'aicf_loop.nest' map #0 ((d0, d1) -> (d0, (((d0 * 4611686018427387904) + (d1 * 4611686018427387904)) mod 8))) overflows 64-bit index arithmetic: ((d0 * 4611686018427387904) + (d1 * 4611686018427387904)) reaches 9223372036854775808 in result 1 over the domain [2, 2]}}
  aicf_loop.nest domain = [2, 2] iterators = [parallel, parallel] ins(%x : memref<8x8xf32>) outs(%y : memref<2x2xf32>)
      maps = [(d0, d1) -> (d0, (d0 * 4611686018427387904 + d1 * 4611686018427387904) mod 8), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Up to the edge of int64 is fine: 2^62 * 1 + (2^62 - 1) = 2^63 - 1, and the
// intermediate values of a floordiv or mod of a negative dividend stay small.
// CHECK-LABEL: func.func @at_the_edge
func.func @at_the_edge(%x: memref<8xf32>, %y: memref<8xf32>) {
  aicf_loop.nest domain = [2] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0) -> ((d0 * 4611686018427387904 + 4611686018427387903) floordiv 4611686018427387904), (d0) -> ((d0 - 5) floordiv 2 + 3)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
