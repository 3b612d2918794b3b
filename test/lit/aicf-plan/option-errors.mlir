// RUN: not aicf-opt %s -p 'aicf-plan{target=h100 force="nonsense"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not aicf-opt %s -p 'aicf-plan{target=cpu force="gpu.matmul_tiled"}' 2>&1 | filecheck %s --check-prefix=SIDE
// RUN: not aicf-opt %s -p 'aicf-plan{target=cpu cores=-3}' 2>&1 | filecheck %s --check-prefix=CORES
// RUN: not aicf-opt %s -p 'aicf-plan{target=bogus}' 2>&1 | filecheck %s --check-prefix=TARGET
// Bad planner options are one-line errors, never ignored.

// UNKNOWN: aicf-plan: force names an unknown schedule kind 'nonsense' (known: {{.*}})
// SIDE: aicf-plan: force='gpu.matmul_tiled' is a gpu kind, but the target {{.*}} is a cpu
// CORES: aicf-plan: cores and top must be >= 0 (cores=-3, top=5)
// TARGET: unknown target 'bogus' (known: {{.*}}, gpu, cpu, auto)
// UNKNOWN-NOT: Traceback
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
