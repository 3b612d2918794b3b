// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// Prologue: the elementwise producers of a reduction join it; only the sum leaves.
// CHECK-LABEL: func.func @prologue
// CHECK-NEXT:    %[[S:.*]] = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
// CHECK:           aicf_tensor.add
// CHECK-NEXT:      aicf_tensor.sin
// CHECK-NEXT:      %[[R:.*]] = aicf_tensor.reduce_sum %{{.*}} axes = [-1]
// CHECK-NEXT:      aicf_tensor.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[S]]
func.func @prologue(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// Epilogue: an elementwise consumer of the reduced value (sum * 0.5).
// CHECK-LABEL: func.func @epilogue
// CHECK-NEXT:    aicf_tensor.fused ins(%x : tensor<16x32xf32>) -> tensor<16xf32> {
// CHECK:           aicf_tensor.reduce_sum
// CHECK-NEXT:      aicf_tensor.constant dense<5.000000e-01>
// CHECK-NEXT:      aicf_tensor.mul %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
// CHECK-NEXT:      aicf_tensor.yield
func.func @epilogue(%x: tensor<16x32xf32>) -> tensor<16xf32> {
  %s = aicf_tensor.reduce_sum %x axes = [1] : (tensor<16x32xf32>) -> tensor<16xf32>
  %h = aicf_tensor.constant dense<0.5> : tensor<f32>
  %y = aicf_tensor.mul %s, %h : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  func.return %y : tensor<16xf32>
}

// Prologue and epilogue around a reduction over the first axis (kept dim last).
// CHECK-LABEL: func.func @column_mean
// CHECK-NEXT:    aicf_tensor.fused ins(%x : tensor<64x16xf32>) -> tensor<1x16xf32> {
// CHECK:           aicf_tensor.abs
// CHECK-NEXT:      aicf_tensor.reduce_mean %{{.*}} axes = [0] keepdims
// CHECK-NEXT:      aicf_tensor.sqrt
// CHECK-NEXT:      aicf_tensor.yield
func.func @column_mean(%x: tensor<64x16xf32>) -> tensor<1x16xf32> {
  %0 = aicf_tensor.abs %x : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %1 = aicf_tensor.reduce_mean %0 axes = [0] keepdims : (tensor<64x16xf32>) -> tensor<1x16xf32>
  %2 = aicf_tensor.sqrt %1 : (tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %2 : tensor<1x16xf32>
}

// Sibling reductions of one input over the same axes share a group (one pass).
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    %m, %s = aicf_tensor.fused ins(%x : tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK:           aicf_tensor.reduce_max
// CHECK-NEXT:      aicf_tensor.exp
// CHECK-NEXT:      aicf_tensor.reduce_sum
func.func @siblings(%x: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %m = aicf_tensor.reduce_max %x axes = [1] : (tensor<8x32xf32>) -> tensor<8xf32>
  %e = aicf_tensor.exp %x : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %s = aicf_tensor.reduce_sum %e axes = [1] : (tensor<8x32xf32>) -> tensor<8xf32>
  func.return %m, %s : tensor<8xf32>, tensor<8xf32>
}

// min and prod join a row group like max and sum: x - min(x) scaled by the row's product.
// CHECK-LABEL: func.func @min_prod_row
// CHECK-NEXT:    %y = aicf_tensor.fused ins(%x : tensor<8x32xf32>) -> tensor<8x32xf32> {
// CHECK:           aicf_tensor.reduce_min
// CHECK:           aicf_tensor.reduce_prod
func.func @min_prod_row(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %m = aicf_tensor.reduce_min %x axes = [1] keepdims : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %p = aicf_tensor.reduce_prod %x axes = [1] keepdims : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %y = aicf_tensor.mul %d, %p : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}
