// RUN: aicf-opt %s --split-input-file -p aicf-lower-to-gpu | filecheck %s
// math = "approx" (aicf/math_precision.py): the builder marks the special functions
// whose results are only rounded to f16/bf16 with `fastmath<afn>`; the others (and
// every op of a "precise" schedule) stay unmarked.

// CHECK-LABEL: aicf_gpu.kernel @chain_nest0
// CHECK: math.sin %{{.*}} fastmath<afn> : f32
// CHECK: math.tanh %{{.*}} fastmath<afn> : f32
// CHECK-NOT: fastmath
// CHECK: aicf_gpu.return
func.func @chain(%x: memref<1024xf16>, %y: memref<1024xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1 : i64, block = 256 : i64, grid = 4 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 4 : i64, grid_kind = "once", math = "approx"}} {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.sin %w : f32
    %r = arith.truncf %s : f32 to f16
    %w2 = arith.extf %r : f16 to f32
    %t = math.tanh %w2 : f32
    %r2 = arith.truncf %t : f32 to f16
    aicf_loop.yield %r2 : f16
  }
  func.return
}

// -----

// The same body under a precise schedule: nothing is marked.
// CHECK-LABEL: aicf_gpu.kernel @precise_nest0
// CHECK-NOT: fastmath
// CHECK: aicf_gpu.return
func.func @precise(%x: memref<1024xf16>, %y: memref<1024xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1 : i64, block = 256 : i64, grid = 4 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 4 : i64, grid_kind = "once"}} {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.sin %w : f32
    %r = arith.truncf %s : f32 to f16
    aicf_loop.yield %r : f16
  }
  func.return
}

// -----

// An approx schedule on an f32 nest marks nothing: f32 results are never approximated.
// CHECK-LABEL: aicf_gpu.kernel @f32_nest0
// CHECK-NOT: fastmath
// CHECK: aicf_gpu.return
func.func @f32(%x: memref<1024xf32>, %y: memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1 : i64, block = 256 : i64, grid = 4 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 4 : i64, grid_kind = "once", math = "approx"}} {
  ^bb0(%a: f32):
    %s = math.sin %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

