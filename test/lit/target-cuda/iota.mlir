// RUN: aicf-opt %s -p 'aicf-fuse{target=h100},aicf-lower-to-loops,aicf-fold-view-copies,aicf-plan{target=h100},aicf-lower-to-gpu' -t cuda | filecheck %s

// iota(3x5000, dim 1) * x + 1 on the cuda target: one kernel, which reads the index
// table (128 entries, 128 * 128 >= 5000) at i floordiv 128 and i mod 128 and computes
// the index before the multiply.
// CHECK:     extern "C" __global__ void {{.*}} scaled_index_nest0(const int* __restrict__ [[HI:[a-z0-9_]+]], const int* __restrict__ [[LO:[a-z0-9_]+]], const float* __restrict__ x_p2, float* __restrict__ out0_p3)
// CHECK:       = [[HI]][
// CHECK:       = [[LO]][
// CHECK:       const int [[S:v_[0-9]+]] = (int)((unsigned){{v_[0-9]+}} * (unsigned){{v_[0-9]+}});
// CHECK-NEXT:  const int [[I:v_[0-9]+]] = (int)((unsigned)[[S]] + (unsigned){{v_[0-9]+}});
// CHECK-NEXT:  const float [[F:v_[0-9]+]] = (float)[[I]];
// CHECK-NEXT:  const float {{v_[0-9]+}} = [[F]] * {{v_[0-9]+}};
// CHECK-NOT: __global__
// CHECK:     host @scaled_index: scaled_index_nest0<<<
func.func @scaled_index(%x: tensor<3x5000xf32>) -> tensor<3x5000xf32> {
  %i = aicf_tensor.iota dim = 1 : tensor<3x5000xf32>
  %m = aicf_tensor.mul %i, %x : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
  %c = aicf_tensor.constant dense<1.0> : tensor<3x5000xf32>
  %a = aicf_tensor.add %m, %c : (tensor<3x5000xf32>, tensor<3x5000xf32>) -> tensor<3x5000xf32>
  func.return %a : tensor<3x5000xf32>
}
