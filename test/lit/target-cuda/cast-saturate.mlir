// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100},aicf-lower-to-gpu{target=h100}' -t cuda | filecheck %s

// f32 -> i32: NaN to 0, past the range to its bounds, else truncated (C leaves the
// out-of-range cases undefined; the kernel says what PTX's cvt.rzi does).
// CHECK-LABEL: __global__ void {{.*}} f_nest0(
// CHECK: = ([[X:v_[0-9]+]] != [[X]] ? (int)0 : [[X]] >= 2147483648.0f ? (int)2147483647 : [[X]] < -2147483648.0f ? (int)(-2147483647 - 1) : (int)[[X]]);
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xi32> {
  %z = aicf_tensor.cast %x : (tensor<1024xf32>) -> tensor<1024xi32>
  func.return %z : tensor<1024xi32>
}
