// RUN: aicf-opt %s -p aicf-split-reductions | filecheck %s

// Rows of 1001 split 4 ways, chunks of whole vec = 2 vectors: 4 chunks of 252 (rows
// of the partial nest, s a parallel dim just before the reduction), the last one
// stopped at 1001 by the guard (no tail nest: 1001 - 3 * 252 = 245 points); the
// partials innermost ([6, 1, 4] for a keepdims output) so the combine nest reads each
// row's 4 partials as one contiguous row.
// CHECK-LABEL: func.func @rows
// CHECK:      %[[WS:.*]] = memref.alloc() : memref<6x1x4xf32>
// CHECK-NEXT: aicf_loop.nest domain = [6, 4, 252] iterators = [parallel, parallel, reduction]
// CHECK-NEXT:   ins(%x : memref<6x1001xf32>)
// CHECK-NEXT:   outs(%[[WS]] : memref<6x1x4xf32>)
// CHECK-NEXT:   maps = [(d0, d1, d2) -> (d0, ((d1 * 252) + d2)), (d0, d1, d2) -> (d0, 0, d1)]
// CHECK-NEXT:   combiners = [max]
// CHECK-NEXT:   guard = (d0, d1, d2) : ((((d1 * -252) + 1000) + (d2 * -1)) >= 0) attrs = {aicf.schedule = {kind = "gpu.rows", vec = 2 : i64, mode = "block", block = 64 : i64, grid = 24 : i64, split = 1 : i64
// CHECK:      aicf_loop.nest domain = [6, 4] iterators = [parallel, reduction]
// CHECK-NEXT:   ins(%[[WS]] : memref<6x1x4xf32>)
// CHECK-NEXT:   outs(%y : memref<6x1xf32>)
// CHECK-NEXT:   maps = [(d0, d1) -> (d0, 0, d1), (d0, d1) -> (d0, 0)]
// CHECK-NEXT:   combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 64
// CHECK:      memref.dealloc %[[WS]]
// CHECK-NOT:  aicf_loop.nest

// Chunks that divide the dim need no guard.
// CHECK-LABEL: func.func @even
// CHECK:      aicf_loop.nest domain = [5, 8, 125] iterators = [parallel, parallel, reduction]
// CHECK-NOT:  guard
// CHECK:      aicf_loop.nest domain = [5, 8] iterators = [parallel, reduction]
func.func @rows(%x: memref<6x1001xf32>, %y: memref<6x1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [6, 1001] iterators = [parallel, reduction]
      ins(%x : memref<6x1001xf32>) outs(%y : memref<6x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 2 : i64, mode = "block", block = 64 : i64, grid = 24 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 1 : i64,
               combine = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

func.func @even(%x: memref<5x1000xf32>, %y: memref<5xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [5, 1000] iterators = [parallel, reduction]
      ins(%x : memref<5x1000xf32>) outs(%y : memref<5xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "block", block = 64 : i64, grid = 40 : i64, split = 8 : i64, unroll = 4 : i64, minblocks = 1 : i64,
               combine = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
