// RUN: aicf-opt %s -p aicf-split-reductions | filecheck %s

// Rows of 1001 split 4 ways: chunks of 250 (rows of the partial nest, s a parallel dim
// just before the reduction), the 1 point left reduced by the tail nest into partial 4,
// the partials innermost ([6, 1, 5] for a keepdims output) so the combine nest reads
// each row's 5 partials as one contiguous row.
// CHECK-LABEL: func.func @rows
// CHECK:      %[[WS:.*]] = memref.alloc() : memref<6x1x5xf32>
// CHECK-NEXT: aicf_loop.nest domain = [6, 4, 250] iterators = [parallel, parallel, reduction]
// CHECK-NEXT:   ins(%x : memref<6x1001xf32>)
// CHECK-NEXT:   outs(%[[WS]] : memref<6x1x5xf32>)
// CHECK-NEXT:   maps = [(d0, d1, d2) -> (d0, ((d1 * 250) + d2)), (d0, d1, d2) -> (d0, 0, d1)]
// CHECK-NEXT:   combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 2 : i64, mode = "block", block = 64 : i64, grid = 24 : i64, split = 1 : i64
// CHECK:      aicf_loop.nest domain = [6, 1] iterators = [parallel, reduction]
// CHECK-NEXT:   ins(%x : memref<6x1001xf32>)
// CHECK-NEXT:   outs(%[[WS]] : memref<6x1x5xf32>)
// CHECK-NEXT:   maps = [(d0, d1) -> (d0, (d1 + 1000)), (d0, d1) -> (d0, 0, 4)]
// CHECK-NEXT:   combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 32
// CHECK:      aicf_loop.nest domain = [6, 5] iterators = [parallel, reduction]
// CHECK-NEXT:   ins(%[[WS]] : memref<6x1x5xf32>)
// CHECK-NEXT:   outs(%y : memref<6x1xf32>)
// CHECK-NEXT:   maps = [(d0, d1) -> (d0, 0, d1), (d0, d1) -> (d0, 0)]
// CHECK-NEXT:   combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 64
// CHECK:      memref.dealloc %[[WS]]
func.func @rows(%x: memref<6x1001xf32>, %y: memref<6x1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [6, 1001] iterators = [parallel, reduction]
      ins(%x : memref<6x1001xf32>) outs(%y : memref<6x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max]
      attrs = {aicf.schedule = {kind = "gpu.rows", vec = 2 : i64, mode = "block", block = 64 : i64, grid = 24 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 1 : i64,
               combine = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 64 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64},
               tail = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 32 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64}}} {
  ^bb0(%a : f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
