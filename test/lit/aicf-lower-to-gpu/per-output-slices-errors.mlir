// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// gpu.per_output's slices (threads of a block sharing an output vector) must fold
// pairwise.

// A slice count that is not a power of two cannot fold pairwise.
func.func @odd(%x: memref<4096x512xf32>, %y: memref<512xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.per_output slices = 3 must be a power of two dividing block = 96, on a reduction}}
  aicf_loop.nest domain = [4096, 512] iterators = [reduction, parallel]
      ins(%x : memref<4096x512xf32>) outs(%y : memref<512xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 96 : i64, grid = 8 : i64, split = 1 : i64, slices = 3 : i64, unroll = 4 : i64, minblocks = 4 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// The fold's shared memory (one vector of each accumulator per thread) must fit what a
// block holds statically: 1024 threads x 4 x (f64 + f64) = 64 KiB.
func.func @big(%x: memref<4096x512xf64>, %y: memref<512xf64>, %z: memref<512xf64>) attributes {aicf.num_outputs = 2 : i64} {
  // expected-error @+1 {{gpu.per_output slices: the fold's 65536 bytes of shared memory (block x vec x accumulator bytes) exceed the 49152 a block holds statically}}
  aicf_loop.nest domain = [4096, 512] iterators = [reduction, parallel]
      ins(%x : memref<4096x512xf64>) outs(%y, %z : memref<512xf64>, memref<512xf64>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d1)] combiners = [add, max] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 1024 : i64, grid = 8 : i64, split = 1 : i64, slices = 8 : i64, unroll = 4 : i64, minblocks = 1 : i64}} {
  ^bb0(%a : f64):
    aicf_loop.yield %a, %a : f64, f64
  }
  func.return
}


// -----

// outer_grid puts the outermost parallel dim on blockIdx.y: the vectors must run
// along another dim, and it is for reductions (a split's partial).
func.func @outer_grid_vectors(%x: memref<64x4096xf32>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.per_output outer_grid = 1 needs an outermost parallel dim of at most 65535 that the vectors (vec = 4) do not run along}}
  aicf_loop.nest domain = [64, 4096] iterators = [parallel, reduction]
      ins(%x : memref<64x4096xf32>) outs(%y : memref<64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 1 : i64, outer_grid = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @outer_grid_elementwise(%x: memref<64xf32>, %y: memref<64x4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.per_output outer_grid = 1 runs reductions only}}
  aicf_loop.nest domain = [64, 4096] iterators = [parallel, parallel]
      ins(%x : memref<64xf32>) outs(%y : memref<64x4096xf32>)
      maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 1 : i64, outer_grid = 1 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
