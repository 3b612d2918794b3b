// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of aicf_loop.attention: one float type, the output shaped as the
// attention of its inputs, a mask of i1 or float, and a schedule of its own kind.

// a parse error (first: parse errors are located in the whole file)
func.func @operands(%q: memref<4x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{expected 3 or 4 operand(s) with their types}}
  aicf_loop.attention scale = 1.0 ins(%q, %q : memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  func.return
}

// -----

func.func @output_shape(%q: memref<4x8xf32>, %o: memref<4x4xf32>) {
  // expected-error @+1 {{'aicf_loop.attention' output shape 4x4 is not the attention's 4x8}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x4xf32>)
  func.return
}

// -----

func.func @output_type(%q: memref<4x8xf32>, %o: memref<4x8xf16>) {
  // expected-error @+1 {{'aicf_loop.attention' Q, K, V and the output must share one float element type, got f32, f32, f32, f16}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf16>)
  func.return
}

// -----

func.func @int_mask(%q: memref<4x8xf32>, %m: memref<4x4xi32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.attention' the mask must be i1 or float, got i32}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q, %m : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>, memref<4x4xi32>) outs(%o : memref<4x8xf32>)
  func.return
}

// -----

func.func @nest_schedule(%q: memref<4x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.attention' schedule kind cpu.nest applies to a nest, not a attention}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>) {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}}
  func.return
}

// -----

func.func @zero_tile(%q: memref<4x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.attention' aicf.schedule: cpu.attention parameter 'block_k' must be at least 1, got 0}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>) {aicf.schedule = {kind = "cpu.attention", block_q = 4 : i64, block_k = 0 : i64, parallel = 0 : i64}}
  func.return
}

// -----

// Written in place, later query rows would read outputs as keys and values.
func.func @in_place(%q: memref<4x8xf32>, %k: memref<4x8xf32>, %v: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.attention' the output is also V: attention cannot be computed in place}}
  aicf_loop.attention scale = 1.0 ins(%q, %k, %v : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%v : memref<4x8xf32>)
  func.return
}
