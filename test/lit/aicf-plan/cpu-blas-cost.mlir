// RUN: aicf-opt %s -p 'aicf-plan{target=cpu cores=2 explain=true top=0}' --split-input-file 2>%t | filecheck %s
// RUN: filecheck %s --check-prefix=WHY < %t
// BLAS is chosen only where it is predicted faster than the loop nest: a 2x2x2 product
// costs less as a loop nest than one BLAS call's fixed cost. A single large call is
// split into column chunks, one per core.

// CHECK-LABEL: func.func @tiny
// CHECK: aicf.schedule = {kind = "cpu.nest"
// WHY: @tiny nest #0 domain=[2, 2, 2]
// WHY-NEXT: -> cpu.nest
// WHY-NEXT: cpu.blas_gemm {{.*}} (1 call(s) x 2x2x2 in 1 tasks)
func.func @tiny(%a: memref<2x2xf32>, %b: memref<2x2xf32>, %c: memref<2x2xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 2, 2] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<2x2xf32>, memref<2x2xf32>) outs(%c : memref<2x2xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @big
// CHECK: kind = "cpu.blas_gemm", {{.*}} tasks_n = 2 : i64
// WHY: @big nest #0 domain=[256, 256, 256]
// WHY-NEXT: cpu.nest
// WHY-NEXT: -> cpu.blas_gemm {{.*}} (1 call(s) x 256x256x256 in 2 tasks)
func.func @big(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [256, 256, 256] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
