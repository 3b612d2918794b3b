// RUN: aicf-opt %s -t c --split-input-file --verify-diagnostics
// An `acc` that does not fit the nest's outputs is an error at the nest.

func.func @count(%a: memref<8x16xf32>, %s: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' the schedule's acc = "f64,f64" names 2 accumulator type(s) for 1 output(s)}}
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f64,f64"}} {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

func.func @int_in_float(%a: memref<8x16xi32>, %s: memref<8xi32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot accumulate a i32 output in f64 on the cpu target}}
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xi32>) outs(%s : memref<8xi32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f64"}} {
  ^bb0(%x: i32):
    aicf_loop.yield %x : i32
  }
  func.return
}

// -----

func.func @unknown(%a: memref<8x16xf32>, %s: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' the schedule's acc names 'f128', not one of f64, f32, f16, bf16, i64, i32, i16, i8, i1, index}}
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f128"}} {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

// An integer accumulator narrower than the values wraps them (two i64 2^40 summed in
// i32 were 0).
func.func @narrower_int(%a: memref<8x16xi64>, %s: memref<8xi64>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot accumulate i64 values in i32, a narrower integer (they would wrap)}}
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xi64>) outs(%s : memref<8xi64>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "i32"}} {
  ^bb0(%x: i64):
    aicf_loop.yield %x : i64
  }
  func.return
}
