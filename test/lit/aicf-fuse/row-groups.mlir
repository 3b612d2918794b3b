// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// Softmax over the last axis, written as five ops: one group (a row group: both
// reductions fold the last axis of the same 4x8 domain).
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[Y:.*]] = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[M:.*]] = aicf_tensor.reduce_max %[[A]] axes = [-1] keepdims
// CHECK-NEXT:      %[[D:.*]] = aicf_tensor.sub %[[A]], %[[M]]
// CHECK-NEXT:      %[[E:.*]] = aicf_tensor.exp %[[D]]
// CHECK-NEXT:      %[[S:.*]] = aicf_tensor.reduce_sum %[[E]] axes = [-1] keepdims
// CHECK-NEXT:      %[[Q:.*]] = aicf_tensor.div %[[E]], %[[S]]
// CHECK-NEXT:      aicf_tensor.yield %[[Q]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = aicf_tensor.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %y = aicf_tensor.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// Layer norm, (x - mean) / sqrt(var + eps) * g + b, written as separate ops: one group,
// the scale and shift are group inputs read through broadcast maps.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    aicf_tensor.fused ins(%x, %g, %b : tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<16x64xf32> {
// CHECK-COUNT-2:   aicf_tensor.reduce_mean
// CHECK:           aicf_tensor.sqrt
// CHECK:           aicf_tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @layer_norm(%x: tensor<16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %mu = aicf_tensor.reduce_mean %x axes = [-1] keepdims : (tensor<16x64xf32>) -> tensor<16x1xf32>
  %xc = aicf_tensor.sub %x, %mu : (tensor<16x64xf32>, tensor<16x1xf32>) -> tensor<16x64xf32>
  %sq = aicf_tensor.mul %xc, %xc : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %var = aicf_tensor.reduce_mean %sq axes = [-1] keepdims : (tensor<16x64xf32>) -> tensor<16x1xf32>
  %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f32>
  %ve = aicf_tensor.add %var, %eps : (tensor<16x1xf32>, tensor<f32>) -> tensor<16x1xf32>
  %sd = aicf_tensor.sqrt %ve : (tensor<16x1xf32>) -> tensor<16x1xf32>
  %n = aicf_tensor.div %xc, %sd : (tensor<16x64xf32>, tensor<16x1xf32>) -> tensor<16x64xf32>
  %ng = aicf_tensor.mul %n, %g : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %y = aicf_tensor.add %ng, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  func.return %y : tensor<16x64xf32>
}

// Without keepdims the row maxima and sums need a reshape back to [R, 1], a layout
// op that is never fused (aicf-cleanup-reshapes folds it into keepdims): the groups
// stop at each reshape, and exp(x - max) is recomputed in the second group rather
// than written out.
// CHECK-LABEL: func.func @softmax_no_keepdims
// CHECK-NEXT:    aicf_tensor.reduce_max
// CHECK-NEXT:    aicf_tensor.reshape
// CHECK-NEXT:    aicf_tensor.fused ins(%x, %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4xf32> {
// CHECK:           aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.reduce_sum
// CHECK:         aicf_tensor.reshape
// CHECK-NEXT:    aicf_tensor.fused ins(%x, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf32> {
// CHECK:           aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.div
func.func @softmax_no_keepdims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = aicf_tensor.reduce_max %x axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %m1 = aicf_tensor.reshape %m : (tensor<4xf32>) -> tensor<4x1xf32>
  %d = aicf_tensor.sub %x, %m1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = aicf_tensor.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = aicf_tensor.reduce_sum %e axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %s1 = aicf_tensor.reshape %s : (tensor<4xf32>) -> tensor<4x1xf32>
  %y = aicf_tensor.div %e, %s1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
