// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics
// aicf-lower-to-gpu decides nothing: a nest without a schedule, or with one for another
// target, is an error at the nest.

func.func @unscheduled(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' has no aicf.schedule: run aicf-plan before aicf-lower-to-gpu}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @cpu_schedule(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' has a cpu.nest schedule, which is not for the GPU}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @wrong_shape(%x: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.matmul_tiled needs a matmul-shaped nest}}
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 64, bk = 16, tm = 4, tn = 4}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @partial_warp(%x: memref<6x1001xf32>, %y: memref<6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be lowered to the GPU: gpu.rows block = 33: a block must be a multiple of the warp size 32 and at most 1024 threads}}
  aicf_loop.nest domain = [6, 1001] iterators = [parallel, reduction]
      ins(%x : memref<6x1001xf32>) outs(%y : memref<6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1, mode = "block", block = 33, grid = 6, split = 1, unroll = 4, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @split_without_combine(%x: memref<6x1001xf32>, %y: memref<6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' gpu.rows split = 2 needs a `combine` schedule for its combine nest}}
  aicf_loop.nest domain = [6, 1001] iterators = [parallel, reduction]
      ins(%x : memref<6x1001xf32>) outs(%y : memref<6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1, mode = "split", block = 256, grid = 6, split = 2, unroll = 4, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @cub_wrong_op(%x: memref<6x1001xf32>, %y: memref<6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be run as cub.reduce: the schedule's op/rows/cols do not match the nest (add of 6 rows of 1001)}}
  aicf_loop.nest domain = [6, 1001] iterators = [parallel, reduction]
      ins(%x : memref<6x1001xf32>) outs(%y : memref<6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cub_reduce", op = "max", reduce_dims = 1, rows = 6, cols = 1001, dtype = "f32", out_dtype = "f32"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @cublas_short_k(%a: memref<96x64xf32>, %b: memref<64x80xf32>, %c: memref<96x80xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' cannot be run as cublas.gemm: m*n*batch*loops = 7680 and k = 32 do not cover the nest's 7680 output points and 64-point reduction}}
  aicf_loop.nest domain = [96, 80, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<96x64xf32>, memref<64x80xf32>) outs(%c : memref<96x80xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.cublas_gemm", a = 0, b = 1, m = 96, n = 80, k = 32, batch = 1, trans_a = 0, trans_b = 0, lda = 64, ldb = 80, ldc = 80, stride_a = 0, stride_b = 0, stride_c = 0, offset_a = 0, offset_b = 0, offset_c = 0, dtype = "f32", out_dtype = "f32", compute = "f32"}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

func.func @matmul_threads(%a: memref<96x64xf32>, %b: memref<64x80xf32>, %c: memref<96x80xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{: threads = 7, but (bm/tm)*(bn/tn) = 256 threads compute the tile}}
  aicf_loop.nest domain = [96, 80, 64] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<96x64xf32>, memref<64x80xf32>) outs(%c : memref<96x80xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 64, bk = 16, tm = 4, tn = 4, threads = 7}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
