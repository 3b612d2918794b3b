// RUN: aicf-opt %s -p 'aicf-plan{target=h100 explain=true top=3}' 2>&1 >/dev/null | filecheck %s
// explain=true prints, per nest, every candidate with its guard and predicted time,
// the winner (->), and for the tiled matmul the ranking of its space with every cost
// term and the rejected points with their reasons.

// CHECK: @mm nest #0 domain=[1024, 1024, 1024] [parallel,parallel,reduction] on NVIDIA H100 80GB HBM3
// CHECK-NEXT: gpu.wgmma does not apply: inputs are f32 and matmul_precision is 'highest' ('high' allows TF32)
// CHECK-NEXT: gpu.mma_sync does not apply: inputs are f32 and f32, not both f16 or both bf16
// CHECK-NEXT: -> gpu.matmul_tiled {{ *}}[[T:[0-9.]+]] us bm={{[0-9]+}} bn={{[0-9]+}}
// CHECK-NEXT: matmul 1024x1024x1024 (M x N x K) on NVIDIA H100 80GB HBM3 (132 SMs): {{[0-9]+}} feasible candidates, {{[0-9]+}} rejected
// CHECK-NEXT: # candidate {{.*}} regs smem bps waves tail issue confl fma_us smem_us lat_us sync_us dram_us l2_us cont_us total_us TFLOP/s bound
// CHECK-NEXT: 0 {{[0-9]+x[0-9]+x[0-9]+}} t{{.*}} fma
// CHECK-NEXT: 1
// CHECK-NEXT: 2
// CHECK-NEXT: chosen: {{.*}} threads; bound by fma; layouts A=#aicf_gpu.swizzle<vec = 4, {{.*}}> B=none
// CHECK: rejected (registers, {{[0-9]+}}): e.g. {{.*}}: holds ~{{[0-9]+}} registers of prefetched tiles across the k-tile (> 64: ptxas spills)
// CHECK: rejected (shared memory, {{[0-9]+}}): e.g. {{.*}}: {{[0-9]+}} KB of shared tiles > 48 KB a block holds statically
// CHECK: gpu.rows does not apply: not a reduction over the innermost dims
// CHECK-NEXT: gpu.per_output {{.*}} (not taken: gpu.matmul_tiled is built for this shape; this model prices neither operand reuse nor uncoalesced walks)
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

// A reduction over the inner dim: the row schedule and the per-output one are both
// priced; a schedule written by hand is kept and the explanation says so.
// CHECK: @sum nest #0 domain=[4096, 4096] [parallel,reduction]
// CHECK-NEXT: gpu.wgmma does not apply: the nest is not a matmul
// CHECK-NEXT: gpu.mma_sync does not apply: the nest is not a matmul
// CHECK-NEXT: gpu.matmul_tiled does not apply: not a matmul
// CHECK-NEXT: -> gpu.rows {{ *}}{{[0-9.]+}} us vec=4 mode={{warp|block|split}}
// CHECK-NEXT: gpu.per_output
// CHECK: @given nest #0
// CHECK-NEXT: given: gpu.per_output vec=1 block=128 grid=4 split=1 unroll=4 minblocks=1 (written before aicf-plan: kept)
func.func @sum(%x: memref<4096x4096xf32>, %y: memref<4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 4096] iterators = [parallel, reduction]
      ins(%x : memref<4096x4096xf32>) outs(%y : memref<4096xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
func.func @given(%x: memref<4096x4096xf32>, %y: memref<4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 4096] iterators = [parallel, reduction]
      ins(%x : memref<4096x4096xf32>) outs(%y : memref<4096xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1, block = 128, grid = 4, split = 1, unroll = 4, minblocks = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
