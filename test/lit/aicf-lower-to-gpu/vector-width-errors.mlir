// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// A hand-written schedule's vector width must fit the nest: the kernels were built
// anyway before, covering part of each row (gpu.rows, gpu.row_group) or indexing
// past the buffer (gpu.per_output), without a word. The ops a lowering builds carry
// the nest's location, so their verifiers' errors point at it too.

func.func @rows(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.rows vec = 3 does not divide the row's 8 elements (peel = 1 folds the rest)}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction] ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 3, mode = "warp", block = 256, grid = 4, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @per_output(%x: memref<7x4xf32>, %y: memref<4x7xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.per_output vec = 2 must divide the innermost parallel extent (7; a tail is built for one parallel dim without reduction only)}}
  aicf_loop.nest domain = [4, 7] iterators = [parallel, parallel] ins(%x : memref<7x4xf32>) outs(%y : memref<4x7xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 2, block = 32, grid = 1, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @per_output_no_parallel_dim(%x: memref<8xf32>, %y: memref<f32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.per_output vec = 4 must divide the innermost parallel extent (none;}}
  aicf_loop.nest domain = [8] iterators = [reduction] ins(%x : memref<8xf32>) outs(%y : memref<f32>)
      maps = [(d0) -> (d0), (d0) -> ()] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4, block = 32, grid = 1, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @row_group(%x: memref<8x1000xf32>, %out: memref<8x1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.group' cannot be lowered to the GPU: gpu.row_group rows = registers, per = 1: 64 lanes hold 64 of a row's 250 vectors}}
  aicf_loop.group shared = [8] attributes {aicf.schedule = {kind = "gpu.row_group", mode = "block", block = 64 : i64, grid = 8 : i64, vec = 4 : i64, rows = "registers", per = 1 : i64, bps = 4 : i64, launch = "once", pipeline = 0 : i64, unroll = 4 : i64}} {
    aicf_loop.nest domain = [8, 1000] iterators = [parallel, reduction]
      ins(%x : memref<8x1000xf32>) outs(%out : memref<8x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}

// -----

func.func @row_group_vec(%x: memref<8x1000xf32>, %out: memref<8x1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.group' cannot be lowered to the GPU: gpu.row_group vec = 3 does not divide the rows of 1000 elements}}
  aicf_loop.group shared = [8] attributes {aicf.schedule = {kind = "gpu.row_group", mode = "block", block = 256 : i64, grid = 8 : i64, vec = 3 : i64, rows = "registers", per = 2 : i64, bps = 4 : i64, launch = "once", pipeline = 0 : i64, unroll = 4 : i64}} {
    aicf_loop.nest domain = [8, 1000] iterators = [parallel, reduction]
      ins(%x : memref<8x1000xf32>) outs(%out : memref<8x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}
