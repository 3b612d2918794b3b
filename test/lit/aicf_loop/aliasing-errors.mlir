// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s
// A nest writes each output element exactly once and reads an input that is also an
// output only where it writes it (elementwise in place): otherwise iterations read
// elements another one has overwritten, or race on one element, in an order the
// schedule decides.

func.func @shifted_in_place(%x: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' input #0 is output #0 but read through map (d0) -> ((d0 + 1)), written through (d0) -> (d0): in place, the maps must be the same}}
  aicf_loop.nest domain = [7] iterators = [parallel] ins(%x : memref<8xf32>) outs(%x : memref<8xf32>)
      maps = [(d0) -> (d0 + 1), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @output_twice(%x: memref<8xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' output #1 is output #0 again (memref<8xf32>)}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y, %y : memref<8xf32>, memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a, %a : f32, f32
  }
  func.return
}

// -----

func.func @written_many_times(%x: memref<8xf32>, %y: memref<1xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' output #0 map (d0) -> (0) leaves out parallel dim d0 (extent 8): each element would be written 8 times}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<1xf32>)
      maps = [(d0) -> (d0), (d0) -> (0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// Elementwise in place, and a parallel dim of extent 1 left out, are fine.
// CHECK-LABEL: func.func @in_place
func.func @in_place(%x: memref<8xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1, 8] iterators = [parallel, parallel] ins(%x, %y : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0, d1) -> (d1), (d0, d1) -> (d1), (d0, d1) -> (d1)] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
