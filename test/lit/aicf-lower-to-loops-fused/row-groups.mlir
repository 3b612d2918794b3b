// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// Softmax: one aicf_loop.group sharing the row dim: the row max and the row sum of
// exp(x - max) go to row-local buffers, the last nest recomputes exp(x - max) and
// divides. No full-size temporary.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    aicf_loop.group shared = [4] {
// CHECK-NEXT:      %[[M:.*]] = memref.alloc() : memref<4x1xf32>
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<4x1xf32>
// CHECK-NEXT:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
// CHECK-NEXT:        ins(%x : memref<4x8xf32>)
// CHECK-NEXT:        outs(%[[M]] : memref<4x1xf32>)
// CHECK-NEXT:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)]
// CHECK-NEXT:        combiners = [max] {
// CHECK:           aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
// CHECK-NEXT:        ins(%x, %[[M]] : memref<4x8xf32>, memref<4x1xf32>)
// CHECK-NEXT:        outs(%[[S]] : memref<4x1xf32>)
// CHECK-NEXT:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0)]
// CHECK-NEXT:        combiners = [add] {
// CHECK:             arith.subf
// CHECK-NEXT:        math.exp
// CHECK-NEXT:        aicf_loop.yield
// CHECK:           aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
// CHECK-NEXT:        ins(%x, %[[M]], %[[S]] : memref<4x8xf32>, memref<4x1xf32>, memref<4x1xf32>)
// CHECK-NEXT:        outs(%out0 : memref<4x8xf32>)
// CHECK-NEXT:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, d1)] {
// CHECK:             arith.subf
// CHECK-NEXT:        math.exp
// CHECK-NEXT:        arith.divf
// CHECK-NEXT:        aicf_loop.yield
// CHECK:           memref.dealloc %[[M]]
// CHECK-NEXT:      memref.dealloc %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %m = aicf_tensor.reduce_max %a axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %d = aicf_tensor.sub %a, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %e = aicf_tensor.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %q = aicf_tensor.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    aicf_tensor.yield %q : tensor<4x8xf32>
  }
  func.return %y : tensor<4x8xf32>
}

// Layer norm: mean, then the variance of x - mean, then the normalised, scaled and
// shifted row; eps and sqrt are applied to the row's variance where it is read.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    aicf_loop.group shared = [16] {
// CHECK-COUNT-2:   memref.alloc() : memref<16x1xf32>
// CHECK:           aicf_loop.nest domain = [16, 64] iterators = [parallel, reduction]
// CHECK:           aicf_loop.nest domain = [16, 64] iterators = [parallel, reduction]
// CHECK:             arith.subf
// CHECK-NEXT:        arith.mulf
// CHECK:           aicf_loop.nest domain = [16, 64] iterators = [parallel, parallel]
// CHECK-NEXT:        ins(%x, %{{.*}}, %{{.*}}, %g, %b : memref<16x64xf32>, memref<16x1xf32>, memref<16x1xf32>, memref<64xf32>, memref<64xf32>)
// CHECK-NEXT:        outs(%out0 : memref<16x64xf32>)
// CHECK-NEXT:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0), (d0, d1) -> (d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
// CHECK:             math.sqrt
// CHECK:           memref.dealloc
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:    }
func.func @layer_norm(%x: tensor<16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %y = aicf_tensor.fused ins(%x, %g, %b : tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<16x64xf32> {
  ^bb0(%a: tensor<16x64xf32>, %ga: tensor<64xf32>, %ba: tensor<64xf32>):
    %mu = aicf_tensor.reduce_mean %a axes = [-1] keepdims : (tensor<16x64xf32>) -> tensor<16x1xf32>
    %xc = aicf_tensor.sub %a, %mu : (tensor<16x64xf32>, tensor<16x1xf32>) -> tensor<16x64xf32>
    %sq = aicf_tensor.mul %xc, %xc : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %var = aicf_tensor.reduce_mean %sq axes = [-1] keepdims : (tensor<16x64xf32>) -> tensor<16x1xf32>
    %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f32>
    %ve = aicf_tensor.add %var, %eps : (tensor<16x1xf32>, tensor<f32>) -> tensor<16x1xf32>
    %sd = aicf_tensor.sqrt %ve : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %n = aicf_tensor.div %xc, %sd : (tensor<16x64xf32>, tensor<16x1xf32>) -> tensor<16x64xf32>
    %ng = aicf_tensor.mul %n, %ga : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
    %y1 = aicf_tensor.add %ng, %ba : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
    aicf_tensor.yield %y1 : tensor<16x64xf32>
  }
  func.return %y : tensor<16x64xf32>
}

// A group with outputs on both levels: the row max is stored by its reduction nest
// (straight into its output, read back by the next nest), x - max by the last nest.
// CHECK-LABEL: func.func @both_levels
// CHECK-NEXT:    aicf_loop.group shared = [4] {
// CHECK-NEXT:      aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
// CHECK-NEXT:        ins(%x : memref<4x8xf32>)
// CHECK-NEXT:        outs(%out0 : memref<4x1xf32>)
// CHECK:           aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
// CHECK-NEXT:        ins(%x, %out0 : memref<4x8xf32>, memref<4x1xf32>)
// CHECK-NEXT:        outs(%out1 : memref<4x8xf32>)
// CHECK-NOT:       memref.alloc
func.func @both_levels(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  %m, %d = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %0 = aicf_tensor.reduce_max %a axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %1 = aicf_tensor.sub %a, %0 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    aicf_tensor.yield %0, %1 : tensor<4x1xf32>, tensor<4x8xf32>
  }
  func.return %m, %d : tensor<4x1xf32>, tensor<4x8xf32>
}
