// RUN: aicf-opt %s -p 'aicf-plan{target=h100 force="gpu.matmul_tiled"}' --split-input-file | filecheck %s
// On a GPU, matmul-shaped nests get a gpu.matmul_tiled schedule: a point of the
// tiled space the cost model ranks first, written as the aicf.schedule dictionary.

// A 4096^3 f32 matmul: FMA-bound, float4 loads of A along k and of B along n.
// CHECK-LABEL: func.func @big
// CHECK: aicf.schedule = {kind = "gpu.matmul_tiled", bm = {{[0-9]+}} : i64, bn = {{[0-9]+}} : i64, bk = {{[0-9]+}} : i64, tm = {{[0-9]+}} : i64, tn = {{[0-9]+}} : i64, threads = {{[0-9]+}} : i64, stages = 2 : i64, vec_a = 4 : i64, dim_a = "k", vec_b = 4 : i64, dim_b = "n", vec_c = 4 : i64, swizzle = {{true|false}}, bps = {{[0-9]+}} : i64, regs_est = {{[0-9]+}} : i64, bound = "fma", est_ns = {{[0-9]+}} : i64}
func.func @big(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 4096, 4096] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>) outs(%c : memref<4096x4096xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// N = 33 is odd: no vector access to B or C along n; f16 inputs take 8-wide loads.
// CHECK-LABEL: func.func @odd_f16
// CHECK: aicf.schedule = {kind = "gpu.matmul_tiled"
// CHECK-SAME: vec_a = 8 : i64, dim_a = "k", vec_b = 1 : i64
// CHECK-SAME: vec_c = 1 : i64
func.func @odd_f16(%a: memref<2x64x128xf16>, %b: memref<128x33xf16>, %c: memref<2x64x33xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 64, 33, 128] iterators = [parallel, parallel, parallel, reduction]
      ins(%a, %b : memref<2x64x128xf16>, memref<128x33xf16>) outs(%c : memref<2x64x33xf16>)
      maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add] {
  ^bb0(%x: f16, %w: f16):
    %xf = arith.extf %x : f16 to f32
    %wf = arith.extf %w : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Not matmuls: an elementwise nest, a matrix-vector product (one input misses no
// parallel dim), a sum whose body is not a product: the generic schedules (the
// last reads x across rows: threads owning outputs, not a row reduction).
// CHECK-LABEL: func.func @others
// CHECK: aicf.schedule = {kind = "gpu.per_output"
// CHECK: aicf.schedule = {kind = "gpu.rows"
// CHECK: aicf.schedule = {kind = "gpu.per_output"
// CHECK-NOT: gpu.matmul_tiled
func.func @others(%x: memref<8x16xf32>, %v: memref<16xf32>, %y: memref<8x16xf32>, %z: memref<8xf32>, %s: memref<8x8xf32>) attributes {aicf.num_outputs = 3 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, parallel]
      ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    aicf_loop.yield %e : f32
  }
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%x, %v : memref<8x16xf32>, memref<16xf32>) outs(%z : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    aicf_loop.yield %p : f32
  }
  aicf_loop.nest domain = [8, 8, 16] iterators = [parallel, parallel, reduction]
      ins(%x, %x : memref<8x16xf32>, memref<8x16xf32>) outs(%s : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %p = arith.addf %a, %b : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// f64: the tiled kernel's tiles and accumulators are f32, so its guard refuses it,
// forced or not (it rounded every operand and product to f32); gpu.per_output
// accumulates in f64.
// CHECK-LABEL: func.func @f64
// CHECK: aicf.schedule = {kind = "gpu.per_output"
func.func @f64(%a: memref<256x128xf64>, %b: memref<128x96xf64>, %c: memref<256x96xf64>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [256, 96, 128] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<256x128xf64>, memref<128x96xf64>) outs(%c : memref<256x96xf64>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f64, %w: f64):
    %p = arith.mulf %x, %w : f64
    aicf_loop.yield %p : f64
  }
  func.return
}
