// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// The external kernels' schedule kinds (dialects/schedule.py) are checked like any
// other: every parameter there, typed, in range, on a nest or a group.
func.func @no_key(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: cpu.external needs key}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "cpu.external", args = array<i64: 0, 1>, workspace = 0, layout = "contiguous"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @bad_layout(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: cpu.external parameter 'layout' must be one of contiguous, strided, got packed}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "cpu.external", key = "k-0", args = array<i64: 0, 1>, workspace = 0, layout = "packed"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @gpu_needs_a_launch(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: gpu.external needs grid, block, smem}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "gpu.external", key = "k-0", args = array<i64: 0, 1>, workspace = 0, layout = "contiguous"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}

// -----

func.func @negative_workspace(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' aicf.schedule: cpu.external parameter 'workspace' must be at least 0, got -8}}
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)]
      attrs = {aicf.schedule = {kind = "cpu.external", key = "k-0", args = array<i64: 0, 1>, workspace = -8, layout = "contiguous"}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  func.return
}
