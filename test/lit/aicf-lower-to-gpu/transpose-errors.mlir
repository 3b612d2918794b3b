// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// A gpu.transpose_tiled schedule that does not fit the nest is reported at the nest,
// with the check that failed.

func.func @bad_vec(%x: memref<37x1000xf32>, %y: memref<1000x37xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // 37 (the output's contiguous extent) does not divide by 4
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.transpose_tiled: vec_out 4 is not a contiguous aligned access of every output}}
  aicf_loop.nest domain = [1000, 37] iterators = [parallel, parallel]
      ins(%x : memref<37x1000xf32>) outs(%y : memref<1000x37xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 256 : i64, vec_in = 1 : i64, vec_out = 4 : i64, smem = "padded"}} {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

func.func @not_transpose(%x: memref<64x32xf32>, %y: memref<64x32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.transpose_tiled needs a transposing nest: every input is read along the outputs' contiguous dim (or broadcast): no transpose}}
  aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
      ins(%x : memref<64x32xf32>) outs(%y : memref<64x32xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 256 : i64, vec_in = 1 : i64, vec_out = 1 : i64, smem = "padded"}} {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

func.func @bad_threads(%x: memref<64x32xf32>, %y: memref<32x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.transpose_tiled: a 32x32 tile does not split evenly over 96 threads}}
  aicf_loop.nest domain = [32, 64] iterators = [parallel, parallel]
      ins(%x : memref<64x32xf32>) outs(%y : memref<32x64xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 96 : i64, vec_in = 1 : i64, vec_out = 1 : i64, smem = "padded"}} {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

func.func @f64_vec4(%x: memref<64x32xf64>, %y: memref<32x64xf64>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.transpose_tiled: vectors 4/1 of 8-byte elements: an access moves at most 16 bytes}}
  aicf_loop.nest domain = [32, 64] iterators = [parallel, parallel]
      ins(%x : memref<64x32xf64>) outs(%y : memref<32x64xf64>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 256 : i64, vec_in = 4 : i64, vec_out = 1 : i64, smem = "padded"}} {
  ^bb0(%v: f64):
    aicf_loop.yield %v : f64
  }
  func.return
}
