// RUN: aicf-opt %s -p aicf-fold-constants --split-input-file | filecheck %s

// CHECK-LABEL: func.func @binary_broadcast
// CHECK-NEXT:    %[[C:.*]] = aicf_tensor.constant dense<[[5.000000e+00, 7.000000e+00], [7.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @binary_broadcast() -> tensor<2x2xf32> {
  %a = aicf_tensor.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = aicf_tensor.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %c = aicf_tensor.constant dense<2.0> : tensor<f32>
  %0 = aicf_tensor.add %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %1 = aicf_tensor.add %0, %c : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  func.return %1 : tensor<2x2xf32>
}

// -----

// A chain folds all the way; ops on arguments stay.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C:.*]] = aicf_tensor.constant dense<[4.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.mul %x, %[[C]]
// CHECK-NEXT:    func.return %[[R]]
func.func @chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = aicf_tensor.constant dense<[-2.0, 1.0]> : tensor<2xf32>
  %0 = aicf_tensor.mul %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = aicf_tensor.sqrt %0 : (tensor<2xf32>) -> tensor<2xf32>
  %2 = aicf_tensor.mul %1, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = aicf_tensor.mul %x, %2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_and_layout
// CHECK-NEXT:    %[[S:.*]] = aicf_tensor.constant dense<[4.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = aicf_tensor.constant dense<[[1.500000e+00], [3.500000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT:    %[[T:.*]] = aicf_tensor.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[P:.*]] = aicf_tensor.constant dense<{{\[}}[7.000000e+00, 1.000000e+01], [1.500000e+01, 2.200000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[S]], %[[M]], %[[T]], %[[R]], %[[P]]
func.func @reduce_and_layout() -> (tensor<2xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>) {
  %a = aicf_tensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = aicf_tensor.reduce_sum %a axes = [0] : (tensor<2x2xf32>) -> tensor<2xf32>
  %1 = aicf_tensor.reduce_mean %a axes = [-1] keepdims : (tensor<2x2xf32>) -> tensor<2x1xf32>
  %2 = aicf_tensor.transpose %a perm = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = aicf_tensor.reshape %a shape = [-1] : (tensor<2x2xf32>) -> tensor<4xf32>
  %4 = aicf_tensor.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>
}

// -----

// Results round to the op's dtype: 1/3 in f16 is 0.333251953125; a cast to i32
// truncates toward zero, as numpy's astype.
// CHECK-LABEL: func.func @dtypes
// CHECK-NEXT:    aicf_tensor.constant dense<3.332520e-01> : tensor<f16>
// CHECK-NEXT:    aicf_tensor.constant dense<[-2, 2]> : tensor<2xi32>
// CHECK-NEXT:    aicf_tensor.constant dense<[7, -3]> : tensor<2xi32>
func.func @dtypes() -> (tensor<f16>, tensor<2xi32>, tensor<2xi32>) {
  %one = aicf_tensor.constant dense<1.0> : tensor<f16>
  %three = aicf_tensor.constant dense<3.0> : tensor<f16>
  %0 = aicf_tensor.div %one, %three : (tensor<f16>, tensor<f16>) -> tensor<f16>
  %f = aicf_tensor.constant dense<[-2.7, 2.7]> : tensor<2xf32>
  %1 = aicf_tensor.cast %f : (tensor<2xf32>) -> tensor<2xi32>
  %i = aicf_tensor.constant dense<[3, -7]> : tensor<2xi32>
  %j = aicf_tensor.constant dense<[4, 4]> : tensor<2xi32>
  %2 = aicf_tensor.add %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %3 = aicf_tensor.sub %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %4 = aicf_tensor.mul %3, %3 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %5 = aicf_tensor.sub %2, %4 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  func.return %0, %1, %2 : tensor<f16>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Over 1M elements: the op is kept (constants are stored element by element).
// CHECK-LABEL: func.func @too_large
// CHECK:         aicf_tensor.add
func.func @too_large() -> tensor<1025x1024xf32> {
  %a = aicf_tensor.constant dense<1.0> : tensor<1025x1024xf32>
  %0 = aicf_tensor.add %a, %a : (tensor<1025x1024xf32>, tensor<1025x1024xf32>) -> tensor<1025x1024xf32>
  func.return %0 : tensor<1025x1024xf32>
}

// -----

// Integer division is not folded (C's truncation is not NumPy's semantics).
// CHECK-LABEL: func.func @int_div_kept
// CHECK:         aicf_tensor.div
func.func @int_div_kept() -> tensor<i32> {
  %a = aicf_tensor.constant dense<-7> : tensor<i32>
  %b = aicf_tensor.constant dense<2> : tensor<i32>
  %0 = aicf_tensor.div %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}
