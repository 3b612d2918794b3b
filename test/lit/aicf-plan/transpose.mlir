// RUN: aicf-opt %s --split-input-file -p 'aicf-plan{target=h100}' | filecheck %s
// RUN: aicf-opt %s --split-input-file -p 'aicf-plan{target=h100 explain=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// The tiled transpose (tier 2) is taken over the per-output schedule wherever an
// input is contiguous along another dim than the output, with or without a body
// around it, batched or not; never on a nest whose operands all run along the
// output's contiguous dim (or are broadcast along it).

// CHECK-LABEL: func.func @t2d
// CHECK: kind = "gpu.transpose_tiled", tile_i = {{[0-9]+}} : i64, tile_o = {{[0-9]+}} : i64, threads = {{[0-9]+}} : i64
// EXPLAIN-LABEL: @t2d nest #0 domain=[8192, 8192]
// EXPLAIN: gpu.per_output {{.*}} (not taken: gpu.transpose_tiled is built for this shape
// EXPLAIN: -> gpu.transpose_tiled {{.*}} (load dim d0 (extent 8192), store dim d1 (extent 8192), batch 1, 1 staged input(s))
func.func @t2d(%x: memref<8192x8192xf32>, %y: memref<8192x8192xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8192, 8192] iterators = [parallel, parallel]
      ins(%x : memref<8192x8192xf32>) outs(%y : memref<8192x8192xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// x.T + y, batched [B, N, M] -> [B, M, N]: x staged, y read in place.
// CHECK-LABEL: func.func @batched_add
// CHECK: kind = "gpu.transpose_tiled"
// EXPLAIN-LABEL: @batched_add nest #0 domain=[8, 256, 512]
// EXPLAIN: -> gpu.transpose_tiled {{.*}} (load dim d1 (extent 256), store dim d2 (extent 512), batch 8, 1 staged input(s))
func.func @batched_add(%x: memref<8x512x256xf16>, %b: memref<8x256x512xf16>, %y: memref<8x256x512xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 256, 512] iterators = [parallel, parallel, parallel]
      ins(%x, %b : memref<8x512x256xf16>, memref<8x256x512xf16>) outs(%y : memref<8x256x512xf16>)
      maps = [(d0, d1, d2) -> (d0, d2, d1), (d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0, d1, d2)] {
  ^bb0(%v: f16, %w: f16):
    %s = arith.addf %v, %w : f16
    aicf_loop.yield %s : f16
  }
  func.return
}

// -----

// A plain elementwise nest (a broadcast column too): every input runs along the
// output's contiguous dim or ignores it, so there is nothing to transpose.
// CHECK-LABEL: func.func @plain
// CHECK: kind = "gpu.per_output"
// EXPLAIN-LABEL: @plain nest #0
// EXPLAIN: -> gpu.per_output
// EXPLAIN: gpu.transpose_tiled does not apply: every input is read along the outputs' contiguous dim (or broadcast): no transpose
func.func @plain(%x: memref<512x300xf32>, %c: memref<512xf32>, %y: memref<512x300xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [512, 300] iterators = [parallel, parallel]
      ins(%x, %c : memref<512x300xf32>, memref<512xf32>) outs(%y : memref<512x300xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32, %w: f32):
    %s = arith.mulf %v, %w : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// -----

// A transpose with a unit dim is a copy: the guard says so.
// CHECK-LABEL: func.func @unit
// CHECK: kind = "gpu.per_output"
// EXPLAIN-LABEL: @unit nest #0
// EXPLAIN: gpu.transpose_tiled does not apply
// EXPLAIN-SAME: : a copy
func.func @unit(%x: memref<1x5xf32>, %y: memref<5x1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [5, 1] iterators = [parallel, parallel]
      ins(%x : memref<1x5xf32>) outs(%y : memref<5x1xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// A reduction is not a transpose.
// EXPLAIN-LABEL: @colsum nest #0
// EXPLAIN: gpu.transpose_tiled does not apply: not parallel-only (a reduction)
func.func @colsum(%x: memref<64x32xf32>, %y: memref<32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [32, 64] iterators = [parallel, reduction]
      ins(%x : memref<64x32xf32>) outs(%y : memref<32xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// f64: the vectors stay within 16 bytes (vec 4 was priced as a 32-byte access and the
// planner raised a ValueError from the bank-conflict model).
// CHECK-LABEL: func.func @f64
// CHECK: kind = "gpu.transpose_tiled", {{.*}} vec_in = {{[12]}} : i64, vec_out = {{[12]}} : i64
// EXPLAIN-LABEL: @f64 nest #0
func.func @f64(%x: memref<64x32xf64>, %y: memref<32x64xf64>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [32, 64] iterators = [parallel, parallel]
      ins(%x : memref<64x32xf64>) outs(%y : memref<32x64xf64>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f64):
    aicf_loop.yield %v : f64
  }
  func.return
}
