// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file --verify-diagnostics | filecheck %s
// aicf-lower-to-gpu decides nothing: a nest without a schedule, or with one for another
// target, is an error at the nest.

func.func @unscheduled(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // CHECK: {{.*}}schedule-errors.mlir:[[# @LINE + 1]]:3: error: 'aicf_loop.nest' has no aicf.schedule: run aicf-plan before aicf-lower-to-gpu
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @cpu_schedule(%x: memref<4x8xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // CHECK: {{.*}}schedule-errors.mlir:[[# @LINE + 1]]:3: error: 'aicf_loop.nest' has a cpu.nest schedule, which is not for the GPU
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 1}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @wrong_shape(%x: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // CHECK: {{.*}}schedule-errors.mlir:[[# @LINE + 1]]:3: error: 'aicf_loop.nest' cannot be lowered to the GPU: gpu.matmul_tiled needs a matmul-shaped nest
  aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)]
      attrs = {aicf.schedule = {kind = "gpu.matmul_tiled", bm = 64, bn = 64, bk = 16, tm = 4, tn = 4}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
