// RUN: aicf-opt %s --split-input-file | aicf-opt --split-input-file | filecheck %s
// aicf_loop.attention round-trips: scale, causal, layouts, the optional mask, a schedule.

// CHECK-LABEL: func.func @causal
// CHECK: aicf_loop.attention scale = 0.125 causal ins(%q, %k, %v : memref<2x8x64xf16>, memref<2x8x64xf16>, memref<2x8x64xf16>) outs(%o : memref<2x8x64xf16>) {aicf.schedule = {kind = "cpu.attention", block_q = 8 : i64, block_k = 4 : i64, parallel = 1 : i64}}
func.func @causal(%q: memref<2x8x64xf16>, %k: memref<2x8x64xf16>, %v: memref<2x8x64xf16>, %o: memref<2x8x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 causal ins(%q, %k, %v : memref<2x8x64xf16>, memref<2x8x64xf16>, memref<2x8x64xf16>) outs(%o : memref<2x8x64xf16>) {aicf.schedule = {kind = "cpu.attention", block_q = 8 : i64, block_k = 4 : i64, parallel = 1 : i64}}
  func.return
}

// -----

// CHECK-LABEL: func.func @masked
// CHECK: aicf_loop.attention scale = 0.5 k_perm = [1, 0] ins(%q, %kt, %v, %m : memref<5x8xf32>, memref<8x7xf32>, memref<7x3xf32>, memref<5x7xi1>) outs(%o : memref<5x3xf32>)
func.func @masked(%q: memref<5x8xf32>, %kt: memref<8x7xf32>, %v: memref<7x3xf32>, %m: memref<5x7xi1>, %o: memref<5x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.5 k_perm = [1, 0] ins(%q, %kt, %v, %m : memref<5x8xf32>, memref<8x7xf32>, memref<7x3xf32>, memref<5x7xi1>) outs(%o : memref<5x3xf32>)
  func.return
}
