// RUN: aicf-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: aicf-opt %s -p dce | filecheck %s --check-prefix=DCE
// RUN: aicf-opt %s -p canonicalize,cse,dce | filecheck %s --check-prefix=ALL
// RUN: aicf-opt %s -p aicf-infer-shapes,canonicalize,cse,dce | aicf-opt | filecheck %s --check-prefix=ALL
// xDSL's own canonicalize, cse and dce passes work on aicf_tensor IR: the ops are
// Pure, so identical ones merge and unused ones go away.

// CSE-LABEL: func.func @f
// CSE:       %[[A:.*]] = aicf_tensor.sin %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CSE-NOT:   aicf_tensor.sin
// CSE:       %[[S:.*]] = aicf_tensor.reduce_sum %[[A]] axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
// CSE-NOT:   aicf_tensor.reduce_sum {{.*}} axes = [1] :
// CSE:       aicf_tensor.add %[[S]], %[[S]]

// DCE-LABEL: func.func @f
// DCE-NOT:   aicf_tensor.exp
// DCE-COUNT-2: aicf_tensor.sin
// DCE:       aicf_tensor.add

// ALL-LABEL: func.func @f
// ALL:       %[[A:.*]] = aicf_tensor.sin %{{.*}} : (tensor<4x8xf32>)
// ALL-NEXT:  %[[S:.*]] = aicf_tensor.reduce_sum %[[A]] axes = [1] : (tensor<4x8xf32>)
// ALL-NEXT:  %[[R:.*]] = aicf_tensor.add %[[S]], %[[S]] : (tensor<4xf32>, tensor<4xf32>)
// ALL-NEXT:  func.return %[[R]]
// ALL-NOT:   aicf_tensor.exp
func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.sin %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %3 = aicf_tensor.reduce_sum %1 axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %dead = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = aicf_tensor.add %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %4 : tensor<4xf32>
}

// Ops that differ in a property or in their name are not merged.
// CSE-LABEL: func.func @distinct
// CSE:       aicf_tensor.reduce_sum %{{.*}} axes = [0] :
// CSE:       aicf_tensor.reduce_sum %{{.*}} axes = [1] :
// CSE:       aicf_tensor.reduce_sum %{{.*}} axes = [1] keepdims :
// CSE:       aicf_tensor.sin
// CSE:       aicf_tensor.cos
// ALL-LABEL: func.func @distinct
// ALL-COUNT-3: aicf_tensor.reduce_sum
func.func @distinct(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = aicf_tensor.reduce_sum %x axes = [0] : (tensor<4x4xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.reduce_sum %x axes = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
  %2 = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %3 = aicf_tensor.sin %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = aicf_tensor.cos %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
