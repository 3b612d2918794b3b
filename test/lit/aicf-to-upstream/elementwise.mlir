// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// A nest without reduction dims: one scf.for per dim (the domain's order), a load of
// every input through its access map, the body inlined, a store per output.

// sin(a * x + b), a broadcast along rows (map drops d0), b a 0-d scalar.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %[[C0:[^ ,)]+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C4:[^ ,)]+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C1:[^ ,)]+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C8:[^ ,)]+]] = arith.constant 8 : index
// CHECK-NEXT:    scf.for %[[I:[^ ,)]+]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT:        %[[X:[^ ,)]+]] = memref.load %x[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[A:[^ ,)]+]] = memref.load %a[%[[J]]] : memref<8xf32>
// CHECK-NEXT:        %[[B:[^ ,)]+]] = memref.load %b[] : memref<f32>
// CHECK-NEXT:        %[[M:[^ ,)]+]] = arith.mulf %[[A]], %[[X]] : f32
// CHECK-NEXT:        %[[S:[^ ,)]+]] = arith.addf %[[M]], %[[B]] : f32
// CHECK-NEXT:        %[[R:[^ ,)]+]] = math.sin %[[S]] : f32
// CHECK-NEXT:        memref.store %[[R]], %y[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @broadcast(%x: memref<4x8xf32>, %a: memref<8xf32>, %b: memref<f32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
    ins(%x, %a, %b : memref<4x8xf32>, memref<8xf32>, memref<f32>) outs(%y : memref<4x8xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (), (d0, d1) -> (d0, d1)] {
  ^bb0(%xv: f32, %av: f32, %bv: f32):
    %m = arith.mulf %av, %xv : f32
    %s = arith.addf %m, %bv : f32
    %r = math.sin %s : f32
    aicf_loop.yield %r : f32
  }
  func.return
}

// -----

// Two outputs, one a transpose of the domain: each stored through its own map; the
// allocation of an intermediate and its deallocation stay as they are.
// CHECK-LABEL: func.func @two_outputs
// CHECK:         %[[T:[^ ,)]+]] = memref.alloc() : memref<3x2xf32>
// CHECK:         scf.for %[[I:[^ ,)]+]] = {{.*}} {
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] = {{.*}} {
// CHECK-NEXT:        %[[X:[^ ,)]+]] = memref.load %x[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:        %[[E:[^ ,)]+]] = math.exp %[[X]] : f32
// CHECK-NEXT:        memref.store %[[X]], %[[T]][%[[J]], %[[I]]] : memref<3x2xf32>
// CHECK-NEXT:        memref.store %[[E]], %y[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK:         memref.dealloc %[[T]] : memref<3x2xf32>
func.func @two_outputs(%x: memref<2x3xf32>, %y: memref<2x3xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %t = memref.alloc() : memref<3x2xf32>
  aicf_loop.nest domain = [2, 3] iterators = [parallel, parallel]
    ins(%x : memref<2x3xf32>) outs(%t, %y : memref<3x2xf32>, memref<2x3xf32>)
    maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    aicf_loop.yield %v, %e : f32, f32
  }
  memref.dealloc %t : memref<3x2xf32>
  func.return
}

// -----

// An empty domain still lowers (its loops run zero times).
// CHECK-LABEL: func.func @empty
// CHECK:         %[[C0:[^ ,)]+]] = arith.constant 0 : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[C0]] step
// CHECK:           math.exp
func.func @empty(%x: memref<0xf32>, %y: memref<0xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [0] iterators = [parallel]
    ins(%x : memref<0xf32>) outs(%y : memref<0xf32>)
    maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    aicf_loop.yield %e : f32
  }
  func.return
}
