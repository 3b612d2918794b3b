// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops,aicf-fuse,canonicalize,cse,dce | filecheck %s
// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-fuse,aicf-lower-to-loops,canonicalize,cse,dce | filecheck %s --check-prefix=GROUP
// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100},aicf-lower-to-gpu,canonicalize,cse,dce' | filecheck %s --check-prefix=GPU

// A nest reads its inputs and writes its outputs: upstream cleanups must keep it
// (and a group, which has its nests' effects), though it has no results.

// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-5: aicf_loop.nest
// CHECK: func.return
// GROUP-LABEL: func.func @softmax
// GROUP: aicf_loop.group
// GROUP-COUNT-3: aicf_loop.nest
// GPU-LABEL: func.func @softmax
// GPU-COUNT-5: aicf_gpu.launch
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<4x8xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}
