// RUN: aicf-opt %s --split-input-file -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100},aicf-lower-to-gpu{target=h100}' | filecheck %s

// A nest structurally identical to one already lowered (the same computation and
// schedule on other buffers: a model's repeated layers) launches the first one's
// kernels; its host ops (workspace, launches, frees) are cloned onto its buffers.
// A nest that differs (reduce_max) gets kernels of its own.
// CHECK-LABEL: aicf_gpu.kernel @layers_nest0(
// CHECK: aicf_gpu.kernel @layers_nest0_combine(
// CHECK: aicf_gpu.kernel @layers_nest0_combine_combine(
// CHECK-NOT: aicf_gpu.kernel @layers_nest1
// CHECK: aicf_gpu.kernel @layers_nest2(
// CHECK-LABEL: func.func @layers
// CHECK: %[[W0:.*]] = memref.alloc() {aicf_gpu.workspace} : memref<64x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest0(%x, %[[W0]])
// CHECK: aicf_gpu.launch @layers_nest0_combine_combine(%{{.*}}, %out0)
// CHECK: memref.dealloc %[[W0]]
// CHECK: %[[W2:.*]] = memref.alloc() {aicf_gpu.workspace} : memref<64x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest0(%y, %[[W2]])
// CHECK-NEXT: %[[W3:.*]] = memref.alloc() {aicf_gpu.workspace} : memref<4x1024xf32>
// CHECK-NEXT: aicf_gpu.launch @layers_nest0_combine(%[[W2]], %[[W3]])
// CHECK-NEXT: aicf_gpu.launch @layers_nest0_combine_combine(%[[W3]], %out1)
// CHECK-NEXT: memref.dealloc %[[W2]]
// CHECK-NEXT: memref.dealloc %[[W3]]
// CHECK: aicf_gpu.launch @layers_nest2(%y,
func.func @layers(%x: tensor<8192x1024xf32>, %y: tensor<8192x1024xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %a = aicf_tensor.reduce_sum %x axes = [0] : (tensor<8192x1024xf32>) -> tensor<*xf32>
  %b = aicf_tensor.reduce_sum %y axes = [0] : (tensor<8192x1024xf32>) -> tensor<*xf32>
  %c = aicf_tensor.reduce_max %y axes = [0] : (tensor<8192x1024xf32>) -> tensor<*xf32>
  func.return %a, %b, %c : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
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
