// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s

// CHECK-LABEL: func.func @row_sum
func.func @row_sum(%x: memref<4x8xf32>, %b: memref<8xf32>, %y: memref<4xf32>) {
  // CHECK:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK-NEXT:   ins(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<8xf32>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<4xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
  // CHECK-NEXT:   combiners = [add] {
  // CHECK:        aicf_loop.yield %{{.*}} : f32
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x, %b : memref<4x8xf32>, memref<8xf32>)
      outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
      combiners = [add] {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// An elementwise nest prints no combiners; a reshape reads through floordiv/mod.
// CHECK-LABEL: func.func @reshape_copy
func.func @reshape_copy(%x: memref<4x8xf16>, %y: memref<32xf16>) {
  // CHECK:      aicf_loop.nest domain = [32] iterators = [parallel]
  // CHECK:        maps = [(d0) -> ((d0 floordiv 8), (d0 mod 8)), (d0) -> (d0)] {
  // CHECK-NOT:    combiners
  aicf_loop.nest domain = [32] iterators = [parallel]
      ins(%x : memref<4x8xf16>) outs(%y : memref<32xf16>)
      maps = [(d0) -> (d0 floordiv 8, d0 mod 8), (d0) -> (d0)] {
  ^bb0(%a: f16):
    aicf_loop.yield %a : f16
  }
  func.return
}

// The accumulator type (f32) may differ from the output's element type (f16).
// CHECK-LABEL: func.func @matmul_f16
func.func @matmul_f16(%a: memref<4x8xf16>, %b: memref<8x2xf16>, %c: memref<4x2xf16>) {
  // CHECK: aicf_loop.nest domain = [4, 2, 8] iterators = [parallel, parallel, reduction]
  // CHECK: combiners = [add]
  aicf_loop.nest domain = [4, 2, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<4x8xf16>, memref<8x2xf16>) outs(%c : memref<4x2xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
      combiners = [add] {
  ^bb0(%x: f16, %w: f16):
    %xf = arith.extf %x : f16 to f32
    %wf = arith.extf %w : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
