// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// Verifier rules of aicf_loop.gather: integer indices, one element type, a
// non-negative axis in range, the gathered output shape.

func.func @float_indices(%x: memref<3x5xf32>, %i: memref<2xf32>, %y: memref<2x5xf32>) {
  // expected-error @+1 {{'aicf_loop.gather' indices must be i32 or i64, got f32}}
  aicf_loop.gather axis = 0 ins(%x, %i : memref<3x5xf32>, memref<2xf32>) outs(%y : memref<2x5xf32>)
  func.return
}

// -----

func.func @element_types(%x: memref<3x5xf32>, %i: memref<2xi32>, %y: memref<2x5xf16>) {
  // expected-error @+1 {{'aicf_loop.gather' output element type f16 differs from the source's f32}}
  aicf_loop.gather axis = 0 ins(%x, %i : memref<3x5xf32>, memref<2xi32>) outs(%y : memref<2x5xf16>)
  func.return
}

// -----

func.func @axis(%x: memref<3x5xf32>, %i: memref<2xi32>, %y: memref<2x5xf32>) {
  // expected-error @+1 {{'aicf_loop.gather' axis 2 is out of range for a rank-2 source}}
  aicf_loop.gather axis = 2 ins(%x, %i : memref<3x5xf32>, memref<2xi32>) outs(%y : memref<2x5xf32>)
  func.return
}

// -----

func.func @shape(%x: memref<3x5xf32>, %i: memref<2xi32>, %y: memref<5x2xf32>) {
  // expected-error @+1 {{'aicf_loop.gather' output shape 5x2 is not the gathered shape 2x5}}
  aicf_loop.gather axis = 0 ins(%x, %i : memref<3x5xf32>, memref<2xi32>) outs(%y : memref<5x2xf32>)
  func.return
}
