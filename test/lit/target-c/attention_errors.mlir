// RUN: aicf-opt %s -t c --verify-diagnostics --split-input-file
// The C emitter decides nothing: an attention without its cpu.attention schedule is
// an error at the op.

func.func @no_schedule(%q: memref<2x3xf32>, %o: memref<2x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.attention' has no aicf.schedule: run aicf-plan{target=cpu} before emitting C}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) outs(%o : memref<2x3xf32>)
  func.return
}

// -----

// Hand-written tiles are clamped to the sequences, and what is left must fit a
// thread's stack: 2048x2048 f32 scores (18 MiB of tiles) overflowed it (SIGSEGV at the call).
func.func @tiles_past_the_stack(%q: memref<2048x64xf32>, %o: memref<2048x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.attention' the cpu.attention tiles 2048x2048 (head dims 64, 64) take 18890752 bytes of stack per thread, more than 262144: take smaller block_q or block_k}}
  aicf_loop.attention scale = 1.0 ins(%q, %q, %q : memref<2048x64xf32>, memref<2048x64xf32>, memref<2048x64xf32>) outs(%o : memref<2048x64xf32>) {aicf.schedule = {kind = "cpu.attention", block_q = 4096 : i64, block_k = 1099511627776 : i64, parallel = 0 : i64}}
  func.return
}
