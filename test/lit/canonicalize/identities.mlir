// RUN: aicf-opt %s -p canonicalize --split-input-file | filecheck %s

// CHECK-LABEL: func.func @mul_one
// CHECK-NEXT:    func.return %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
func.func @mul_one(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = aicf_tensor.constant dense<1.0> : tensor<f32>
  %0 = aicf_tensor.mul %x, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.mul %one, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A float add's identity is -0.0, a sub's +0.0.
// CHECK-LABEL: func.func @add_sub_zero
// CHECK-NEXT:    func.return %x, %x, %x : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
func.func @add_sub_zero(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %nzero = aicf_tensor.constant dense<-0.0> : tensor<8xf32>
  %zero = aicf_tensor.constant dense<0.0> : tensor<8xf32>
  %0 = aicf_tensor.add %x, %nzero : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.add %nzero, %x : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.sub %x, %zero : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x + 0.0 and x - (-0.0) are +0.0 at x = -0.0: no identities. An integer's 0 is one.
// CHECK-LABEL: func.func @float_zero_of_the_wrong_sign_stays
// CHECK:         aicf_tensor.add %x, %{{.*}}
// CHECK:         aicf_tensor.add %{{.*}}, %x
// CHECK:         aicf_tensor.sub %x, %{{.*}}
// CHECK-NEXT:    func.return %{{.*}}, %{{.*}}, %{{.*}}, %i
func.func @float_zero_of_the_wrong_sign_stays(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %zero = aicf_tensor.constant dense<0.0> : tensor<f32>
  %nzero = aicf_tensor.constant dense<-0.0> : tensor<f32>
  %izero = aicf_tensor.constant dense<0> : tensor<i32>
  %0 = aicf_tensor.add %x, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = aicf_tensor.add %zero, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = aicf_tensor.sub %x, %nzero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = aicf_tensor.add %i, %izero : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  func.return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @div_one_i32
// CHECK-NEXT:    func.return %x : tensor<5xi32>
func.func @div_one_i32(%x: tensor<5xi32>) -> tensor<5xi32> {
  %one = aicf_tensor.constant dense<1> : tensor<1xi32>
  %0 = aicf_tensor.div %x, %one : (tensor<5xi32>, tensor<1xi32>) -> tensor<5xi32>
  func.return %0 : tensor<5xi32>
}

// -----

// 0 - x and 1 / x are not identities.
// CHECK-LABEL: func.func @left_sub_div_stay
// CHECK:         aicf_tensor.sub %{{.*}}, %x
// CHECK:         aicf_tensor.div %{{.*}}, %x
func.func @left_sub_div_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = aicf_tensor.constant dense<0.0> : tensor<f32>
  %one = aicf_tensor.constant dense<1.0> : tensor<f32>
  %0 = aicf_tensor.sub %zero, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.div %one, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The constant broadcasts x to a bigger shape: the multiply materialises it.
// CHECK-LABEL: func.func @mul_one_broadcasts
// CHECK:         %[[R:.*]] = aicf_tensor.mul %x, %{{.*}} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         func.return %[[R]]
func.func @mul_one_broadcasts(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %one = aicf_tensor.constant dense<1.0> : tensor<4x8xf32>
  %0 = aicf_tensor.mul %x, %one : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// The constant promotes x's dtype: f16 * f32 gives f32.
// CHECK-LABEL: func.func @mul_one_promotes
// CHECK:         aicf_tensor.mul %x, %{{.*}} : (tensor<8xf16>, tensor<f32>) -> tensor<8xf32>
func.func @mul_one_promotes(%x: tensor<8xf16>) -> tensor<8xf32> {
  %one = aicf_tensor.constant dense<1.0> : tensor<f32>
  %0 = aicf_tensor.mul %x, %one : (tensor<8xf16>, tensor<f32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

// Not a splat of the identity.
// CHECK-LABEL: func.func @mul_not_one
// CHECK:         aicf_tensor.mul %x, %{{.*}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
func.func @mul_not_one(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = aicf_tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = aicf_tensor.mul %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-NEXT:    %[[N:.*]] = aicf_tensor.neg %x
// CHECK-NEXT:    func.return %x, %[[N]]
func.func @neg_neg(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aicf_tensor.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aicf_tensor.neg %1 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
