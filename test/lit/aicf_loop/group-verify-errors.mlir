// RUN: aicf-opt %s --split-input-file --verify-diagnostics

func.func @domain_prefix(%x: memref<4x8xf32>, %y: memref<8xf32>) {
  aicf_loop.group shared = [4] {
    // expected-error @+1 {{'aicf_loop.nest' domain [8, 4] of a group member does not begin with the group's shared extents [4]}}
    aicf_loop.nest domain = [8, 4] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%y : memref<8xf32>)
        maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}

// -----

func.func @shared_dim_reduces(%x: memref<4x8xf32>, %y: memref<8xf32>) {
  aicf_loop.group shared = [4] {
    // expected-error @+1 {{'aicf_loop.nest' iterators [reduction, parallel] of a group member are not parallel on the group's 1 shared dims}}
    aicf_loop.nest domain = [4, 8] iterators = [reduction, parallel]
        ins(%x : memref<4x8xf32>) outs(%y : memref<8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}

// -----

func.func @foreign_op(%x: memref<4xf32>) {
  aicf_loop.group shared = [4] {
    // expected-error @+1 {{'arith.constant' is in an aicf_loop.group, which may only hold aicf_loop.nest, memref.alloc and memref.dealloc}}
    %c = arith.constant 1.0 : f32
  }
  func.return
}

// -----

// A row-local buffer read at another row: rows could not run independently.
func.func @local_read_across_rows(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.group' buffer memref<4xf32> is passed between member nests but not sliced identically by the 1 shared dims (maps: (d0, d1) -> (0), (d0, d1) -> (d0))}}
  aicf_loop.group shared = [4] {
    %m = memref.alloc() : memref<4xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
        ins(%x, %m : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %b: f32):
      %d = arith.subf %a, %b : f32
      aicf_loop.yield %d : f32
    }
  }
  func.return
}

// -----

// A group-local buffer indexed by a non-shared dim.
func.func @local_indexed_by_inner_dim(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'aicf_loop.group' group-local buffer memref<4x8xf32> accessed by map (d0, d1) -> (d0, d1): it may be indexed only by the shared dims}}
  aicf_loop.group shared = [4] {
    %t = memref.alloc() : memref<4x8xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
        ins(%x : memref<4x8xf32>) outs(%t : memref<4x8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}

// -----

// A buffer one member writes and another reads, sliced by different dims.
func.func @output_passed_transposed(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %z: memref<4x4xf32>) {
  // expected-error @+1 {{'aicf_loop.group' buffer memref<4x4xf32> is passed between member nests but not sliced identically by the 1 shared dims (maps: (d0, d1) -> (d0, d1), (d0, d1) -> (d1, d0))}}
  aicf_loop.group shared = [4] {
    aicf_loop.nest domain = [4, 4] iterators = [parallel, parallel]
        ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4, 4] iterators = [parallel, parallel]
        ins(%y : memref<4x4xf32>) outs(%z : memref<4x4xf32>)
        maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
  }
  func.return
}
