// REQUIRES: mlir-16
// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm | filecheck %s
// RUN: aicf-opt %S/../../../examples/sin_sum.mlir -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm | filecheck %s --check-prefix=SIN-SUM
// RUN: aicf-opt %S/../../../examples/chain.mlir -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm | filecheck %s --check-prefix=CHAIN
// RUN: aicf-opt %S/../../../examples/matmul.mlir -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm | filecheck %s --check-prefix=MATMUL
// RUN: aicf-opt %S/../../../examples/broadcast_sin.mlir -p aicf-to-upstream --print-no-properties | %mlir-opt-16 %upstream-to-llvm | filecheck %s --check-prefix=BROADCAST-SIN
// Upstream mlir-opt (MLIR 16) parses aicf-to-upstream's output and lowers it to the
// LLVM dialect with aicf.upstream.LLVM_LOWERING: every op family, and the examples.

// CHECK-NOT:   scf.
// CHECK-NOT:   memref.
// CHECK-NOT:   math.
// CHECK:       llvm.mlir.global private constant @table
// CHECK:       llvm.func @families(
// CHECK:       llvm.call @tanhf
// CHECK:       llvm.func @strided(
"memref.global"() {sym_name = "table", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[1.5, -2.0]> : tensor<2xf32>, constant} : () -> ()
func.func @families(%x: memref<4x8xf32>, %h: memref<8xbf16>, %ids: memref<3xi32>, %d: memref<4xi32>,
                    %y: memref<4xf32>, %g: memref<3x4xf32>, %q: memref<4xi32>, %hs: memref<f16>) attributes {aicf.num_outputs = 4 : i64} {
  %t = memref.get_global @table : memref<2xf32>
  aicf_loop.group shared = [4] {
    %m = memref.alloc() : memref<4xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
    ^bb0(%v: f32):
      aicf_loop.yield %v : f32
    }
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x, %m, %h, %t : memref<4x8xf32>, memref<4xf32>, memref<8xbf16>, memref<2xf32>) outs(%y : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d1), (d0, d1) -> (d1 mod 2), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%v: f32, %mv: f32, %hv: bf16, %tv: f32):
      %s = arith.subf %v, %mv : f32
      %e = math.tanh %s : f32
      %hf = arith.extf %hv : bf16 to f32
      %p = arith.mulf %e, %hf : f32
      %n = arith.minnumf %p, %tv : f32
      aicf_loop.yield %n : f32
    }
    memref.dealloc %m : memref<4xf32>
  }
  %r = memref.alloc() : memref<8x4xf32>
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x : memref<4x8xf32>) outs(%r : memref<8x4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1, d0)] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  aicf_loop.gather axis = 0 ins(%r, %ids : memref<8x4xf32>, memref<3xi32>) outs(%g : memref<3x4xf32>)
  memref.dealloc %r : memref<8x4xf32>
  aicf_loop.nest domain = [4] iterators = [parallel]
      ins(%d : memref<4xi32>) outs(%q : memref<4xi32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%v: i32):
    %c3 = arith.constant 3 : i32
    %a = arith.divsi %c3, %v : i32
    %p = math.ipowi %a, %v : i32
    aicf_loop.yield %p : i32
  }
  aicf_loop.nest domain = [8] iterators = [reduction]
      ins(%h : memref<8xbf16>) outs(%hs : memref<f16>)
      maps = [(d0) -> (d0), (d0) -> ()] combiners = [add] {
  ^bb0(%v: bf16):
    %f = arith.extf %v : bf16 to f32
    aicf_loop.yield %f : f32
  }
  func.return
}

func.func @strided(%x: memref<4x8xf32, strided<[?, ?], offset: ?>>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32, strided<[?, ?], offset: ?>>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// SIN-SUM:       llvm.func @sin_sum(
// SIN-SUM:         llvm.intr.sin
// CHAIN:         llvm.func @chain(
// CHAIN:           llvm.call @tanhf
// CHAIN:           llvm.intr.exp
// MATMUL:        llvm.func @matmul(
// MATMUL:          llvm.fmul
// BROADCAST-SIN: llvm.func @broadcast_sin(
// BROADCAST-SIN:   llvm.intr.sin
