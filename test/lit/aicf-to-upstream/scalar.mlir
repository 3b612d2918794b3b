// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// Body ops that MLIR 16 lacks or defines differently become ops it has, with aicf's
// (the cpu target's) semantics.

// maximumf propagates NaN: a > b || a != a ? a : b; maxnumf ignores it: a > b ||
// b != b ? a : b (C's fmax)
// CHECK-LABEL: func.func @min_max
// CHECK:         %[[A:[^ ,)]+]] = memref.load %x
// CHECK-NEXT:    %[[B:[^ ,)]+]] = memref.load %y
// CHECK-NEXT:    %[[GT:[^ ,)]+]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[AN:[^ ,)]+]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT:    %[[P:[^ ,)]+]] = arith.ori %[[GT]], %[[AN]] : i1
// CHECK-NEXT:    %[[MAX:[^ ,)]+]] = arith.select %[[P]], %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[LT:[^ ,)]+]] = arith.cmpf olt, %[[MAX]], %[[B]] : f32
// CHECK-NEXT:    %[[BN:[^ ,)]+]] = arith.cmpf uno, %[[B]], %[[B]] : f32
// CHECK-NEXT:    %[[Q:[^ ,)]+]] = arith.ori %[[LT]], %[[BN]] : i1
// CHECK-NEXT:    arith.select %[[Q]], %[[MAX]], %[[B]] : f32
// CHECK-NOT:     arith.m{{(ax|in)}}
func.func @min_max(%x: memref<4xf32>, %y: memref<4xf32>, %z: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%x, %y : memref<4xf32>, memref<4xf32>) outs(%z : memref<4xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.minnumf %m, %b : f32
    aicf_loop.yield %n : f32
  }
  func.return
}

// -----

// x / d: 0 where d = 0, -x (wrapping) where d = -1, else the division by d; x % d: 0
// where d is 0 or -1. A constant divisor other than 0 and -1 needs no guard.
// CHECK-LABEL: func.func @division
// CHECK:         %[[X:[^ ,)]+]] = memref.load %x
// CHECK-NEXT:    %[[D:[^ ,)]+]] = memref.load %d
// CHECK-NEXT:    %[[Z:[^ ,)]+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ONE:[^ ,)]+]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[M1:[^ ,)]+]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[IS0:[^ ,)]+]] = arith.cmpi eq, %[[D]], %[[Z]] : i32
// CHECK-NEXT:    %[[ISM1:[^ ,)]+]] = arith.cmpi eq, %[[D]], %[[M1]] : i32
// CHECK-NEXT:    %[[SP:[^ ,)]+]] = arith.ori %[[IS0]], %[[ISM1]] : i1
// CHECK-NEXT:    %[[SAFE:[^ ,)]+]] = arith.select %[[SP]], %[[ONE]], %[[D]] : i32
// CHECK-NEXT:    %[[Q:[^ ,)]+]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK-NEXT:    %[[NEG:[^ ,)]+]] = arith.subi %[[Z]], %[[X]] : i32
// CHECK-NEXT:    %[[BY:[^ ,)]+]] = arith.select %[[IS0]], %[[Z]], %[[NEG]] : i32
// CHECK-NEXT:    %[[DIV:[^ ,)]+]] = arith.select %[[SP]], %[[BY]], %[[Q]] : i32
// CHECK:         %[[R:[^ ,)]+]] = arith.remsi %[[X]], %[[SAFE2:[^ ,)]+]] : i32
// CHECK-NEXT:    %[[REM:[^ ,)]+]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : i32
// CHECK-NEXT:    %[[SEVEN:[^ ,)]+]] = arith.constant 7 : i32
// CHECK-NEXT:    arith.floordivsi %[[X]], %[[SEVEN]] : i32
func.func @division(%x: memref<4xi32>, %d: memref<4xi32>, %q: memref<4xi32>, %r: memref<4xi32>, %f: memref<4xi32>) attributes {aicf.num_outputs = 3 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%x, %d : memref<4xi32>, memref<4xi32>) outs(%q, %r, %f : memref<4xi32>, memref<4xi32>, memref<4xi32>)
    maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: i32, %b: i32):
    %0 = arith.divsi %a, %b : i32
    %1 = arith.remsi %a, %b : i32
    %c7 = arith.constant 7 : i32
    %2 = arith.floordivsi %a, %c7 : i32
    aicf_loop.yield %0, %1, %2 : i32, i32, i32
  }
  func.return
}

// -----

// x ** n on integers: square and multiply over the exponent's 32 bits (wrapping); a
// negative n gives 1 for x = 1, +-1 for x = -1, else 0.
// CHECK-LABEL: func.func @int_power
// CHECK:         %[[X:[^ ,)]+]] = memref.load %x
// CHECK-NEXT:    %[[N:[^ ,)]+]] = memref.load %n
// CHECK:         %[[C32:[^ ,)]+]] = arith.constant 32 : index
// CHECK:         %[[P:[^ ,)]+]], %{{.*}}, %{{.*}} = scf.for %{{.*}} to %[[C32]] step %{{.*}} iter_args(%[[ACC:[^ ,)]+]] = %[[ONE:[^ ,)]+]], %[[BASE:[^ ,)]+]] = %[[X]], %[[REST:[^ ,)]+]] = %[[N]]) -> (i32, i32, i32) {
// CHECK-NEXT:      %[[BIT:[^ ,)]+]] = arith.andi %[[REST]], %[[ONE]] : i32
// CHECK-NEXT:      %[[ODD:[^ ,)]+]] = arith.cmpi ne, %[[BIT]], %{{.*}} : i32
// CHECK-NEXT:      %[[T:[^ ,)]+]] = arith.muli %[[ACC]], %[[BASE]] : i32
// CHECK-NEXT:      %[[A2:[^ ,)]+]] = arith.select %[[ODD]], %[[T]], %[[ACC]] : i32
// CHECK-NEXT:      %[[B2:[^ ,)]+]] = arith.muli %[[BASE]], %[[BASE]] : i32
// CHECK-NEXT:      %[[R2:[^ ,)]+]] = arith.shrui %[[REST]], %[[ONE]] : i32
// CHECK-NEXT:      scf.yield %[[A2]], %[[B2]], %[[R2]] : i32, i32, i32
// CHECK-NEXT:    }
// CHECK:         %[[NEGATIVE:[^ ,)]+]] = arith.cmpi slt, %[[N]], %{{.*}} : i32
// CHECK-NEXT:    arith.select %[[NEGATIVE]], %{{.*}}, %[[P]] : i32
// CHECK-NOT:     math.ipowi
func.func @int_power(%x: memref<4xi32>, %n: memref<4xi32>, %y: memref<4xi32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel]
    ins(%x, %n : memref<4xi32>, memref<4xi32>) outs(%y : memref<4xi32>)
    maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: i32, %b: i32):
    %p = math.ipowi %a, %b : i32
    aicf_loop.yield %p : i32
  }
  func.return
}
