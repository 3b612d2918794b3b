// RUN: aicf-opt %s --split-input-file -p 'aicf-plan{target=h100}' | filecheck %s
// The planner's math mode (aicf/math_precision.py): "approx" where a special function's
// result is only rounded to f16/bf16 (within the type's budget), never for f32 results.

// CHECK-LABEL: func.func @sin_f16
// CHECK: kind = "gpu.per_output"
// CHECK-SAME: math = "approx"
func.func @sin_f16(%x: memref<1048576xf16>, %y: memref<1048576xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1048576] iterators = [parallel] ins(%x : memref<1048576xf16>) outs(%y : memref<1048576xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.sin %w : f32
    %r = arith.truncf %s : f32 to f16
    aicf_loop.yield %r : f16
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @tanh_bf16
// CHECK: math = "approx"
func.func @tanh_bf16(%x: memref<1048576xbf16>, %y: memref<1048576xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1048576] iterators = [parallel] ins(%x : memref<1048576xbf16>) outs(%y : memref<1048576xbf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: bf16):
    %w = arith.extf %a : bf16 to f32
    %s = math.tanh %w : f32
    %r = arith.truncf %s : f32 to bf16
    aicf_loop.yield %r : bf16
  }
  func.return
}

// -----

// f32 results: precise, the attribute has no math parameter.
// CHECK-LABEL: func.func @sin_f32
// CHECK: kind = "gpu.per_output"
// CHECK-NOT: math =
// CHECK: func.return
func.func @sin_f32(%x: memref<1048576xf32>, %y: memref<1048576xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1048576] iterators = [parallel] ins(%x : memref<1048576xf32>) outs(%y : memref<1048576xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    %s = math.sin %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// -----

// An f16 input whose sin is stored as f32: the result is not rounded to f16, precise.
// CHECK-LABEL: func.func @sin_f16_to_f32
// CHECK-NOT: math =
// CHECK: func.return
func.func @sin_f16_to_f32(%x: memref<1048576xf16>, %y: memref<1048576xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1048576] iterators = [parallel] ins(%x : memref<1048576xf16>) outs(%y : memref<1048576xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.sin %w : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// -----

// One use rounds to f16, another feeds an f32 output: the whole value must be precise.
// CHECK-LABEL: func.func @mixed_uses
// CHECK-NOT: math =
// CHECK: func.return
func.func @mixed_uses(%x: memref<1024xf16>, %y: memref<1024xf16>, %z: memref<1024xf32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf16>) outs(%y, %z : memref<1024xf16>, memref<1024xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.exp %w : f32
    %r = arith.truncf %s : f32 to f16
    aicf_loop.yield %r, %s : f16, f32
  }
  func.return
}

// -----

// A function without an approximation (log) stays precise on f16.
// CHECK-LABEL: func.func @log_f16
// CHECK-NOT: math =
// CHECK: func.return
func.func @log_f16(%x: memref<1024xf16>, %y: memref<1024xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %w = arith.extf %a : f16 to f32
    %s = math.log %w : f32
    %r = arith.truncf %s : f32 to f16
    aicf_loop.yield %r : f16
  }
  func.return
}

// -----

// sin of a bf16 argument: the approximation's bound needs |x| < 2^19, which only an
// f16 argument proves; precise.
// CHECK-LABEL: func.func @sin_bf16
// CHECK-NOT: math =
// CHECK: func.return
func.func @sin_bf16(%x: memref<1024xbf16>, %y: memref<1024xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xbf16>) outs(%y : memref<1024xbf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: bf16):
    %w = arith.extf %a : bf16 to f32
    %s = math.sin %w : f32
    %r = arith.truncf %s : f32 to bf16
    aicf_loop.yield %r : bf16
  }
  func.return
}
