// RUN: aicf-opt %s -t c --verify-diagnostics
// The C emitter decides nothing: an attention without its cpu.attention schedule is
// an error at the op.

func.func @no_schedule(%q: memref<2x3xf32>, %o: memref<2x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.attention' has no aicf.schedule: run aicf-plan{target=cpu} before emitting C}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) outs(%o : memref<2x3xf32>)
  func.return
}
