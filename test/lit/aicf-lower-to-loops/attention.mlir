// RUN: aicf-opt %s --split-input-file -p aicf-lower-to-loops | filecheck %s
// An attention becomes one aicf_loop.attention writing the output (no nest and no
// buffer for the scores), with the op's scale, causal flag, layouts and mask.

// CHECK-LABEL: func.func @causal(%q: memref<2x16x4x8xf16>, %k: memref<2x16x4x8xf16>, %v: memref<2x16x4x8xf16>, %out0: memref<2x4x16x8xf16>)
// CHECK-NEXT: aicf_loop.attention scale = 0.125 causal q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3] ins(%q, %k, %v : memref<2x16x4x8xf16>, memref<2x16x4x8xf16>, memref<2x16x4x8xf16>) outs(%out0 : memref<2x4x16x8xf16>)
// CHECK-NEXT: func.return
func.func @causal(%q: tensor<2x16x4x8xf16>, %k: tensor<2x16x4x8xf16>, %v: tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf16> {
  %0 = aicf_tensor.attention %q, %k, %v scale = 0.125 causal q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3] : (tensor<2x16x4x8xf16>, tensor<2x16x4x8xf16>, tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf16>
  func.return %0 : tensor<2x4x16x8xf16>
}

// -----

// CHECK-LABEL: func.func @masked
// CHECK: %[[O:.*]] = memref.alloc() : memref<1000x64xf32>
// CHECK-NEXT: aicf_loop.attention scale = 1.0 ins(%q, %k, %v, %m : memref<1000x64xf32>, memref<1000x64xf32>, memref<1000x64xf32>, memref<1x1000xi1>) outs(%[[O]] : memref<1000x64xf32>)
// CHECK-NOT: memref.alloc() : memref<1000x1000
func.func @masked(%q: tensor<1000x64xf32>, %k: tensor<1000x64xf32>, %v: tensor<1000x64xf32>, %m: tensor<1x1000xi1>) -> tensor<1000x64xf32> {
  %0 = aicf_tensor.attention %q, %k, %v, %m scale = 1.0 : (tensor<1000x64xf32>, tensor<1000x64xf32>, tensor<1000x64xf32>, tensor<1x1000xi1>) -> tensor<1000x64xf32>
  %1 = aicf_tensor.exp %0 : (tensor<1000x64xf32>) -> tensor<1000x64xf32>
  func.return %1 : tensor<1000x64xf32>
}
