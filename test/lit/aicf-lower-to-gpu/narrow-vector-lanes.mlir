// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file | filecheck %s

// A vector of 2 i64 inputs gives 2 bools out: 2 bytes is no vector access (4, 8 or
// 16 bytes), so the i64 operands are read as 16-byte vectors and the bools stored
// lane by lane.
// CHECK-LABEL: aicf_gpu.kernel @cmp_nest0
// CHECK:     aicf_gpu.load_vector %{{.*}} : memref<6xi64> -> vector<2xi64>
// CHECK-NOT: aicf_gpu.store_vector
// CHECK:     memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<6xi1>
// CHECK:     memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<6xi1>
// CHECK-LABEL: func.func @cmp
func.func @cmp(%x: memref<6xi64>, %y: memref<6xi1>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [6] iterators = [parallel]
      ins(%x : memref<6xi64>) outs(%y : memref<6xi1>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 2 : i64, block = 32 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 1 : i64, grid_kind = "once", est_ns = 100 : i64}} {
  ^bb0(%a : i64):
    %c0 = arith.constant 0 : i64
    %b = arith.cmpi sgt, %a, %c0 : i64
    aicf_loop.yield %b : i1
  }
  func.return
}

// -----

// A hand-written vec = 3 of f32 (12 bytes: no vector access) runs 3 points per
// thread, each loaded and stored on its own.
// CHECK-LABEL: aicf_gpu.kernel @three_nest0
// CHECK-NOT: _vector
// CHECK-COUNT-3: memref.load %{{.*}} : memref<24xf32>
// CHECK-COUNT-3: memref.store %{{.*}} : memref<24xf32>
// CHECK-LABEL: func.func @three
func.func @three(%x: memref<4x6xf32>, %y: memref<4x6xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 6] iterators = [parallel, parallel] ins(%x : memref<4x6xf32>) outs(%y : memref<4x6xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 3, block = 32, grid = 1, split = 1, unroll = 1, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
