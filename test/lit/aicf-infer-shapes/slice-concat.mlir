// RUN: aicf-opt %s -p aicf-infer-shapes | filecheck %s
// slice: each extent is len(range(start, stop, step)) (negative steps walk back, stop
// -1 runs through index 0); concatenate: extents add up on the axis.

// CHECK-LABEL: func.func @slices
func.func @slices(%x: tensor<4x8x5xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.slice %{{.*}} start = [1, 7, 0] stop = [4, -1, 5] step = [2, -3, 5] : (tensor<4x8x5xf32>) -> tensor<2x3x1xf32>
  %0 = aicf_tensor.slice %x start = [1, 7, 0] stop = [4, -1, 5] step = [2, -3, 5] : (tensor<4x8x5xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @empty_slice
func.func @empty_slice(%x: tensor<4xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.slice %{{.*}} start = [3] stop = [1] step = [1] : (tensor<4xf32>) -> tensor<0xf32>
  %0 = aicf_tensor.slice %x start = [3] stop = [1] step = [1] : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<2x3xf16>, %b: tensor<2x5xf16>, %c: tensor<2x0xf16>) -> tensor<*xf16> {
  // CHECK: aicf_tensor.concatenate %{{.*}}, %{{.*}}, %{{.*}} axis = -1 : (tensor<2x3xf16>, tensor<2x5xf16>, tensor<2x0xf16>) -> tensor<2x8xf16>
  %0 = aicf_tensor.concatenate %a, %b, %c axis = -1 : (tensor<2x3xf16>, tensor<2x5xf16>, tensor<2x0xf16>) -> tensor<*xf16>
  func.return %0 : tensor<*xf16>
}
