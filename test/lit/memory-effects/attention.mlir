// RUN: aicf-opt %s -p aicf-infer-shapes,canonicalize,cse,dce | filecheck %s
// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops,canonicalize,cse,dce | filecheck %s --check-prefix=LOOP

// The tensor-level attention is pure: an unused one goes, two equal ones are one.
// aicf_loop.attention reads its inputs and writes its output: cleanups keep every
// one, though it has no results (the tensor level already dropped what is dead).

// CHECK-LABEL: func.func @f
// CHECK-COUNT-1: aicf_tensor.attention
// CHECK-NOT: aicf_tensor.attention
// LOOP-LABEL: func.func @f
// LOOP-COUNT-3: aicf_loop.attention
// LOOP: func.return
func.func @f(%q: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = aicf_tensor.attention %q, %q, %q scale = 0.5 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = aicf_tensor.attention %q, %q, %q scale = 0.5 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %dead = aicf_tensor.attention %q, %q, %q scale = 0.25 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
