// RUN: aicf-opt %s -p aicf-fold-view-copies --split-input-file | filecheck %s
// A copy nest (a lowered slice, transpose, reshape or broadcast) into an allocation
// that later nests only read is folded: the readers read its source through
// view o M, and the copy, the allocation and its deallocation go.

// slice then sin: the sin nest reads %x at the slice's map; the source's dealloc moves
// after the last reader.
// CHECK-LABEL: func.func @slice_into_consumer
// CHECK-NEXT:    %[[E:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    aicf_loop.nest domain = [4, 8]
// CHECK:         aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
// CHECK-NEXT:      ins(%[[E]] : memref<4x8xf32>)
// CHECK-NEXT:      outs(%{{.*}} : memref<2x4xf32>)
// CHECK-NEXT:      maps = [(d0, d1) -> (((d0 * 2) + 1), ((d1 * -2) + 7)), (d0, d1) -> (d0, d1)] {
// CHECK:           math.sin
// CHECK:         memref.dealloc %[[E]]
// CHECK-NEXT:    func.return
func.func @slice_into_consumer(%x: memref<4x8xf32>, %out: memref<2x4xf32>) {
  %e = memref.alloc() : memref<4x8xf32>
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
    ins(%x : memref<4x8xf32>) outs(%e : memref<4x8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    %b = math.exp %a : f32
    aicf_loop.yield %b : f32
  }
  %s = memref.alloc() : memref<2x4xf32>
  aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
    ins(%e : memref<4x8xf32>) outs(%s : memref<2x4xf32>)
    maps = [(d0, d1) -> (d0 * 2 + 1, d1 * -2 + 7), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  memref.dealloc %e : memref<4x8xf32>
  aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
    ins(%s : memref<2x4xf32>) outs(%out : memref<2x4xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    %b = math.sin %a : f32
    aicf_loop.yield %b : f32
  }
  memref.dealloc %s : memref<2x4xf32>
  func.return
}

// -----

// A transpose copied into a function output stays: the caller sees the buffer.
// CHECK-LABEL: func.func @into_output
// CHECK:         aicf_loop.nest domain = [8, 4]
// CHECK-NEXT:      ins(%x : memref<4x8xf32>)
// CHECK-NEXT:      outs(%out : memref<8x4xf32>)
func.func @into_output(%x: memref<4x8xf32>, %out: memref<8x4xf32>) {
  aicf_loop.nest domain = [8, 4] iterators = [parallel, parallel]
    ins(%x : memref<4x8xf32>) outs(%out : memref<8x4xf32>)
    maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// A transpose read by a matmul is read in place as a transposed operand (x^T @ w:
// A's innermost stride runs along m, one of its matrix dims).
// CHECK-LABEL: func.func @into_matmul
// CHECK-NOT:     memref.alloc
// CHECK:         aicf_loop.nest domain = [8, 2, 4]
// CHECK-NEXT:    ins(%x, %w : memref<4x8xf32>, memref<4x2xf32>)
// CHECK-NEXT:    outs(%out : memref<8x2xf32>)
// CHECK-NEXT:    maps = [(d0, d1, d2) -> (d2, d0), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
func.func @into_matmul(%x: memref<4x8xf32>, %w: memref<4x2xf32>, %out: memref<8x2xf32>) {
  %t = memref.alloc() : memref<8x4xf32>
  aicf_loop.nest domain = [8, 4] iterators = [parallel, parallel]
    ins(%x : memref<4x8xf32>) outs(%t : memref<8x4xf32>)
    maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  aicf_loop.nest domain = [8, 2, 4] iterators = [parallel, parallel, reduction]
    ins(%t, %w : memref<8x4xf32>, memref<4x2xf32>) outs(%out : memref<8x2xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %c = arith.mulf %a, %b : f32
    aicf_loop.yield %c : f32
  }
  memref.dealloc %t : memref<8x4xf32>
  func.return
}

// -----

// A permutation that would leave a batched matmul's operand with its unit stride
// along the batch dim is no matrix a matmul schedule takes: the copy stays.
// CHECK-LABEL: func.func @batch_innermost
// CHECK:         %[[T:.*]] = memref.alloc() : memref<2x8x4xf32>
// CHECK-NEXT:    aicf_loop.nest domain = [2, 8, 4]
// CHECK:         ins(%[[T]], %{{.*}} : memref<2x8x4xf32>, memref<2x4x3xf32>)
func.func @batch_innermost(%x: memref<8x4x2xf32>, %w: memref<2x4x3xf32>, %out: memref<2x8x3xf32>) {
  %t = memref.alloc() : memref<2x8x4xf32>
  aicf_loop.nest domain = [2, 8, 4] iterators = [parallel, parallel, parallel]
    ins(%x : memref<8x4x2xf32>) outs(%t : memref<2x8x4xf32>)
    maps = [(d0, d1, d2) -> (d1, d2, d0), (d0, d1, d2) -> (d0, d1, d2)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  aicf_loop.nest domain = [2, 8, 3, 4] iterators = [parallel, parallel, parallel, reduction]
    ins(%t, %w : memref<2x8x4xf32>, memref<2x4x3xf32>) outs(%out : memref<2x8x3xf32>)
    maps = [(d0, d1, d2, d3) -> (d0, d1, d3), (d0, d1, d2, d3) -> (d0, d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)]
    combiners = [add] {
  ^bb0(%a: f32, %b: f32):
    %c = arith.mulf %a, %b : f32
    aicf_loop.yield %c : f32
  }
  memref.dealloc %t : memref<2x8x4xf32>
  func.return
}

// -----

// A copy that converts (f16 to f32) is not a view: it stays.
// CHECK-LABEL: func.func @converting_copy
// CHECK:         aicf_loop.nest domain = [4]
// CHECK:         arith.extf
// CHECK:         aicf_loop.nest domain = [4]
func.func @converting_copy(%x: memref<4xf16>, %out: memref<4xf32>) {
  %c = memref.alloc() : memref<4xf32>
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%x : memref<4xf16>) outs(%c : memref<4xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %b = arith.extf %a : f16 to f32
    aicf_loop.yield %b : f32
  }
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%c : memref<4xf32>) outs(%out : memref<4xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    %b = math.sin %a : f32
    aicf_loop.yield %b : f32
  }
  memref.dealloc %c : memref<4xf32>
  func.return
}

// -----

// An iota (a broadcast of a constant vector) read by a row group's nest: the composed
// map (d0, d1) -> (d1) is a broadcast, so the group reads the vector in place.
// CHECK-LABEL: func.func @broadcast_into_group
// CHECK:         %[[G:.*]] = memref.get_global @cst : memref<8xi64>
// CHECK-NEXT:    aicf_loop.group
// CHECK:           ins(%x, %[[G]] : memref<4x8xf32>, memref<8xi64>)
// CHECK-NEXT:      outs(%out : memref<4xi64>)
// CHECK-NEXT:      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
"memref.global"() <{sym_name = "cst", type = memref<8xi64>, initial_value = dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>, sym_visibility = "private", constant}> : () -> ()
func.func @broadcast_into_group(%x: memref<4x8xf32>, %out: memref<4xi64>) {
  %g = memref.get_global @cst : memref<8xi64>
  %i = memref.alloc() : memref<4x8xi64>
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
    ins(%g : memref<8xi64>) outs(%i : memref<4x8xi64>)
    maps = [(d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%a: i64):
    aicf_loop.yield %a : i64
  }
  aicf_loop.group shared = [4] {
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x, %i : memref<4x8xf32>, memref<4x8xi64>) outs(%out : memref<4xi64>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1), (d0, d1) -> (d0)]
      combiners = [max] {
    ^bb0(%a: f32, %b: i64):
      aicf_loop.yield %b : i64
    }
  }
  memref.dealloc %i : memref<4x8xi64>
  func.return
}
