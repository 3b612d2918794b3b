// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// Conversions: the body's own (extf, truncf, sitofp, ...) are upstream ops already;
// an accumulator is converted to the output's type when stored (a bf16 from f64
// rounded once, as the cpu target's aicf_f64_to_bf16 rounds it).

// mean of bf16 rows into bf16: computed in f32 by the body, summed in f64, stored
// to bf16 rounded once: to odd into f32 (the bits' stickiness kept), then to bf16
// CHECK-LABEL: func.func @bf16_sum
// CHECK:           %[[X:[^ ,)]+]] = memref.load %x[{{.*}}] : memref<2x4xbf16>
// CHECK-NEXT:      %[[F:[^ ,)]+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[D:[^ ,)]+]] = arith.extf %[[F]] : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}}, %[[D]] : f64
// CHECK:         %[[S:[^ ,)]+]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:         arith.bitcast %[[S]] : f32 to i32
// CHECK:         %[[B:[^ ,)]+]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:    memref.store %[[B]], %y[{{.*}}] : memref<2xbf16>
func.func @bf16_sum(%x: memref<2x4xbf16>, %y: memref<2xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 4] iterators = [parallel, reduction]
    ins(%x : memref<2x4xbf16>) outs(%y : memref<2xbf16>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%v: bf16):
    %f = arith.extf %v : bf16 to f32
    aicf_loop.yield %f : f32
  }
  func.return
}

// -----

// an i32 -> f16 cast nest: the body's sitofp and truncf as they are
// CHECK-LABEL: func.func @int_to_half
// CHECK:         %[[V:[^ ,)]+]] = memref.load %x[{{.*}}] : memref<8xi32>
// CHECK-NEXT:    %[[F:[^ ,)]+]] = arith.sitofp %[[V]] : i32 to f32
// CHECK-NEXT:    %[[H:[^ ,)]+]] = arith.truncf %[[F]] : f32 to f16
// CHECK-NEXT:    memref.store %[[H]], %y[{{.*}}] : memref<8xf16>
func.func @int_to_half(%x: memref<8xi32>, %y: memref<8xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8] iterators = [parallel]
    ins(%x : memref<8xi32>) outs(%y : memref<8xf16>)
    maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%v: i32):
    %f = arith.sitofp %v : i32 to f32
    %h = arith.truncf %f : f32 to f16
    aicf_loop.yield %h : f16
  }
  func.return
}

// -----

// A copy (into an output that aliases nothing) stays a copy; MLIR 16 prints and
// parses it in the generic form.
// CHECK-LABEL: func.func @copy
// CHECK-NEXT:    "memref.copy"(%x, %y) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
func.func @copy(%x: memref<2x3xf32>, %y: memref<2x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  "memref.copy"(%x, %y) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  func.return
}
