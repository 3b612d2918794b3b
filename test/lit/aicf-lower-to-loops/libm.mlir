// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// RUN: aicf-opt %s -p aicf-lower-to-loops,aicf-plan{target=cpu} -t c --split-input-file | filecheck %s --check-prefix=C
// RUN: aicf-opt %s --split-input-file | aicf-opt --split-input-file | filecheck %s --check-prefix=ROUND
// libm's other functions: each aicf_tensor op is one math op in the nest body, and a
// libm call in C (the f variant on f32; f16 through f32).

// CHECK-LABEL: func.func @unary
// ROUND-LABEL: func.func @unary
// C-LABEL: int aicf_unary(
func.func @unary(%x: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: math.log1p
  // C: log1pf(
  // ROUND: aicf_tensor.log1p %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
  %0 = aicf_tensor.log1p %x : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.expm1
  // C: expm1f(
  %1 = aicf_tensor.expm1 %0 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.log2
  // C: log2f(
  %2 = aicf_tensor.log2 %1 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.log10
  // C: log10f(
  %3 = aicf_tensor.log10 %2 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.exp2
  // C: exp2f(
  %4 = aicf_tensor.exp2 %3 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.tan
  // C: tanf(
  %5 = aicf_tensor.tan %4 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.asin
  // C: asinf(
  %6 = aicf_tensor.asin %5 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.acos
  // C: acosf(
  %7 = aicf_tensor.acos %6 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.atan
  // C: atanf(
  %8 = aicf_tensor.atan %7 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.sinh
  // C: sinhf(
  %9 = aicf_tensor.sinh %8 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.cosh
  // C: coshf(
  %10 = aicf_tensor.cosh %9 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.asinh
  // C: asinhf(
  %11 = aicf_tensor.asinh %10 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.acosh
  // C: acoshf(
  %12 = aicf_tensor.acosh %11 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.atanh
  // C: atanhf(
  %13 = aicf_tensor.atanh %12 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.cbrt
  // C: cbrtf(
  %14 = aicf_tensor.cbrt %13 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.floor
  // C: floorf(
  %15 = aicf_tensor.floor %14 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.ceil
  // C: ceilf(
  %16 = aicf_tensor.ceil %15 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: math.trunc
  // C: truncf(
  %17 = aicf_tensor.trunc %16 : (tensor<8xf32>) -> tensor<8xf32>
  // Ties to even: C's nearbyint in the default rounding mode.
  // CHECK: math.roundeven
  // C: nearbyintf(
  %18 = aicf_tensor.round %17 : (tensor<8xf32>) -> tensor<8xf32>
  func.return %18 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @binary
// C-LABEL: int aicf_binary(
func.func @binary(%y: tensor<4x8xf64>, %x: tensor<8xf64>) -> tensor<4x8xf64> {
  // CHECK: math.atan2 %{{.*}}, %{{.*}} : f64
  // C: atan2(
  %0 = aicf_tensor.atan2 %y, %x : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // CHECK: math.copysign %{{.*}}, %{{.*}} : f64
  // C: copysign(
  %1 = aicf_tensor.copysign %0, %x : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // xDSL's arith has no remf: aicf_arith.remf stands for it, C's fmod.
  // CHECK: aicf_arith.remf %{{.*}}, %{{.*}} : f64
  // C: fmod(
  %2 = aicf_tensor.fmod %1, %x : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  func.return %2 : tensor<4x8xf64>
}

// -----

// f16 computes in f32 and rounds once.
// C-LABEL: int aicf_half(
func.func @half(%x: tensor<8xf16>) -> tensor<8xf16> {
  // C: log1pf(
  %0 = aicf_tensor.log1p %x : (tensor<8xf16>) -> tensor<8xf16>
  func.return %0 : tensor<8xf16>
}
