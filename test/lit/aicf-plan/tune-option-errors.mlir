// RUN: not aicf-opt %s -p 'aicf-tune{matmul_precision=bogus}' 2>&1 | filecheck %s --check-prefix=PRECISION
// RUN: not aicf-opt %s -p 'aicf-tune{top=0}' 2>&1 | filecheck %s --check-prefix=TOP
// RUN: not aicf-opt %s -p 'aicf-tune{min_flops=-1}' 2>&1 | filecheck %s --check-prefix=FLOPS
// aicf-tune's options are checked as aicf-plan's (option-errors.mlir): an error of the
// pipeline naming the pass, with or without a GPU; a bad matmul_precision was an
// "internal error: ValueError" raised once the pass ran.

// PRECISION: error: pass 'aicf-tune': matmul_precision must be one of highest, high, got 'bogus'
// PRECISION-NOT: internal error
// TOP: error: pass 'aicf-tune': top and reps must be >= 1 and min_flops >= 0 (top=0, reps=10, min_flops=2147483648)
// FLOPS: error: pass 'aicf-tune': top and reps must be >= 1 and min_flops >= 0 (top=6, reps=10, min_flops=-1)

func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
