// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-fold-constants | filecheck %s
// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-fold-constants | aicf-opt | filecheck %s
// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-fold-constants | aicf-opt | aicf-opt | filecheck %s

// Folded -inf and NaN print as their bit patterns inside dense<> (as MLIR and xDSL
// print them) and read back as the same floats, not as the integer 4.29e9.
// CHECK-LABEL: func.func @special
// CHECK-DAG: dense<0xff800000> : tensor<f32>
// CHECK-DAG: dense<0xffc00000> : tensor<f32>
// CHECK-DAG: dense<0x7ff0000000000000> : tensor<f64>
func.func @special(%x: tensor<4xf32>, %w: tensor<4xf64>) -> (tensor<*xf32>, tensor<*xf64>) {
  %c = aicf_tensor.constant dense<0.0> : tensor<f32>
  %l = aicf_tensor.log %c : (tensor<f32>) -> tensor<*xf32>
  %z = aicf_tensor.constant dense<-1.0> : tensor<f32>
  %n = aicf_tensor.sqrt %z : (tensor<f32>) -> tensor<*xf32>
  %a = aicf_tensor.add %x, %l : (tensor<4xf32>, tensor<*xf32>) -> tensor<*xf32>
  %b = aicf_tensor.add %a, %n : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %o = aicf_tensor.constant dense<0.0> : tensor<f64>
  %i = aicf_tensor.exp %o : (tensor<f64>) -> tensor<*xf64>
  %big = aicf_tensor.constant dense<1000.0> : tensor<f64>
  %e = aicf_tensor.mul %i, %big : (tensor<*xf64>, tensor<f64>) -> tensor<*xf64>
  %inf = aicf_tensor.exp %e : (tensor<*xf64>) -> tensor<*xf64>
  %y = aicf_tensor.add %w, %inf : (tensor<4xf64>, tensor<*xf64>) -> tensor<*xf64>
  func.return %b, %y : tensor<*xf32>, tensor<*xf64>
}

// CHECK-LABEL: func.func @vec
// CHECK: dense<[0xff800000, 0.000000e+00]> : tensor<2xf32>
func.func @vec(%x: tensor<2xf32>) -> tensor<*xf32> {
  %c = aicf_tensor.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %l = aicf_tensor.log %c : (tensor<2xf32>) -> tensor<*xf32>
  %a = aicf_tensor.add %x, %l : (tensor<2xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %a : tensor<*xf32>
}

// Large finite f64 values read back unchanged (no range check trips on them).
// CHECK-LABEL: func.func @big_f64
// CHECK: dense<1.000000e+300> : tensor<f64>
func.func @big_f64(%x: tensor<2xf64>) -> tensor<*xf64> {
  %c = aicf_tensor.constant dense<1.0e300> : tensor<f64>
  %a = aicf_tensor.add %x, %c : (tensor<2xf64>, tensor<f64>) -> tensor<*xf64>
  func.return %a : tensor<*xf64>
}
