// RUN: aicf-opt %s --split-input-file -p 'aicf-plan{target=cpu cores=4}' | filecheck %s
// The cpu target runs an attention as cpu.attention: tiles of queries (block_q) over
// tiles of keys (block_k) sized to the caches, and threads over the batch dims and
// the query tiles.

// CHECK-LABEL: func.func @long
// CHECK: aicf_loop.attention {{.*}} {aicf.schedule = {kind = "cpu.attention", block_q = {{[0-9]+}} : i64, block_k = {{[0-9]+}} : i64, parallel = 3 : i64, est_ns = {{[0-9]+}} : i64}}
func.func @long(%q: memref<2x12x1024x64xf32>, %o: memref<2x12x1024x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 causal ins(%q, %q, %q : memref<2x12x1024x64xf32>, memref<2x12x1024x64xf32>, memref<2x12x1024x64xf32>) outs(%o : memref<2x12x1024x64xf32>)
  func.return
}

// -----

// one query: one tile, one thread
// CHECK-LABEL: func.func @decode
// CHECK: aicf_loop.attention {{.*}} {aicf.schedule = {kind = "cpu.attention", block_q = 1 : i64, block_k = {{[0-9]+}} : i64, parallel = 0 : i64, est_ns = {{[0-9]+}} : i64}}
func.func @decode(%q: memref<1x64xf32>, %k: memref<100x64xf32>, %o: memref<1x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 ins(%q, %k, %k : memref<1x64xf32>, memref<100x64xf32>, memref<100x64xf32>) outs(%o : memref<1x64xf32>)
  func.return
}
