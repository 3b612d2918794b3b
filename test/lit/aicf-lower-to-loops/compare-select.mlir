// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// Comparisons are arith.cmpf (ordered; `ne` unordered, so NaN != x holds as in NumPy)
// or arith.cmpi in the operands' promoted type, yielding i1; select is arith.select
// on the branches' compute type; a cast to i1 compares with zero.

// CHECK-LABEL: func.func @causal_mask
func.func @causal_mask(%s: tensor<4x4xf16>, %i: tensor<4x1xi32>, %j: tensor<4xi32>) -> tensor<4x4xf16> {
  // CHECK:      aicf_loop.nest domain = [4, 4] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%{{.*}}, %{{.*}} : memref<4x1xi32>, memref<4xi32>)
  // CHECK-NEXT:   outs(%[[M:.*]] : memref<4x4xi1>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, 0), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
  // CHECK-NEXT: ^{{.*}}(%[[A:.*]]: i32, %[[B:.*]]: i32):
  // CHECK-NEXT:   %[[C:.*]] = arith.cmpi sge, %[[A]], %[[B]] : i32
  // CHECK-NEXT:   aicf_loop.yield %[[C]] : i1
  %m = aicf_tensor.ge %i, %j : (tensor<4x1xi32>, tensor<4xi32>) -> tensor<4x4xi1>
  %n = aicf_tensor.constant dense<-1.0e4> : tensor<f16>
  // CHECK:      ins(%[[M]], %{{.*}}, %{{.*}} : memref<4x4xi1>, memref<4x4xf16>, memref<f16>)
  // CHECK:      ^{{.*}}(%[[K:.*]]: i1, %[[X:.*]]: f16, %[[Y:.*]]: f16):
  // CHECK-NEXT:   %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
  // CHECK-NEXT:   %[[YF:.*]] = arith.extf %[[Y]] : f16 to f32
  // CHECK-NEXT:   %[[R:.*]] = arith.select %[[K]], %[[XF]], %[[YF]] : f32
  // CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[T]] : f16
  %r = aicf_tensor.select %m, %s, %n : (tensor<4x4xi1>, tensor<4x4xf16>, tensor<f16>) -> tensor<4x4xf16>
  func.return %r : tensor<4x4xf16>
}

// -----

// CHECK-LABEL: func.func @float_predicates
func.func @float_predicates(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  // CHECK: arith.cmpf oeq
  %0 = aicf_tensor.eq %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.cmpf une
  %1 = aicf_tensor.ne %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.cmpf olt
  %2 = aicf_tensor.lt %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @bool_casts
func.func @bool_casts(%x: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) {
  // CHECK:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: arith.cmpf une, %{{.*}}, %[[Z]] : f32
  %0 = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.uitofp %{{.*}} : i1 to f32
  %1 = aicf_tensor.cast %m : (tensor<4xi1>) -> tensor<4xf32>
  // CHECK: arith.extui %{{.*}} : i1 to i32
  %2 = aicf_tensor.cast %m : (tensor<4xi1>) -> tensor<4xi32>
  func.return %0, %1, %2 : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
}

// -----

// erf is math.erf; gelu's tanh form 0.5x(1 + tanh(z)), z = sqrt(2/pi)(x + 0.044715x^3),
// is computed as x / (1 + exp(-2z)) (the same function, without 1 + tanh's cancellation).
// CHECK-LABEL: func.func @erf_gelu_tanh
func.func @erf_gelu_tanh(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: math.erf %{{.*}} : f32
  %0 = aicf_tensor.erf %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK:      %[[X2:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
  // CHECK-NEXT: %[[X3:.*]] = arith.mulf %[[X2]], %[[X]] : f32
  // CHECK-NEXT: arith.constant 4.471500e-02 : f32
  // CHECK:      arith.constant -1.59576917 : f32
  // CHECK:      math.exp
  // CHECK:      arith.divf %[[X]],
  // CHECK-NOT:  math.erf
  // CHECK:      aicf_loop.yield
  %1 = aicf_tensor.gelu %x approximate = "tanh" : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An iota along a dim of up to 1024 reads its values from a constant vector 0..n-1 in
// its element type (nest bodies do not see their indices), broadcast along the dim;
// iota-long-dim.mlir has longer dims.
// CHECK:       memref.global{{.*}}sym_name = "iota_cst0", type = memref<3xi32>, initial_value = dense<[0, 1, 2]>
// CHECK-LABEL: func.func @iota
func.func @iota() -> tensor<2x3xi32> {
  // CHECK:      %[[G:.*]] = memref.get_global @iota_cst0 : memref<3xi32>
  // CHECK-NEXT: aicf_loop.nest domain = [2, 3] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%[[G]] : memref<3xi32>)
  // CHECK-NEXT:   outs(%{{.*}} : memref<2x3xi32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
  %0 = aicf_tensor.iota dim = 1 : tensor<2x3xi32>
  func.return %0 : tensor<2x3xi32>
}

// -----

// var: the sum (kept dims), the sum of squared deviations from sum/n, then / (n - ddof).
// CHECK-LABEL: func.func @var
func.func @var(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  // CHECK:      %[[S:.*]] = memref.alloc() : memref<4x1xf32>
  // CHECK-NEXT: aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK:        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)]
  // CHECK-NEXT:   combiners = [add]
  // CHECK:      %[[Q:.*]] = memref.alloc() : memref<4x1xf32>
  // CHECK-NEXT: aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
  // CHECK-NEXT:   ins(%{{.*}}, %[[S]] : memref<4x8xf16>, memref<4x1xf32>)
  // CHECK-NEXT:   outs(%[[Q]] : memref<4x1xf32>)
  // CHECK:        arith.constant 8.000000e+00 : f32
  // CHECK-NEXT:   arith.divf
  // CHECK-NEXT:   arith.extf
  // CHECK-NEXT:   arith.subf
  // CHECK-NEXT:   arith.mulf
  // CHECK:      memref.dealloc %[[S]]
  // CHECK-NEXT: aicf_loop.nest domain = [4] iterators = [parallel]
  // CHECK-NEXT:   ins(%[[Q]] : memref<4x1xf32>)
  // CHECK:        arith.constant 7.000000e+00 : f32
  // CHECK-NEXT:   arith.divf
  // CHECK-NEXT:   arith.truncf
  %0 = aicf_tensor.reduce_var %x axes = [1] ddof = 1 : (tensor<4x8xf16>) -> tensor<4xf16>
  func.return %0 : tensor<4xf16>
}
