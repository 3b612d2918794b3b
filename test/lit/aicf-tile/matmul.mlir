// RUN: aicf-opt %s -p 'aicf-plan{target=h100 force="gpu.matmul_tiled"},aicf-tile' --split-input-file | filecheck %s
// aicf-tile records how each planned matmul nest is cut: per domain dim its role,
// the extent a block covers per step, a thread's register tile, the blocks along it,
// the sequential steps and where it maps (grid.x/y/z or seq).

// Batched with a broadcast batch dim (B has none): batch -> grid.z.
// CHECK-LABEL: func.func @batched
// CHECK: aicf.tiling = {roles = ["batch", "m", "n", "k"], tile = array<i64: 1, 128, 128, 16>, thread = array<i64: 1, 8, 8, 1>, grid = array<i64: 8, 4, 4, 1>, steps = array<i64: 1, 1, 1, 32>, map = ["grid.z", "grid.y", "grid.x", "seq"]}
func.func @batched(%a: memref<8x512x512xf32>, %b: memref<512x512xf32>, %c: memref<8x512x512xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 512, 512, 512] iterators = [parallel, parallel, parallel, reduction]
      ins(%a, %b : memref<8x512x512xf32>, memref<512x512xf32>) outs(%c : memref<8x512x512xf32>)
      maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A schedule written by hand is kept (aicf-plan leaves it) and tiled as written;
// partial tiles: ceil(100/64) = 2 blocks along m, ceil(70/16) = 5 steps along k.
// CHECK-LABEL: func.func @given
// CHECK: aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64 : i64, bn = 32 : i64, bk = 16 : i64, tm = 4 : i64, tn = 4 : i64}
// CHECK-SAME: aicf.tiling = {roles = ["m", "n", "k"], tile = array<i64: 64, 32, 16>, thread = array<i64: 4, 4, 1>, grid = array<i64: 2, 2, 1>, steps = array<i64: 1, 1, 5>, map = ["grid.y", "grid.x", "seq"]}
func.func @given(%a: memref<100x70xf32>, %b: memref<70x40xf32>, %c: memref<100x40xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [100, 40, 70] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<100x70xf32>, memref<70x40xf32>) outs(%c : memref<100x40xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 32, bk = 16, tm = 4, tn = 4}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// The output's last dim is n: here C is written transposed (C[n, m]), so "n" is the
// domain dim C's rows run along, whichever input it comes from.
// CHECK-LABEL: func.func @transposed_out
// CHECK: aicf.tiling = {roles = ["n", "m", "k"]
func.func @transposed_out(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<48x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<48x64xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d1, d0)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
