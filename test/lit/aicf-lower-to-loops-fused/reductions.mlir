// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// A reduction with its prologue, storing the sum as it is: ONE nest, straight into
// the output.
// CHECK-LABEL: func.func @prologue
// CHECK-NEXT:    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
// CHECK-NEXT:      ins(%x, %b : memref<4x8xf32>, memref<8xf32>)
// CHECK-NEXT:      outs(%out0 : memref<4xf32>)
// CHECK-NEXT:      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
// CHECK-NEXT:      combiners = [add] {
// CHECK:           arith.addf
// CHECK-NEXT:      math.sin
// CHECK-NEXT:      aicf_loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @prologue(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %y = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = aicf_tensor.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
    aicf_tensor.yield %2 : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// A mean over the first axis, then an epilogue: the domain puts the kept dim first;
// the sum goes to a group-local buffer, the scaling and sqrt run over the kept dim.
// CHECK-LABEL: func.func @column_mean_epilogue
// CHECK-NEXT:    aicf_loop.group shared = [16] {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<1x16xf32>
// CHECK-NEXT:      aicf_loop.nest domain = [16, 64] iterators = [parallel, reduction]
// CHECK-NEXT:        ins(%x : memref<64x16xf32>)
// CHECK-NEXT:        outs(%[[T]] : memref<1x16xf32>)
// CHECK-NEXT:        maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (0, d0)]
// CHECK-NEXT:        combiners = [add] {
// CHECK:             math.absf
// CHECK:           aicf_loop.nest domain = [16] iterators = [parallel]
// CHECK-NEXT:        ins(%[[T]] : memref<1x16xf32>)
// CHECK-NEXT:        outs(%out0 : memref<1x16xf32>)
// CHECK-NEXT:        maps = [(d0) -> (0, d0), (d0) -> (0, d0)] {
// CHECK:             %[[N:.*]] = arith.constant 6.400000e+01 : f32
// CHECK-NEXT:        %[[Q:.*]] = arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NEXT:        %[[R:.*]] = math.sqrt %[[Q]] : f32
// CHECK-NEXT:        aicf_loop.yield %[[R]] : f32
// CHECK:           memref.dealloc %[[T]] : memref<1x16xf32>
// CHECK-NEXT:    }
func.func @column_mean_epilogue(%x: tensor<64x16xf32>) -> tensor<1x16xf32> {
  %y = aicf_tensor.fused ins(%x : tensor<64x16xf32>) -> tensor<1x16xf32> {
  ^bb0(%a: tensor<64x16xf32>):
    %0 = aicf_tensor.abs %a : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %1 = aicf_tensor.reduce_mean %0 axes = [0] keepdims : (tensor<64x16xf32>) -> tensor<1x16xf32>
    %2 = aicf_tensor.sqrt %1 : (tensor<1x16xf32>) -> tensor<1x16xf32>
    aicf_tensor.yield %2 : tensor<1x16xf32>
  }
  func.return %y : tensor<1x16xf32>
}

// Sibling reductions over the same axes: one nest, two outputs, two combiners.
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    aicf_loop.nest domain = [8, 32] iterators = [parallel, reduction]
// CHECK-NEXT:      ins(%x : memref<8x32xf32>)
// CHECK-NEXT:      outs(%out0, %out1 : memref<8xf32>, memref<8xf32>)
// CHECK-NEXT:      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0)]
// CHECK-NEXT:      combiners = [max, add] {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT:      aicf_loop.yield %[[A]], %[[E]] : f32, f32
func.func @siblings(%x: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %m, %s = aicf_tensor.fused ins(%x : tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<8x32xf32>):
    %0 = aicf_tensor.reduce_max %a axes = [1] : (tensor<8x32xf32>) -> tensor<8xf32>
    %1 = aicf_tensor.exp %a : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %2 = aicf_tensor.reduce_sum %1 axes = [1] : (tensor<8x32xf32>) -> tensor<8xf32>
    aicf_tensor.yield %0, %2 : tensor<8xf32>, tensor<8xf32>
  }
  func.return %m, %s : tensor<8xf32>, tensor<8xf32>
}

// A full reduction (no kept dims): a group with no shared dims, run in order.
// CHECK-LABEL: func.func @total_mean
// CHECK-NEXT:    aicf_loop.group shared = [] {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:      aicf_loop.nest domain = [4, 8] iterators = [reduction, reduction]
// CHECK:             maps = [(d0, d1) -> (d0, d1), (d0, d1) -> ()]
// CHECK:           aicf_loop.nest domain = [] iterators = []
// CHECK-NEXT:        ins(%[[T]] : memref<f32>)
// CHECK-NEXT:        outs(%out0 : memref<f32>)
// CHECK-NEXT:        maps = [() -> (), () -> ()] {
func.func @total_mean(%x: tensor<4x8xf32>) -> tensor<f32> {
  %y = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4x8xf32>):
    %0 = aicf_tensor.mul %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = aicf_tensor.reduce_mean %0 axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    aicf_tensor.yield %1 : tensor<f32>
  }
  func.return %y : tensor<f32>
}
