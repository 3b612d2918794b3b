// RUN: aicf-opt %s -p 'aicf-plan{target=cpu explain=true}' --split-input-file 2>%t | filecheck %s
// RUN: filecheck %s --check-prefix=WHY < %t
// Nests BLAS cannot run get no schedule; explain=true says why, per nest.

// f16 has no BLAS gemm.
// CHECK-LABEL: func.func @f16
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[64, 48, 32]
// WHY: cpu.blas_gemm does not apply: element types f16, f16, f16: BLAS gemm needs all f32 or all f64
func.func @f16(%a: memref<64x32xf16>, %b: memref<32x48xf16>, %c: memref<64x48xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf16>, memref<32x48xf16>) outs(%c : memref<64x48xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f16, %w: f16):
    %xf = arith.extf %x : f16 to f32
    %wf = arith.extf %w : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A row sum has one input.
// CHECK-LABEL: func.func @sum
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[64, 32]
// WHY: cpu.blas_gemm does not apply: not two inputs and one output
func.func @sum(%a: memref<64x32xf32>, %c: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 32] iterators = [parallel, reduction]
      ins(%a : memref<64x32xf32>) outs(%c : memref<64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

// A sum of differences is not a product.
// CHECK-LABEL: func.func @not_product
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[64, 48, 32]
// WHY: cpu.blas_gemm does not apply: the body is not a product of the two inputs
func.func @not_product(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<64x48xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 48, 32] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.subf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// An elementwise product has no reduction dim.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[64, 32]
// WHY: cpu.blas_gemm does not apply: not one reduction dim combined by add
func.func @elementwise(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 32] iterators = [parallel, parallel]
      ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A matmul whose operand is read through a reshape's floordiv/mod is no BLAS matrix.
// CHECK-LABEL: func.func @reshaped
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[8, 8, 8]
// WHY: cpu.blas_gemm does not apply: operand #0: an access map result ({{.*}}) is not a plain index
func.func @reshaped(%a: memref<64xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<64xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0 * 8 + d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// A matrix with steps along both dims (a strided view's constant layout) is no BLAS
// matrix.
// CHECK-LABEL: func.func @stepped
// CHECK-NOT: cpu.blas_gemm
// WHY: nest #0 domain=[8, 8, 8]
// WHY: cpu.blas_gemm does not apply: the first input is not a row- or column-major (m, k) matrix
func.func @stepped(%a: memref<8x8xf32, strided<[32, 2]>>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32, strided<[32, 2]>>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
