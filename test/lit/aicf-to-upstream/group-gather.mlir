// RUN: aicf-opt %s -p aicf-to-upstream --print-no-properties --split-input-file | filecheck %s
// A group runs its member nests in order (its plain semantics; per-slice execution is
// a schedule); a gather reads its index, wraps it once and clamps it.

// softmax over rows of a 2x4 input: the group's local buffers stay allocations
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     aicf_loop
// CHECK:         %[[M:[^ ,)]+]] = memref.alloc() : memref<2xf32>
// CHECK:         scf.for
// CHECK:           arith.cmpf ogt
// CHECK:         memref.store %{{.*}}, %[[M]][%{{.*}}] : memref<2xf32>
// CHECK:         %[[S:[^ ,)]+]] = memref.alloc() : memref<2xf32>
// CHECK:         scf.for
// CHECK:           math.exp
// CHECK:         memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<2xf32>
// CHECK:         scf.for
// CHECK:           arith.divf
// CHECK:         memref.dealloc %[[M]] : memref<2xf32>
// CHECK-NEXT:    memref.dealloc %[[S]] : memref<2xf32>
// CHECK-NEXT:    func.return
func.func @softmax(%x: memref<2x4xf32>, %y: memref<2x4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [2] {
    %m = memref.alloc() : memref<2xf32>
    aicf_loop.nest domain = [2, 4] iterators = [parallel, reduction]
        ins(%x : memref<2x4xf32>) outs(%m : memref<2xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
    ^bb0(%v: f32):
      aicf_loop.yield %v : f32
    }
    %s = memref.alloc() : memref<2xf32>
    aicf_loop.nest domain = [2, 4] iterators = [parallel, reduction]
        ins(%x, %m : memref<2x4xf32>, memref<2xf32>) outs(%s : memref<2xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%v: f32, %mv: f32):
      %d = arith.subf %v, %mv : f32
      %e = math.exp %d : f32
      aicf_loop.yield %e : f32
    }
    aicf_loop.nest domain = [2, 4] iterators = [parallel, parallel]
        ins(%x, %m, %s : memref<2x4xf32>, memref<2xf32>, memref<2xf32>) outs(%y : memref<2x4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%v: f32, %mv: f32, %sv: f32):
      %d = arith.subf %v, %mv : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %sv : f32
      aicf_loop.yield %r : f32
    }
    memref.dealloc %m : memref<2xf32>
    memref.dealloc %s : memref<2xf32>
  }
  func.return
}

// -----

// wte[ids] along axis 0 of a 50x8 table: k = ids[i]; k < 0 ? k + 50 : k; clamp
// into [0, 49]
// CHECK-LABEL: func.func @take
// CHECK-DAG:     %[[C0:[^ ,)]+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C50:[^ ,)]+]] = arith.constant 50 : index
// CHECK-DAG:     %[[C49:[^ ,)]+]] = arith.constant 49 : index
// CHECK:         scf.for %[[I:[^ ,)]+]] =
// CHECK-NEXT:      scf.for %[[J:[^ ,)]+]] =
// CHECK-NEXT:        %[[RAW:[^ ,)]+]] = memref.load %ids[%[[I]]] : memref<4xi64>
// CHECK-NEXT:        %[[K:[^ ,)]+]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:        %[[NEG:[^ ,)]+]] = arith.cmpi slt, %[[K]], %[[C0]] : index
// CHECK-NEXT:        %[[W:[^ ,)]+]] = arith.addi %[[K]], %[[C50]] : index
// CHECK-NEXT:        %[[K1:[^ ,)]+]] = arith.select %[[NEG]], %[[W]], %[[K]] : index
// CHECK-NEXT:        %[[K2:[^ ,)]+]] = arith.maxsi %[[K1]], %[[C0]] : index
// CHECK-NEXT:        %[[K3:[^ ,)]+]] = arith.minsi %[[K2]], %[[C49]] : index
// CHECK-NEXT:        %[[V:[^ ,)]+]] = memref.load %wte[%[[K3]], %[[J]]] : memref<50x8xf32>
// CHECK-NEXT:        memref.store %[[V]], %y[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @take(%wte: memref<50x8xf32>, %ids: memref<4xi64>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.gather axis = 0 ins(%wte, %ids : memref<50x8xf32>, memref<4xi64>) outs(%y : memref<4x8xf32>)
  func.return
}
