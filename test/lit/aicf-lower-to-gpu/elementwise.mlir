// RUN: aicf-opt %s -p aicf-lower-to-gpu | filecheck %s

// Contiguous operands collapse to 1-D; 16-byte vector accesses; grid-stride loop
// over vector groups, then a scalar tail (1001 = 250 * 4 + 1).
// CHECK-LABEL: aicf_gpu.kernel @flat_nest0
// CHECK-SAME: index = 32
// CHECK: aicf_gpu.load_vector %{{.*}} : memref<1001xf32> -> vector<4xf32>
// CHECK: math.sin
// CHECK: aicf_gpu.store_vector %{{.*}} : vector<4xf32>, memref<1001xf32>
// CHECK: scf.for
// CHECK: memref.load
// CHECK-LABEL: func.func @flat
// CHECK: aicf_gpu.launch @flat_nest0(%x, %y)
func.func @flat(%x: memref<7x143xf32>, %y: memref<7x143xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [7, 143] iterators = [parallel, parallel]
      ins(%x : memref<7x143xf32>) outs(%y : memref<7x143xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 512 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 4 : i64, grid_kind = "once", est_ns = 5555 : i64}} {
  ^bb0(%a : f32):
    %s = math.sin %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// A broadcast row is read as a vector along the innermost dim; a strided input
// (dynamic strides) element by element.
// CHECK-LABEL: aicf_gpu.kernel @bcast_nest0
// CHECK-SAME: memref<4x8xf32, strided<[?, ?], offset: ?>>
// CHECK-COUNT-4: memref.load %x
// CHECK: aicf_gpu.load_vector %b[%{{.*}}] : memref<8xf32> -> vector<4xf32>
// CHECK: aicf_gpu.store_vector
func.func @bcast(%x: memref<4x8xf32, strided<[?, ?], offset: ?>>, %b: memref<8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x, %b : memref<4x8xf32, strided<[?, ?], offset: ?>>, memref<8xf32>)
      outs(%y : memref<4x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 512 : i64, grid = 1 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 3 : i64, grid_kind = "once", est_ns = 4813 : i64}} {
  ^bb0(%a : f32, %c : f32):
    %s = arith.addf %a, %c : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
