// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// A schedule attribute is checked against its kind's declared parameters
// (dialects/schedule.py) by the nest's verifier, at the nest.
func.func @unknown_kind(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: unknown schedule kind 'gpu.magic' (known:}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.magic"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @no_kind(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule needs kind = "..." (one of}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {vec = 4}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @missing_param(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.rows needs grid, split, unroll, minblocks}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4, mode = "warp", block = 256}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @mistyped_param(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.per_output parameter 'vec' must be an integer, got "four"}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = "four", block = 256, grid = 1, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @out_of_range(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.per_output parameter 'vec' must be at least 1, got 0}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 0, block = 256, grid = 1, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @not_a_choice(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.rows parameter 'mode' must be one of warp, block, split, got grid}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4, mode = "grid", block = 256, grid = 1, split = 1, unroll = 4, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @unknown_param(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: 'threads' is not a parameter of cpu.nest (parameters: parallel, acc)}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 1, threads = 8}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @group_kind_on_nest(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' schedule kind gpu.members applies to a group, not a nest}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.members"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @bad_nested(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule.combine: gpu.rows needs vec, mode, block, grid, split, unroll, minblocks}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 4, mode = "split", block = 256, grid = 4, split = 2, unroll = 4, minblocks = 1, combine = {kind = "gpu.rows"}}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
