// RUN: aicf-opt %s -p aicf-fuse | filecheck %s

// tanh(sin(1.7*x+0.3)*x+1)*0.5 written as six ops: one group; the splat constants
// are cloned into it, so its only input is x.
// CHECK-LABEL: func.func @six_ops
// CHECK-NEXT:    %[[Y:.*]] = aicf_tensor.fused ins(%x : tensor<1024xf32>) -> tensor<1024xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<1024xf32>):
// CHECK-NEXT:      %{{.*}} = aicf_tensor.constant dense<1.700000e+00> : tensor<f32>
// CHECK-NEXT:      %{{.*}} = aicf_tensor.mul %[[A]], %{{.*}}
// CHECK-NEXT:      %{{.*}} = aicf_tensor.constant dense<3.000000e-01> : tensor<f32>
// CHECK-NEXT:      %{{.*}} = aicf_tensor.add
// CHECK-NEXT:      %{{.*}} = aicf_tensor.sin
// CHECK-NEXT:      %{{.*}} = aicf_tensor.mul %{{.*}}, %[[A]]
// CHECK-NEXT:      %{{.*}} = aicf_tensor.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:      %{{.*}} = aicf_tensor.add
// CHECK-NEXT:      %{{.*}} = aicf_tensor.tanh
// CHECK-NEXT:      %{{.*}} = aicf_tensor.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:      %[[R:.*]] = aicf_tensor.mul
// CHECK-NEXT:      aicf_tensor.yield %[[R]] : tensor<1024xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1024xf32>
func.func @six_ops(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = aicf_tensor.constant dense<1.7> : tensor<f32>
  %b = aicf_tensor.constant dense<0.3> : tensor<f32>
  %one = aicf_tensor.constant dense<1.0> : tensor<f32>
  %half = aicf_tensor.constant dense<0.5> : tensor<f32>
  %0 = aicf_tensor.mul %x, %a : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %2 = aicf_tensor.sin %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  %3 = aicf_tensor.mul %2, %x : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %4 = aicf_tensor.add %3, %one : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %5 = aicf_tensor.tanh %4 : (tensor<1024xf32>) -> tensor<1024xf32>
  %6 = aicf_tensor.mul %5, %half : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  func.return %6 : tensor<1024xf32>
}

// A broadcast operand is not materialised: the bias is a group input of its own
// shape, and the cast joins the chain.
// CHECK-LABEL: func.func @broadcast_bias
// CHECK-NEXT:    aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf16> {
// CHECK:           aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      aicf_tensor.relu
// CHECK-NEXT:      aicf_tensor.cast
// CHECK-NEXT:      aicf_tensor.yield
// CHECK-NOT:     aicf_tensor.broadcast_to
func.func @broadcast_bias(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf16> {
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aicf_tensor.cast %1 : (tensor<4x8xf32>) -> tensor<4x8xf16>
  func.return %2 : tensor<4x8xf16>
}

// A small operand computed before it is broadcast is recomputed per element when
// that is cheaper than a round trip through memory.
// CHECK-LABEL: func.func @small_producer
// CHECK-NEXT:    aicf_tensor.fused ins(%b, %x : tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           aicf_tensor.neg %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @small_producer(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = aicf_tensor.neg %b : (tensor<8xf32>) -> tensor<8xf32>
  %1 = aicf_tensor.add %x, %0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %1 : tensor<4x8xf32>
}
