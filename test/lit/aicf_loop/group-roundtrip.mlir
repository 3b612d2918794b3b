// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s

// Softmax over the last axis: three nests sharing the row dim, two row-local buffers.
// CHECK-LABEL: func.func @softmax_rows
func.func @softmax_rows(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // CHECK:      aicf_loop.group shared = [4] {
  // CHECK-NEXT:   %{{.*}} = memref.alloc() : memref<4x1xf32>
  // CHECK-NEXT:   aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK:          combiners = [max] {
  // CHECK:        aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK:          combiners = [add] {
  // CHECK:        aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
  // CHECK:        memref.dealloc %{{.*}} : memref<4x1xf32>
  // CHECK-NEXT:   memref.dealloc %{{.*}} : memref<4xf32>
  // CHECK-NEXT: }
  aicf_loop.group shared = [4] {
    %m = memref.alloc() : memref<4x1xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%m : memref<4x1xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    %s = memref.alloc() : memref<4xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x, %m : memref<4x8xf32>, memref<4x1xf32>) outs(%s : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0)]
        combiners = [add] {
    ^bb0(%a: f32, %mx: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      aicf_loop.yield %e : f32
    }
    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
        ins(%x, %m, %s : memref<4x8xf32>, memref<4x1xf32>, memref<4xf32>)
        outs(%y : memref<4x8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %mx: f32, %sum: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %sum : f32
      aicf_loop.yield %q : f32
    }
    memref.dealloc %m : memref<4x1xf32>
    memref.dealloc %s : memref<4xf32>
  }
  func.return
}

// A mean over the first axis: the domain puts the kept dim first; the scaling nest
// over the shared dims reads the sum in place of the output buffer it wrote.
// CHECK-LABEL: func.func @mean_cols
func.func @mean_cols(%x: memref<8x4xf32>, %y: memref<4xf32>) {
  // CHECK: aicf_loop.group shared = [4] attributes {note = "cols"} {
  aicf_loop.group shared = [4] attributes {note = "cols"} {
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<8x4xf32>) outs(%y : memref<4xf32>)
        maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4] iterators = [parallel]
        ins(%y : memref<4xf32>) outs(%y : memref<4xf32>)
        maps = [(d0) -> (d0), (d0) -> (d0)] {
    ^bb0(%a: f32):
      %c = arith.constant 8.0 : f32
      %q = arith.divf %a, %c : f32
      aicf_loop.yield %q : f32
    }
  }
  func.return
}

// No shared dims (a full reduction then its scaling): the group is just "in order".
// CHECK-LABEL: func.func @scalar_mean
func.func @scalar_mean(%x: memref<8xf32>, %y: memref<f32>) {
  // CHECK: aicf_loop.group shared = [] {
  aicf_loop.group shared = [] {
    %t = memref.alloc() : memref<f32>
    aicf_loop.nest domain = [8] iterators = [reduction]
        ins(%x : memref<8xf32>) outs(%t : memref<f32>)
        maps = [(d0) -> (d0), (d0) -> ()] combiners = [add] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [] iterators = []
        ins(%t : memref<f32>) outs(%y : memref<f32>) maps = [() -> (), () -> ()] {
    ^bb0(%a: f32):
      %c = arith.constant 8.0 : f32
      %q = arith.divf %a, %c : f32
      aicf_loop.yield %q : f32
    }
    memref.dealloc %t : memref<f32>
  }
  func.return
}
