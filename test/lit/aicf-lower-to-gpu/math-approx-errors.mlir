// RUN: aicf-opt %s -p aicf-lower-to-gpu --verify-diagnostics

// A bad math mode is rejected at the nest.
func.func @bad(%x: memref<1024xf16>, %y: memref<1024xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.per_output parameter 'math' must be one of precise, approx, got fast}}
  aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1 : i64, block = 256 : i64, grid = 4 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 4 : i64, math = "fast"}} {
  ^bb0(%a: f16):
    aicf_loop.yield %a : f16
  }
  func.return
}
