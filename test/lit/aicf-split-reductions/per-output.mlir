// RUN: aicf-opt %s --split-input-file -p aicf-split-reductions | filecheck %s

// A column sum split 8 ways: the partials outermost ([8, 64]), the chunk's rows read
// at s*125 + r; the partial nest keeps the parent's kernel parameters with split = 1,
// the combine nest takes the nested schedule; the workspace is freed after it.
// CHECK-LABEL: func.func @colsum
// CHECK:      %[[WS:.*]] = memref.alloc() : memref<8x64xf32>
// CHECK-NEXT: aicf_loop.nest domain = [8, 125, 64] iterators = [parallel, reduction, parallel]
// CHECK-NEXT:   ins(%x : memref<1000x64xf32>)
// CHECK-NEXT:   outs(%[[WS]] : memref<8x64xf32>)
// CHECK-NEXT:   maps = [(d0, d1, d2) -> (((d0 * 125) + d1), d2), (d0, d1, d2) -> (d0, d2)]
// CHECK-NEXT:   combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 16 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}
// CHECK:      aicf_loop.nest domain = [8, 64] iterators = [reduction, parallel]
// CHECK-NEXT:   ins(%[[WS]] : memref<8x64xf32>)
// CHECK-NEXT:   outs(%y : memref<64xf32>)
// CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)]
// CHECK-NEXT:   combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64
// CHECK:      ^bb0(%[[P:.*]]: f32):
// CHECK-NEXT:   aicf_loop.yield %[[P]] : f32
// CHECK:      memref.dealloc %[[WS]] : memref<8x64xf32>
// CHECK-NEXT: func.return
func.func @colsum(%x: memref<1000x64xf32>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1000, 64] iterators = [reduction, parallel]
      ins(%x : memref<1000x64xf32>) outs(%y : memref<64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 16 : i64, split = 8 : i64, unroll = 4 : i64, minblocks = 4 : i64, est_ns = 9000 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Two outputs (a max and a sum of one f16 input, accumulated in f32): a workspace
// each, in the accumulators' type; the body is cloned into the partial nest.
// CHECK-LABEL: func.func @two
// CHECK:      %[[M:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT: %[[S:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT: aicf_loop.nest domain = [4, 64, 16]
// CHECK-NEXT:   ins(%x : memref<256x16xf16>)
// CHECK-NEXT:   outs(%[[M]], %[[S]] : memref<4x16xf32>, memref<4x16xf32>)
// CHECK:        combiners = [max, add]
// CHECK:        arith.extf
// CHECK:      aicf_loop.nest domain = [4, 16] iterators = [reduction, parallel]
// CHECK-NEXT:   ins(%[[M]], %[[S]] : memref<4x16xf32>, memref<4x16xf32>)
// CHECK-NEXT:   outs(%m, %s : memref<16xf16>, memref<16xf32>)
// CHECK:        combiners = [max, add]
// CHECK:      memref.dealloc %[[S]]
// CHECK-NEXT: memref.dealloc %[[M]]
func.func @two(%x: memref<256x16xf16>, %m: memref<16xf16>, %s: memref<16xf32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [256, 16] iterators = [reduction, parallel]
      ins(%x : memref<256x16xf16>) outs(%m, %s : memref<16xf16>, memref<16xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d1)] combiners = [max, add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 4 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}} {
  ^bb0(%a : f16):
    %w = arith.extf %a : f16 to f32
    aicf_loop.yield %w, %w : f32, f32
  }
  func.return
}

// -----

// A nest without a split, or of a kind that does not split this way, is left alone.
// CHECK-LABEL: func.func @whole
// CHECK-NOT:  memref.alloc
// CHECK:      aicf_loop.nest domain = [1000, 64]
func.func @whole(%x: memref<1000x64xf32>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1000, 64] iterators = [reduction, parallel]
      ins(%x : memref<1000x64xf32>) outs(%y : memref<64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 16 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
