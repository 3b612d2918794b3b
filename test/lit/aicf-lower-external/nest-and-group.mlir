// RUN: aicf-opt %s -p aicf-lower-external --split-input-file | filecheck %s
// A nest or group scheduled gpu.external becomes one library call on its boundary
// buffers (inputs, then outputs), carrying the schedule's parameters; a group's own
// buffers go with it; other nests are left to aicf-lower-to-gpu.

// CHECK-LABEL: func.func @bcast_sum
// CHECK-NEXT:    aicf_gpu.library_call "external" ins(%v : memref<1024xf32>) outs(%y : memref<1024xf32>) params = {key = "bcast-0123", args = array<i64: 0, 1>, workspace = 0 : i64, layout = "contiguous", grid = array<i64: 4, 1, 1>, block = array<i64: 256, 1, 1>, smem = 0 : i64}
// CHECK-NEXT:    func.return
func.func @bcast_sum(%v: memref<1024xf32>, %y: memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 1024] iterators = [reduction, parallel]
      ins(%v : memref<1024xf32>) outs(%y : memref<1024xf32>)
      maps = [(d0, d1) -> (d1), (d0, d1) -> (d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.external", key = "bcast-0123", args = array<i64: 0, 1>,
               workspace = 0, layout = "contiguous", grid = array<i64: 4, 1, 1>,
               block = array<i64: 256, 1, 1>, smem = 0, est_ns = 1000}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    aicf_gpu.library_call "external" ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) params = {key = "softmax-4567", args = array<i64: 1, 0>, workspace = 64 : i64, layout = "strided", grid = array<i64: 4, 1, 1>, block = array<i64: 32, 1, 1>, smem = 0 : i64}
// CHECK-NOT:     memref.alloc
// CHECK-NEXT:    func.return
func.func @softmax(%x: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [4] attributes {aicf.schedule = {kind = "gpu.external", key = "softmax-4567",
      args = array<i64: 1, 0>, workspace = 64, layout = "strided", grid = array<i64: 4, 1, 1>,
      block = array<i64: 32, 1, 1>, smem = 0}} {
    %m = memref.alloc() : memref<4xf32>
    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
        ins(%x, %m : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %b: f32):
      %d = arith.subf %a, %b : f32
      aicf_loop.yield %d : f32
    }
    memref.dealloc %m : memref<4xf32>
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @own
// CHECK-NEXT:    aicf_loop.nest
func.func @own(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
