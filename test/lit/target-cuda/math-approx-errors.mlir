// RUN: aicf-opt %s -t cuda --verify-diagnostics
// An op marked approximate that has no approximate CUDA form is an error at the op.

aicf_gpu.kernel @log(%x : memref<1024xf32>, %y : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 4] index = 32 {
  %t = aicf_gpu.thread_id x
  %a = memref.load %x[%t] : memref<1024xf32>
  // expected-error @+1 {{'math.log' has no approximate CUDA form on f32 (math = "approx" covers arith.divf, math.cos, math.exp, math.exp2, math.sin, math.tanh on f32)}}
  %l = math.log %a fastmath<afn> : f32
  memref.store %l, %y[%t] : memref<1024xf32>
  aicf_gpu.return
}
