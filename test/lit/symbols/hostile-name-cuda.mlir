// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100},aicf-lower-to-gpu' -t cuda | filecheck %s

// A symbol name is data, never source: characters outside [A-Za-z0-9_] become `_`
// and a hash of the original keeps the name unique; comments quote it escaped.
// CHECK-NOT: {{^}}#include </etc/passwd>
// CHECK: __global__ void __launch_bounds__({{.*}}) [[K:aicf_f_+include_+etc_passwd_+nest0_[0-9a-f]{8}]](
// CHECK-NOT: {{^}}#include </etc/passwd>
// CHECK: // host @"f() {}\0A#include </etc/passwd>\0A// ": [[K]]<<<
// CHECK-NOT: {{^}}#include </etc/passwd>
func.func @"f() {}\0A#include </etc/passwd>\0A// "(%x: tensor<8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
