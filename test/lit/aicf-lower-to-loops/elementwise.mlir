// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// Elementwise ops: one all-parallel nest over the result shape; broadcasting is in
// the input maps (a stretched size-1 dim reads index 0, missing leading dims are
// dropped); the scalar body is arith/math.

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: memref<2x3x4xf32>, %[[B:.*]]: memref<3x1xf32>, %[[S:.*]]: memref<f32>, %[[OUT:.*]]: memref<2x3x4xf32>)
func.func @broadcast(%x: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %s: tensor<f32>) -> tensor<2x3x4xf32> {
  // CHECK:      %[[T:.*]] = memref.alloc() : memref<2x3x4xf32>
  // CHECK-NEXT: aicf_loop.nest domain = [2, 3, 4] iterators = [parallel, parallel, parallel]
  // CHECK-NEXT:   ins(%[[X]], %[[B]] : memref<2x3x4xf32>, memref<3x1xf32>)
  // CHECK-NEXT:   outs(%[[T]] : memref<2x3x4xf32>)
  // CHECK-NEXT:   maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d1, 0), (d0, d1, d2) -> (d0, d1, d2)] {
  // CHECK-NEXT: ^{{.*}}(%[[A0:.*]]: f32, %[[A1:.*]]: f32):
  // CHECK-NEXT:   %[[R:.*]] = arith.addf %[[A0]], %[[A1]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f32
  %0 = aicf_tensor.add %x, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // CHECK:      aicf_loop.nest domain = [2, 3, 4] iterators = [parallel, parallel, parallel]
  // CHECK-NEXT:   ins(%[[S]], %[[T]] : memref<f32>, memref<2x3x4xf32>)
  // CHECK-NEXT:   outs(%[[OUT]] : memref<2x3x4xf32>)
  // CHECK-NEXT:   maps = [(d0, d1, d2) -> (), (d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0, d1, d2)] {
  // CHECK:        arith.mulf
  %1 = aicf_tensor.mul %s, %0 : (tensor<f32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK:      memref.dealloc %[[T]]
  // CHECK-NEXT: func.return
  func.return %1 : tensor<2x3x4xf32>
}

// -----

// A size-1 dim that meets a size-1 dim of the domain stays a dim (it is not stretched).
// CHECK-LABEL: func.func @ones
func.func @ones(%x: tensor<1x4xf32>, %y: tensor<1x1xf32>) -> tensor<1x4xf32> {
  // CHECK: maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, d1)]
  %0 = aicf_tensor.sub %x, %y : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @binary_bodies
func.func @binary_bodies(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: arith.subf
  %0 = aicf_tensor.sub %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.divf
  %1 = aicf_tensor.div %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.maximumf
  %2 = aicf_tensor.max %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.minimumf
  %3 = aicf_tensor.min %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.powf
  %4 = aicf_tensor.pow %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_bodies
func.func @unary_bodies(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: arith.negf
  %0 = aicf_tensor.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.exp
  %1 = aicf_tensor.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.log
  %2 = aicf_tensor.log %1 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.sin
  %3 = aicf_tensor.sin %2 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.cos
  %4 = aicf_tensor.cos %3 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.tanh
  %5 = aicf_tensor.tanh %4 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.absf
  %6 = aicf_tensor.abs %5 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.sqrt
  %7 = aicf_tensor.sqrt %6 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.rsqrt
  %8 = aicf_tensor.rsqrt %7 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK:      ^{{.*}}(%[[V:.*]]: f32):
  // CHECK-NEXT:   %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT:   %[[R:.*]] = arith.maximumf %[[V]], %[[Z]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f32
  %9 = aicf_tensor.relu %8 : (tensor<4xf32>) -> tensor<4xf32>
  // gelu, exact: 0.5 * x * (1 + erf(x * 0.70710678118654752))
  // CHECK:      ^{{.*}}(%[[G:.*]]: f32):
  // CHECK-NEXT:   %[[C:.*]] = arith.constant 0.707106769 : f32
  // CHECK-NEXT:   %[[S:.*]] = arith.mulf %[[G]], %[[C]] : f32
  // CHECK-NEXT:   %[[E:.*]] = math.erf %[[S]] : f32
  // CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT:   %[[P:.*]] = arith.addf %[[ONE]], %[[E]] : f32
  // CHECK-NEXT:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
  // CHECK-NEXT:   %[[H:.*]] = arith.mulf %[[HALF]], %[[G]] : f32
  // CHECK-NEXT:   %[[R2:.*]] = arith.mulf %[[H]], %[[P]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[R2]] : f32
  %10 = aicf_tensor.gelu %9 : (tensor<4xf32>) -> tensor<4xf32>
  // sigmoid: 1 / (1 + exp(-x))
  // CHECK:      ^{{.*}}(%[[Y:.*]]: f32):
  // CHECK-NEXT:   %[[N:.*]] = arith.negf %[[Y]] : f32
  // CHECK-NEXT:   %[[X:.*]] = math.exp %[[N]] : f32
  // CHECK-NEXT:   %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT:   %[[D:.*]] = arith.addf %[[ONE2]], %[[X]] : f32
  // CHECK-NEXT:   %[[ONE3:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT:   %[[Q:.*]] = arith.divf %[[ONE3]], %[[D]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[Q]] : f32
  %11 = aicf_tensor.sigmoid %10 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %11 : tensor<4xf32>
}

// -----

// Integers: neg is 0 - x, abs is math.absi, relu is arith.maxsi, division arith.divsi.
// CHECK-LABEL: func.func @integers
func.func @integers(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  // CHECK:      ^{{.*}}(%[[V:.*]]: i32):
  // CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NEXT:   %[[R:.*]] = arith.subi %[[Z]], %[[V]] : i32
  %0 = aicf_tensor.neg %x : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: math.absi
  %1 = aicf_tensor.abs %0 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.maxsi
  %2 = aicf_tensor.relu %1 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.addi
  %3 = aicf_tensor.add %2, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.divsi
  %4 = aicf_tensor.div %3, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.muli
  %5 = aicf_tensor.mul %4, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.maxsi
  %6 = aicf_tensor.max %5, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// 0-size dims are a domain extent of 0.
// CHECK-LABEL: func.func @empty
func.func @empty(%x: tensor<0x4xf32>, %y: tensor<4xf32>) -> tensor<0x4xf32> {
  // CHECK: aicf_loop.nest domain = [0, 4] iterators = [parallel, parallel]
  // CHECK: maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)]
  %0 = aicf_tensor.add %x, %y : (tensor<0x4xf32>, tensor<4xf32>) -> tensor<0x4xf32>
  func.return %0 : tensor<0x4xf32>
}
