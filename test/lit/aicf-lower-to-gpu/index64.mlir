// RUN: aicf-opt %s -p aicf-lower-to-gpu | filecheck %s

// 2^31 elements or more: 64-bit index arithmetic.
// CHECK: aicf_gpu.kernel @big_nest0
// CHECK-SAME: index = 64
func.func @big(%x: memref<2147483648xf16>, %y: memref<2147483648xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [2147483648] iterators = [parallel]
      ins(%x : memref<2147483648xf16>) outs(%y : memref<2147483648xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 8 : i64, block = 256 : i64, grid = 131072 : i64, split = 1 : i64, unroll = 8 : i64, minblocks = 4 : i64, grid_kind = "once", est_ns = 2917759 : i64}} {
  ^bb0(%a : f16):
    %e = arith.extf %a : f16 to f32
    %n = arith.negf %e : f32
    %t = arith.truncf %n : f32 to f16
    aicf_loop.yield %t : f16
  }
  func.return
}
