// RUN: aicf-opt %s --split-input-file -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100},aicf-lower-to-gpu{target=h100}' | filecheck %s

// A nest structurally identical to one already lowered (the same computation and
// schedule on other buffers: a model's repeated layers) launches the first one's
// kernels; its host ops (workspace, launches, frees) are cloned onto its buffers.
// A nest that differs (reduce_max) gets kernels of its own. (The schedules are written
// by hand, a split whose combine nest is split again, so the check does not hang on the
// planner's pick: aicf-lower-to-gpu makes each split its partial and combine nests,
// three nests a layer, and the second layer's three reuse the first's kernels.)
// CHECK-LABEL: aicf_gpu.kernel @layers_nest0(
// CHECK: aicf_gpu.kernel @layers_nest1(
// CHECK: aicf_gpu.kernel @layers_nest2(
// CHECK-NOT: aicf_gpu.kernel @layers_nest3
// CHECK-NOT: aicf_gpu.kernel @layers_nest5
// CHECK: aicf_gpu.kernel @layers_nest6(
// CHECK-LABEL: func.func @layers
// CHECK: %[[W0:.*]] = memref.alloc() : memref<64x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest0(%x, %[[W0]])
// CHECK: aicf_gpu.launch @layers_nest2(%{{.*}}, %out0)
// CHECK: memref.dealloc %[[W0]]
// CHECK: %[[W2:.*]] = memref.alloc() : memref<64x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest0(%y, %[[W2]])
// CHECK-NEXT: %[[W3:.*]] = memref.alloc() : memref<4x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest1(%[[W2]], %[[W3]])
// CHECK-NEXT: aicf_gpu.launch @layers_nest2(%[[W3]], %out1)
// CHECK-NEXT: memref.dealloc %[[W3]]
// CHECK-NEXT: memref.dealloc %[[W2]]
// CHECK: aicf_gpu.launch @layers_nest6(%y,
func.func @layers(%x: memref<8192x1024xf32>, %y: memref<8192x1024xf32>, %out0: memref<1024xf32>, %out1: memref<1024xf32>, %out2: memref<1024xf32>) attributes {aicf.num_outputs = 3 : i64} {
  aicf_loop.nest domain = [8192, 1024] iterators = [reduction, parallel] ins(%x : memref<8192x1024xf32>) outs(%out0 : memref<1024xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 64 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}}} {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  aicf_loop.nest domain = [8192, 1024] iterators = [reduction, parallel] ins(%y : memref<8192x1024xf32>) outs(%out1 : memref<1024xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [add] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 64 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}}} {
  ^bb0(%b: f32):
    aicf_loop.yield %b : f32
  }
  aicf_loop.nest domain = [8192, 1024] iterators = [reduction, parallel] ins(%y : memref<8192x1024xf32>) outs(%out2 : memref<1024xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)] combiners = [max] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 64 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 4 : i64, unroll = 4 : i64, minblocks = 4 : i64, combine = {kind = "gpu.per_output", vec = 4 : i64, block = 256 : i64, grid = 1 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64}}}} {
  ^bb0(%c: f32):
    aicf_loop.yield %c : f32
  }
  func.return
}

// -----

// One nest reading the same buffer twice is not the same computation as one reading
// two buffers (their kernels may differ): each gets its own.
// CHECK-LABEL: aicf_gpu.kernel @twice_nest0(
// CHECK: aicf_gpu.kernel @twice_nest1(
// CHECK-LABEL: func.func @twice
// CHECK: aicf_gpu.launch @twice_nest0(%x, %y,
// CHECK: aicf_gpu.launch @twice_nest1(%x, %x,
func.func @twice(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a = aicf_tensor.mul %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<*xf32>
  %b = aicf_tensor.mul %x, %x : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<*xf32>
  func.return %a, %b : tensor<*xf32>, tensor<*xf32>
}
