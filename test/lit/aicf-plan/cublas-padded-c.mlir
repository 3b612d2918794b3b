// RUN: aicf-opt %s -p 'aicf-plan{target=h100 force="gpu.cublas_gemm"}' --split-input-file | filecheck %s
// cuBLAS stores C fast only in rows of whole 16-byte vectors, and only when the row
// length N is such a multiple too. Where C's pitch alone is misaligned (C a view into
// wider rows), the planner prices cuBLAS's slower kernels against computing C into a
// scratch of aligned rows and copying it into place, and sets pad_c (the scratch's
// row pitch) when the copy is the cheaper. Where N itself is misaligned (GPT-2's
// logits are 50257 wide) padding C does not help: cuBLAS still takes its slow kernels.

// GPT-2's logits, 4096 rows: N = 50257, nothing to gain from padding.
// CHECK-LABEL: func.func @logits
// CHECK: kind = "gpu.cublas_gemm"
// CHECK-SAME: ldc = 50257 : i64
// CHECK-NOT: pad_c
// CHECK: func.return
func.func @logits(%x: memref<4096x768xf16>, %w: memref<768x50257xf16>, %c: memref<4096x50257xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 50257, 768] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<4096x768xf16>, memref<768x50257xf16>) outs(%c : memref<4096x50257xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// N = 50264 into a view whose rows are 50265 apart: the copy (0.8 GB moved) costs less
// than the slow kernels.
// CHECK-LABEL: func.func @pitch
// CHECK: kind = "gpu.cublas_gemm"
// CHECK-SAME: ldc = 50265 : i64
// CHECK-SAME: pad_c = 50264 : i64
func.func @pitch(%x: memref<4096x768xf16>, %w: memref<768x50264xf16>, %c: memref<4096x50264xf16, strided<[50265, 1]>>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 50264, 768] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<4096x768xf16>, memref<768x50264xf16>) outs(%c : memref<4096x50264xf16, strided<[50265, 1]>>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Rows of 50264 f16 (16-byte multiples): nothing to pad.
// CHECK-LABEL: func.func @aligned
// CHECK: kind = "gpu.cublas_gemm"
// CHECK-NOT: pad_c
// CHECK: func.return
func.func @aligned(%x: memref<4096x768xf16>, %w: memref<768x50264xf16>, %c: memref<4096x50264xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 50264, 768] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<4096x768xf16>, memref<768x50264xf16>) outs(%c : memref<4096x50264xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// Misaligned but small: the copy's launch costs more than the slower kernels lose.
// CHECK-LABEL: func.func @small
// CHECK: kind = "gpu.cublas_gemm"
// CHECK-NOT: pad_c
// CHECK: func.return
func.func @small(%x: memref<64x32xf16>, %w: memref<32x33xf16>, %c: memref<64x33xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 33, 32] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<64x32xf16>, memref<32x33xf16>) outs(%c : memref<64x33xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A batch of misaligned matrices (not one call): not padded (the scratch is one matrix).
// CHECK-LABEL: func.func @batched
// CHECK: kind = "gpu.cublas_gemm"
// CHECK-SAME: batch = 8 : i64
// CHECK-NOT: pad_c
// CHECK: func.return
func.func @batched(%x: memref<8x1024x768xf16>, %w: memref<8x768x50257xf16>, %c: memref<8x1024x50257xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 1024, 50257, 768] iterators = [parallel, parallel, parallel, reduction]
      ins(%x, %w : memref<8x1024x768xf16>, memref<8x768x50257xf16>) outs(%c : memref<8x1024x50257xf16>)
      maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d0, d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)] combiners = [add] {
  ^bb0(%a: f16, %b: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %p = arith.mulf %af, %bf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
