// RUN: aicf-opt %s -p 'aicf-plan{explain=true top=3}' 2>&1 >/dev/null | filecheck %s
// explain=true prints the ranking: every cost term of the best candidates, the
// choice and why, and the rejected candidates with their reasons.

// CHECK: matmul 1024x1024x1024 (M x N x K) on NVIDIA H100 80GB HBM3 (132 SMs): {{[0-9]+}} feasible candidates, {{[0-9]+}} rejected
// CHECK-NEXT: # candidate {{.*}} regs smem bps waves tail issue confl fma_us smem_us lat_us sync_us dram_us l2_us cont_us total_us TFLOP/s bound
// CHECK-NEXT: 0 {{[0-9]+x[0-9]+x[0-9]+}} t{{.*}} fma
// CHECK-NEXT: 1
// CHECK-NEXT: 2
// CHECK-NEXT: chosen: {{.*}} threads; bound by fma; layouts A=#aicf_gpu.swizzle<vec = 4, {{.*}}> B=none
// CHECK: rejected (registers, {{[0-9]+}}): e.g. {{.*}}: holds ~{{[0-9]+}} registers of prefetched tiles across the k-tile (> 64: ptxas spills)
// CHECK: rejected (shared memory, {{[0-9]+}}): e.g. {{.*}}: {{[0-9]+}} KB of shared tiles > 48 KB a block holds statically
func.func @mm(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1024, 1024, 1024] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}
