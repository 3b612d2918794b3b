// RUN: not aicf-opt %s -p 'aicf-plan{target=h100 force="nonsense"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not aicf-opt %s -p 'aicf-plan{target=cpu cores=-3}' 2>&1 | filecheck %s --check-prefix=CORES
// RUN: not aicf-opt %s -p 'aicf-plan{matmul_precision=medium}' 2>&1 | filecheck %s --check-prefix=PRECISION
// RUN: not aicf-opt %s -p 'aicf-plan{target=bogus}' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: aicf-opt %s -p 'aicf-plan{target=cpu force="gpu.matmul_tiled"}' --verify-diagnostics
// Bad planner options are errors of the pipeline (as mlir-opt's pass options: one
// line, exit code 1, before any IR is read), never ignored; a forced kind of the
// other side is known only once the target is, and is a diagnostic without a
// location (no op is wrong).

// UNKNOWN: error: pass 'aicf-plan': force names an unknown schedule kind 'nonsense' (known: {{.*}})
// CORES: error: pass 'aicf-plan': cores and top must be >= 0 (cores=-3, top=5)
// PRECISION: error: pass 'aicf-plan': matmul_precision must be one of highest, high, got 'medium'
// TARGET: error: unknown target 'bogus' (known: {{.*}}, gpu, cpu, auto)
// UNKNOWN-NOT: Traceback

// expected-error @unknown {{aicf-plan: force='gpu.matmul_tiled' is a gpu kind, but the target}}
func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
