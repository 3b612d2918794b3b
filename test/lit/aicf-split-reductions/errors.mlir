// RUN: aicf-opt %s --split-input-file --verify-diagnostics -p aicf-split-reductions

func.func @no_combine(%x: memref<6x1000xf32>, %y: memref<6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' gpu.rows split = 4 needs a `combine` schedule for its combine nest}}
  aicf_loop.nest domain = [6, 1000] iterators = [parallel, reduction]
      ins(%x : memref<6x1000xf32>) outs(%y : memref<6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1, mode = "block", block = 64, grid = 24, split = 4, unroll = 4, minblocks = 1}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}


// -----

func.func @too_many(%x: memref<6x3xf32>, %y: memref<6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot split its reduction: split = 4 must be in 2..3, the points of its reduction}}
  aicf_loop.nest domain = [6, 3] iterators = [parallel, reduction]
      ins(%x : memref<6x3xf32>) outs(%y : memref<6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1, mode = "block", block = 64, grid = 24, split = 4, unroll = 4, minblocks = 1,
               combine = {kind = "gpu.rows", vec = 1, mode = "warp", block = 64, grid = 1, split = 1, unroll = 1, minblocks = 1}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @elementwise(%x: memref<64xf32>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot split its reduction: it has no reduction dim}}
  aicf_loop.nest domain = [64] iterators = [parallel]
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] combiners = [none]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1, block = 64, grid = 1, split = 2, unroll = 1, minblocks = 1}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
