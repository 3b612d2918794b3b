// RUN: aicf-opt %s -p aicf-lower-to-gpu | filecheck %s

// Rows of 1000 f32 = 250 float4 over a block of 256 lanes: cached in registers
// (one vector a lane), the vector guarded. Lanes past the row load the row's last
// vector (clamped index), keep their accumulators (select) and store nothing (if).
// CHECK-LABEL: aicf_gpu.kernel @softmax_group0
// CHECK-SAME:    rows=registers per=1
// CHECK:         arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         arith.cmpi ult
// CHECK:         aicf_gpu.load_vector %x
// CHECK:         arith.maximumf
// CHECK:         arith.select
// CHECK:         aicf_gpu.warp_reduce max
// CHECK:         math.exp
// CHECK:         arith.select
// CHECK:         aicf_gpu.warp_reduce add
// CHECK-NOT:     aicf_gpu.load_vector
// CHECK:         arith.divf
// CHECK:         scf.if
// CHECK-NEXT:    vector.broadcast
// CHECK:         aicf_gpu.store_vector {{.*}}, %out0
// CHECK-NEXT:    }
// CHECK:         aicf_gpu.return
func.func @softmax(%x: memref<4096x1000xf32>, %out0: memref<4096x1000xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [4096] attributes {aicf.schedule = {kind = "gpu.row_group", mode = "block", block = 256 : i64, grid = 4096 : i64, vec = 4 : i64, rows = "registers", per = 1 : i64, bps = 4 : i64, launch = "once", pipeline = 0 : i64, unroll = 4 : i64}} {
    %0 = memref.alloc() : memref<4096x1xf32>
    %1 = memref.alloc() : memref<4096x1xf32>
    aicf_loop.nest domain = [4096, 1000] iterators = [parallel, reduction]
      ins(%x : memref<4096x1000xf32>) outs(%0 : memref<4096x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [4096, 1000] iterators = [parallel, reduction]
      ins(%x, %0 : memref<4096x1000xf32>, memref<4096x1xf32>) outs(%1 : memref<4096x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0)] combiners = [add] {
    ^bb0(%a: f32, %m: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      aicf_loop.yield %e : f32
    }
    aicf_loop.nest domain = [4096, 1000] iterators = [parallel, parallel]
      ins(%x, %0, %1 : memref<4096x1000xf32>, memref<4096x1xf32>, memref<4096x1xf32>) outs(%out0 : memref<4096x1000xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %s : f32
      aicf_loop.yield %q : f32
    }
    memref.dealloc %0 : memref<4096x1xf32>
    memref.dealloc %1 : memref<4096x1xf32>
  }
  func.return
}
