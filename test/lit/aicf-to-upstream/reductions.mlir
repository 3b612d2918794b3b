// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// A nest with reduction dims: the parallel dims' loops outside, the reduction dims'
// loops inside carrying one accumulator per output from the combiner's identity;
// the fold is stored once, converted to the output's type. Sums and products of
// floats accumulate in f64, of integers in i64 (the cpu target's accumulators).

// sum over the last axis
// CHECK-LABEL: func.func @row_sum
// CHECK:         scf.for %[[I:[^ ,)]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ZERO:[^ ,)]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[ACC:[^ ,)]+]] = scf.for %[[J:[^ ,)]+]] = %{{.*}} iter_args(%[[A:[^ ,)]+]] = %[[ZERO]]) -> (f64) {
// CHECK-NEXT:        %[[X:[^ ,)]+]] = memref.load %x[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[W:[^ ,)]+]] = arith.extf %[[X]] : f32 to f64
// CHECK-NEXT:        %[[S:[^ ,)]+]] = arith.addf %[[A]], %[[W]] : f64
// CHECK-NEXT:        scf.yield %[[S]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[R:[^ ,)]+]] = arith.truncf %[[ACC]] : f64 to f32
// CHECK-NEXT:      memref.store %[[R]], %y[%[[I]]] : memref<4xf32>
func.func @row_sum(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
    ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// A reduction over the leading dim: the parallel dim's loop goes outside anyway.
// max propagates NaN (the cpu target's AICF_FMAX(acc, v)), from -inf.
// CHECK-LABEL: func.func @column_max
// CHECK:         scf.for %[[J:[^ ,)]+]] = %{{.*}} to %[[C8:[^ ,)]+]] step %{{.*}} {
// CHECK-NEXT:      %[[NINF:[^ ,)]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[ACC:[^ ,)]+]] = scf.for %[[I:[^ ,)]+]] = %{{.*}} to %[[C4:[^ ,)]+]] step %{{.*}} iter_args(%[[A:[^ ,)]+]] = %[[NINF]]) -> (f32) {
// CHECK-NEXT:        %[[X:[^ ,)]+]] = memref.load %x[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[GT:[^ ,)]+]] = arith.cmpf ogt, %[[A]], %[[X]] : f32
// CHECK-NEXT:        %[[NAN:[^ ,)]+]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT:        %[[KEEP:[^ ,)]+]] = arith.ori %[[GT]], %[[NAN]] : i1
// CHECK-NEXT:        %[[M:[^ ,)]+]] = arith.select %[[KEEP]], %[[A]], %[[X]] : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[ACC]], %y[%[[J]]] : memref<8xf32>
func.func @column_max(%x: memref<4x8xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [reduction, parallel]
    ins(%x : memref<4x8xf32>) outs(%y : memref<8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [max] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}

// -----

// A full reduction (no parallel dim) of i32 products, in i64, and a min, in i32, of
// one nest: two accumulators carried by every reduction loop.
// CHECK-LABEL: func.func @prod_and_min
// CHECK:         %[[ONE:[^ ,)]+]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[MAX:[^ ,)]+]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    %[[RP:[^ ,)]+]], %[[RM:[^ ,)]+]] = scf.for %{{.*}} iter_args(%[[P:[^ ,)]+]] = %[[ONE]], %[[M:[^ ,)]+]] = %[[MAX]]) -> (i64, i32) {
// CHECK-NEXT:      %[[RP2:[^ ,)]+]], %[[RM2:[^ ,)]+]] = scf.for %{{.*}} iter_args(%[[P2:[^ ,)]+]] = %[[P]], %[[M2:[^ ,)]+]] = %[[M]]) -> (i64, i32) {
// CHECK-NEXT:        %[[X:[^ ,)]+]] = memref.load
// CHECK-NEXT:        %[[W:[^ ,)]+]] = arith.extsi %[[X]] : i32 to i64
// CHECK-NEXT:        %[[NP:[^ ,)]+]] = arith.muli %[[P2]], %[[W]] : i64
// CHECK-NEXT:        %[[NM:[^ ,)]+]] = arith.minsi %[[M2]], %[[X]] : i32
// CHECK-NEXT:        scf.yield %[[NP]], %[[NM]] : i64, i32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[RP2]], %[[RM2]] : i64, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[T:[^ ,)]+]] = arith.trunci %[[RP]] : i64 to i32
// CHECK-NEXT:    memref.store %[[T]], %p[] : memref<i32>
// CHECK-NEXT:    memref.store %[[RM]], %m[] : memref<i32>
func.func @prod_and_min(%x: memref<3x5xi32>, %p: memref<i32>, %m: memref<i32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [3, 5] iterators = [reduction, reduction]
    ins(%x : memref<3x5xi32>) outs(%p, %m : memref<i32>, memref<i32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (), (d0, d1) -> ()] combiners = [mul, min] {
  ^bb0(%v: i32):
    aicf_loop.yield %v, %v : i32, i32
  }
  func.return
}

// -----

// any() over i1: an `or` from false (i1 add is not addition); all(): `and` from true.
// CHECK-LABEL: func.func @any_all
// CHECK:         %[[F:[^ ,)]+]] = arith.constant false
// CHECK-NEXT:    %[[T:[^ ,)]+]] = arith.constant true
// CHECK:           arith.ori
// CHECK-NEXT:      arith.andi
func.func @any_all(%x: memref<6xi1>, %a: memref<i1>, %b: memref<i1>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [6] iterators = [reduction]
    ins(%x : memref<6xi1>) outs(%a, %b : memref<i1>, memref<i1>)
    maps = [(d0) -> (d0), (d0) -> (), (d0) -> ()] combiners = [add, min] {
  ^bb0(%v: i1):
    aicf_loop.yield %v, %v : i1, i1
  }
  func.return
}

// -----

// matmul: C[i, j] = sum_k A[i, k] * B[k, j], the reduction dim in the middle of the
// domain; the loads use it where the maps say.
// CHECK-LABEL: func.func @matmul
// CHECK:         scf.for %[[I:[^ ,)]+]] = {{.*}} {
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] = {{.*}} {
// CHECK-NEXT:        arith.constant 0.000000e+00 : f64
// CHECK-NEXT:        %[[ACC:[^ ,)]+]] = scf.for %[[K:[^ ,)]+]] = {{.*}} -> (f64) {
// CHECK-NEXT:          memref.load %a[%[[I]], %[[K]]] : memref<2x5xf32>
// CHECK-NEXT:          memref.load %b[%[[K]], %[[J]]] : memref<5x3xf32>
// CHECK:             memref.store %{{.*}}, %c[%[[I]], %[[J]]] : memref<2x3xf32>
func.func @matmul(%a: memref<2x5xf32>, %b: memref<5x3xf32>, %c: memref<2x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2, 5, 3] iterators = [parallel, reduction, parallel]
    ins(%a, %b : memref<2x5xf32>, memref<5x3xf32>) outs(%c : memref<2x3xf32>)
    maps = [(d0, d1, d2) -> (d0, d1), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d2)]
    combiners = [add] {
  ^bb0(%x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
