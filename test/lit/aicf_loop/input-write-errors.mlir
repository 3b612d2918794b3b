// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Only the last `aicf.num_outputs` arguments are outputs: the runtimes pass the inputs
// read-only (the cpu target as `const` pointers, which the C compiler refused with its
// own message; on cuda they are the caller's arrays). An op that writes an input,
// itself or through a view, is an error at that op.

func.func @nest_writes_input(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' writes %x (argument #0 of @nest_writes_input), an input: aicf.num_outputs = 1 makes only the last 1 argument(s) outputs, and inputs are read-only}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%y : memref<4xf32>) outs(%x : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @copy_into_input(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'memref.copy' writes %x (argument #0 of @copy_into_input), an input}}
  "memref.copy"(%y, %x) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}

// -----

func.func @through_a_view(%x: memref<2x4xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %v = memref.collapse_shape %x [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  // expected-error @+1 {{'aicf_loop.nest' writes %x (argument #0 of @through_a_view), an input}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%y : memref<8xf32>) outs(%v : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @in_a_group(%x: memref<4x8xf32>, %m: memref<4xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [4] {
    // expected-error @+1 {{'aicf_loop.nest' writes %m (argument #1 of @in_a_group), an input}}
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction] ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel] ins(%x, %m : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %b: f32):
      %s = arith.subf %a, %b : f32
      aicf_loop.yield %s : f32
    }
  }
  func.return
}

// -----

// Writing an output in place (it is read where it is written) is fine.
// CHECK-LABEL: func.func @output_in_place
func.func @output_in_place(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x, %y : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
