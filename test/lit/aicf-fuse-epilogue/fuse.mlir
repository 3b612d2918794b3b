// RUN: aicf-opt %s -p aicf-fuse-epilogue --split-input-file | filecheck %s
// A matmul and the elementwise nest that consumes its result become one group over
// the output's dims, the intermediate's allocation and deallocation inside it.

// CHECK-LABEL: func.func @bias_gelu
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() : memref<64x32xf16>
// CHECK-NEXT:    aicf_loop.group shared = [64, 32] {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<64x32xf16>
// CHECK-NEXT:      aicf_loop.nest domain = [64, 32, 16] iterators = [parallel, parallel, reduction]
// CHECK:           outs(%[[T]] : memref<64x32xf16>)
// CHECK:           aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
// CHECK-NEXT:        ins(%[[T]], %b : memref<64x32xf16>, memref<32xf16>)
// CHECK-NEXT:        outs(%[[Y]] : memref<64x32xf16>)
// CHECK:           math.erf
// CHECK:           memref.dealloc %[[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    aicf_loop.nest domain = [64, 32]
// CHECK-NEXT:      ins(%[[Y]] : memref<64x32xf16>)
func.func @bias_gelu(%x: memref<64x16xf16>, %w: memref<16x32xf16>, %b: memref<32xf16>, %out: memref<64x32xf16>) {
  %t = memref.alloc() : memref<64x32xf16>
  aicf_loop.nest domain = [64, 32, 16] iterators = [parallel, parallel, reduction]
    ins(%x, %w : memref<64x16xf16>, memref<16x32xf16>) outs(%t : memref<64x32xf16>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f16, %q: f16):
    %pf = arith.extf %p : f16 to f32
    %qf = arith.extf %q : f16 to f32
    %m = arith.mulf %pf, %qf : f32
    aicf_loop.yield %m : f32
  }
  %y = memref.alloc() : memref<64x32xf16>
  aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
    ins(%t, %b : memref<64x32xf16>, memref<32xf16>) outs(%y : memref<64x32xf16>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f16, %c: f16):
    %vf = arith.extf %v : f16 to f32
    %cf = arith.extf %c : f16 to f32
    %s = arith.addf %vf, %cf : f32
    %e = math.erf %s : f32
    %r = arith.truncf %e : f32 to f16
    aicf_loop.yield %r : f16
  }
  memref.dealloc %t : memref<64x32xf16>
  aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
    ins(%y : memref<64x32xf16>) outs(%out : memref<64x32xf16>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f16):
    aicf_loop.yield %v : f16
  }
  func.return
}

// -----

// The matmul's result is also a function output (read after the epilogue): it must be
// written, so nothing is grouped.
// CHECK-LABEL: func.func @result_escapes
// CHECK-NOT:     aicf_loop.group
func.func @result_escapes(%x: memref<8x4xf32>, %w: memref<4x8xf32>, %out: memref<8x8xf32>, %out2: memref<8x8xf32>) {
  aicf_loop.nest domain = [8, 8, 4] iterators = [parallel, parallel, reduction]
    ins(%x, %w : memref<8x4xf32>, memref<4x8xf32>) outs(%out : memref<8x8xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f32, %q: f32):
    %m = arith.mulf %p, %q : f32
    aicf_loop.yield %m : f32
  }
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
    ins(%out : memref<8x8xf32>) outs(%out2 : memref<8x8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.tanh %v : f32
    aicf_loop.yield %e : f32
  }
  func.return
}

// -----

// The consumer reads the result transposed: not the identity, so no group (the
// epilogue sees one accumulator element at a time, at its own (row, col)).
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT:     aicf_loop.group
func.func @transposed_read(%x: memref<8x4xf32>, %w: memref<4x8xf32>, %out: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  aicf_loop.nest domain = [8, 8, 4] iterators = [parallel, parallel, reduction]
    ins(%x, %w : memref<8x4xf32>, memref<4x8xf32>) outs(%t : memref<8x8xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f32, %q: f32):
    %m = arith.mulf %p, %q : f32
    aicf_loop.yield %m : f32
  }
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
    ins(%t : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
    maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.tanh %v : f32
    aicf_loop.yield %e : f32
  }
  memref.dealloc %t : memref<8x8xf32>
  func.return
}

// -----

// Two consumers of the result: the second would read a buffer the group never
// writes, so nothing is grouped.
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT:     aicf_loop.group
func.func @two_readers(%x: memref<8x4xf32>, %w: memref<4x8xf32>, %o1: memref<8x8xf32>, %o2: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  aicf_loop.nest domain = [8, 8, 4] iterators = [parallel, parallel, reduction]
    ins(%x, %w : memref<8x4xf32>, memref<4x8xf32>) outs(%t : memref<8x8xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f32, %q: f32):
    %m = arith.mulf %p, %q : f32
    aicf_loop.yield %m : f32
  }
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
    ins(%t : memref<8x8xf32>) outs(%o1 : memref<8x8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.tanh %v : f32
    aicf_loop.yield %e : f32
  }
  aicf_loop.nest domain = [8, 8] iterators = [parallel, parallel]
    ins(%t : memref<8x8xf32>) outs(%o2 : memref<8x8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    aicf_loop.yield %e : f32
  }
  memref.dealloc %t : memref<8x8xf32>
  func.return
}

// -----

// The lowering frees the matmul's input right after the matmul: the deallocation in
// between does not stop the fusion, and it moves after the group (the group still
// reads %a).
// CHECK-LABEL: func.func @input_freed_between
// CHECK:         %[[A:.*]] = memref.alloc() : memref<64x16xf16>
// CHECK:         aicf_loop.group shared = [64, 32] {
// CHECK:           ins(%[[A]], %w
// CHECK:           memref.dealloc %t : memref<64x32xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<64x16xf16>
func.func @input_freed_between(%x: memref<64x16xf16>, %w: memref<16x32xf16>, %b: memref<32xf16>, %out: memref<64x32xf16>) {
  %a = memref.alloc() : memref<64x16xf16>
  aicf_loop.nest domain = [64, 16] iterators = [parallel, parallel]
    ins(%x : memref<64x16xf16>) outs(%a : memref<64x16xf16>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f16):
    %n = arith.negf %v : f16
    aicf_loop.yield %n : f16
  }
  %t = memref.alloc() : memref<64x32xf16>
  aicf_loop.nest domain = [64, 32, 16] iterators = [parallel, parallel, reduction]
    ins(%a, %w : memref<64x16xf16>, memref<16x32xf16>) outs(%t : memref<64x32xf16>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f16, %q: f16):
    %pf = arith.extf %p : f16 to f32
    %qf = arith.extf %q : f16 to f32
    %m = arith.mulf %pf, %qf : f32
    aicf_loop.yield %m : f32
  }
  memref.dealloc %a : memref<64x16xf16>
  aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
    ins(%t, %b : memref<64x32xf16>, memref<32xf16>) outs(%out : memref<64x32xf16>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f16, %c: f16):
    %vf = arith.extf %v : f16 to f32
    %cf = arith.extf %c : f16 to f32
    %s = arith.addf %vf, %cf : f32
    %r = arith.truncf %s : f32 to f16
    aicf_loop.yield %r : f16
  }
  memref.dealloc %t : memref<64x32xf16>
  func.return
}
