// RUN: aicf-opt %s --split-input-file -p aicf-decompose-attention | filecheck %s
// The cuda target's attention until it has a kernel of its own: matmul, softmax,
// matmul, keeping the op's semantics (f32 softmax for f16, -inf where masked, a row
// masked out entirely gives 0: its max read as 0 and its sum as 1).

// CHECK-LABEL: func.func @causal
// CHECK: %[[KT:.*]] = aicf_tensor.transpose %k perm = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
// CHECK-NEXT: %[[S:.*]] = aicf_tensor.matmul %q, %[[KT]] : (tensor<5x8xf32>, tensor<8x5xf32>) -> tensor<5x5xf32>
// CHECK-NEXT: %[[C:.*]] = aicf_tensor.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT: %[[S1:.*]] = aicf_tensor.mul %[[S]], %[[C]]
// CHECK-NEXT: %[[NINF:.*]] = aicf_tensor.constant dense<0xff800000> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = aicf_tensor.iota dim = 0 : tensor<5x5xi32>
// CHECK-NEXT: %[[COL:.*]] = aicf_tensor.iota dim = 1 : tensor<5x5xi32>
// CHECK-NEXT: %[[KEEP:.*]] = aicf_tensor.ge %[[R]], %[[COL]]
// CHECK-NEXT: %[[S2:.*]] = aicf_tensor.select %[[KEEP]], %[[S1]], %[[NINF]]
// CHECK-NEXT: %[[M:.*]] = aicf_tensor.reduce_max %[[S2]] axes = [-1] keepdims
// CHECK-NEXT: %[[D:.*]] = aicf_tensor.sub %[[S2]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = aicf_tensor.exp %[[D]]
// CHECK-NEXT: %[[L:.*]] = aicf_tensor.reduce_sum %[[E]] axes = [-1] keepdims
// CHECK-NEXT: %[[P:.*]] = aicf_tensor.div %[[E]], %[[L]]
// CHECK-NEXT: %[[O:.*]] = aicf_tensor.matmul %[[P]], %v : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
// CHECK-NEXT: func.return %[[O]]
func.func @causal(%q: tensor<5x8xf32>, %k: tensor<5x8xf32>, %v: tensor<5x8xf32>) -> tensor<5x8xf32> {
  %0 = aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
  func.return %0 : tensor<5x8xf32>
}

// -----

// f16 with an i1 mask and K given as D x S: the scores go to f32 and the weights
// back to f16; the row max and sum are guarded against a row masked out entirely
// CHECK-LABEL: func.func @masked_f16
// CHECK-NOT: aicf_tensor.transpose
// CHECK: %[[S:.*]] = aicf_tensor.matmul %q, %kt : (tensor<2x4x8xf16>, tensor<2x8x6xf16>) -> tensor<2x4x6xf16>
// CHECK-NEXT: %[[S32:.*]] = aicf_tensor.cast %[[S]] : (tensor<2x4x6xf16>) -> tensor<2x4x6xf32>
// CHECK: %[[SM:.*]] = aicf_tensor.select %m, %{{.*}}, %[[NINF:.*]] : (tensor<2x1x6xi1>, tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
// CHECK-NEXT: %[[M:.*]] = aicf_tensor.reduce_max %[[SM]]
// CHECK-NEXT: %[[EMPTY:.*]] = aicf_tensor.eq %[[M]], %[[NINF]]
// CHECK-NEXT: %[[ZERO:.*]] = aicf_tensor.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M0:.*]] = aicf_tensor.select %[[EMPTY]], %[[ZERO]], %[[M]]
// CHECK: %[[L:.*]] = aicf_tensor.reduce_sum
// CHECK: %[[NONE:.*]] = aicf_tensor.eq %[[L]], %{{.*}}
// CHECK: %[[L1:.*]] = aicf_tensor.select %[[NONE]], %{{.*}}, %[[L]]
// CHECK-NEXT: %[[P:.*]] = aicf_tensor.div %{{.*}}, %[[L1]]
// CHECK-NEXT: %[[P16:.*]] = aicf_tensor.cast %[[P]] : (tensor<2x4x6xf32>) -> tensor<2x4x6xf16>
// CHECK-NEXT: aicf_tensor.matmul %[[P16]], %v : (tensor<2x4x6xf16>, tensor<2x6x8xf16>) -> tensor<2x4x8xf16>
func.func @masked_f16(%q: tensor<2x4x8xf16>, %kt: tensor<2x8x6xf16>, %v: tensor<2x6x8xf16>, %m: tensor<2x1x6xi1>) -> tensor<2x4x8xf16> {
  %0 = aicf_tensor.attention %q, %kt, %v, %m scale = 1.0 k_perm = [0, 2, 1] : (tensor<2x4x8xf16>, tensor<2x8x6xf16>, tensor<2x6x8xf16>, tensor<2x1x6xi1>) -> tensor<2x4x8xf16>
  func.return %0 : tensor<2x4x8xf16>
}

// -----

// An additive f64 mask is added in the scores' type
// CHECK-LABEL: func.func @additive
// CHECK: %[[M32:.*]] = aicf_tensor.cast %m : (tensor<4x4xf64>) -> tensor<4x4xf32>
// CHECK-NEXT: aicf_tensor.add %{{.*}}, %[[M32]]
func.func @additive(%q: tensor<4x8xf32>, %m: tensor<4x4xf64>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.attention %q, %q, %q, %m scale = 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf64>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// No keys: the op gives 0
// CHECK-LABEL: func.func @no_keys
// CHECK-NEXT: %[[Z:.*]] = aicf_tensor.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: func.return %[[Z]]
func.func @no_keys(%q: tensor<4x8xf32>, %k: tensor<0x8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.attention %q, %k, %k scale = 1.0 : (tensor<4x8xf32>, tensor<0x8xf32>, tensor<0x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
