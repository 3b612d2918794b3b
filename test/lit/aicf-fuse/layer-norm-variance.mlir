// RUN: aicf-opt %s -p 'aicf-cleanup-reshapes,aicf-expand-variance,aicf-fuse{target=h100}' | filecheck %s
// A layer norm written as torch traces it (residual add, mean, var, rsqrt, scale and
// shift, then the view to a linear layer's rows): the variance's two passes join the
// mean in one row group with everything else, and the reshape to rows stays after the
// group (moving it up would cut the scale and shift off the group).

// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    %[[Y:.*]] = aicf_tensor.fused ins(%x, %r, %g, %b
// CHECK-COUNT-2: aicf_tensor.reduce_mean
// CHECK:         aicf_tensor.reduce_sum
// CHECK:         aicf_tensor.rsqrt
// CHECK:         aicf_tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = aicf_tensor.reshape %[[Y]] shape = [128, 64]
// CHECK-NEXT:    func.return %[[R]]
func.func @layer_norm(%x: tensor<8x16x64xf16>, %r: tensor<8x16x64xf16>, %g: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<128x64xf16> {
  %s = aicf_tensor.add %x, %r : (tensor<8x16x64xf16>, tensor<8x16x64xf16>) -> tensor<8x16x64xf16>
  %m = aicf_tensor.reduce_mean %s axes = [2] keepdims : (tensor<8x16x64xf16>) -> tensor<8x16x1xf16>
  %v = aicf_tensor.reduce_var %s axes = [2] keepdims : (tensor<8x16x64xf16>) -> tensor<8x16x1xf16>
  %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f16>
  %ve = aicf_tensor.add %v, %eps : (tensor<8x16x1xf16>, tensor<f16>) -> tensor<8x16x1xf16>
  %rs = aicf_tensor.rsqrt %ve : (tensor<8x16x1xf16>) -> tensor<8x16x1xf16>
  %d = aicf_tensor.sub %s, %m : (tensor<8x16x64xf16>, tensor<8x16x1xf16>) -> tensor<8x16x64xf16>
  %n = aicf_tensor.mul %d, %rs : (tensor<8x16x64xf16>, tensor<8x16x1xf16>) -> tensor<8x16x64xf16>
  %ng = aicf_tensor.mul %n, %g : (tensor<8x16x64xf16>, tensor<64xf16>) -> tensor<8x16x64xf16>
  %y = aicf_tensor.add %ng, %b : (tensor<8x16x64xf16>, tensor<64xf16>) -> tensor<8x16x64xf16>
  %rows = aicf_tensor.reshape %y shape = [128, 64] : (tensor<8x16x64xf16>) -> tensor<128x64xf16>
  func.return %rows : tensor<128x64xf16>
}
