// RUN: aicf-opt %s -p aicf-lower-to-loops | filecheck %s

// An elementwise chain is ONE nest: the member bodies composed in order, the bias
// read through its broadcast map, the splat constant an arith.constant.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%x: memref<4x8xf32>, %b: memref<8xf32>, %out0: memref<4x8xf32>)
// CHECK-NEXT:    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
// CHECK-NEXT:      ins(%x, %b : memref<4x8xf32>, memref<8xf32>)
// CHECK-NEXT:      outs(%out0 : memref<4x8xf32>)
// CHECK-NEXT:      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT:      %[[T:.*]] = math.sin %[[S]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[T]], %[[C]] : f32
// CHECK-NEXT:      aicf_loop.yield %[[M]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = aicf_tensor.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %h = aicf_tensor.constant dense<0.5> : tensor<f32>
    %2 = aicf_tensor.mul %1, %h : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    aicf_tensor.yield %2 : tensor<4x8xf32>
  }
  func.return %y : tensor<4x8xf32>
}

// Two outputs of one chain: one nest with two outputs; a small operand recomputed
// per element (neg of the [8] bias), f16 computed in f32 and rounded after each op.
// CHECK-LABEL: func.func @two_outputs_f16
// CHECK-NEXT:    aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
// CHECK-NEXT:      ins(%x, %b : memref<4x8xf16>, memref<8xf16>)
// CHECK-NEXT:      outs(%out0, %out1 : memref<4x8xf16>, memref<4x8xf32>)
// CHECK-NEXT:      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f16, %[[B:.*]]: f16):
// CHECK-NEXT:      %[[BE:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[BE]] : f32
// CHECK-NEXT:      %[[NT:.*]] = arith.truncf %[[N]] : f32 to f16
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[NE:.*]] = arith.extf %[[NT]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[XE]], %[[NE]] : f32
// CHECK-NEXT:      %[[ST:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[ST]] : f16 to f32
// CHECK-NEXT:      aicf_loop.yield %[[ST]], %[[W]] : f16, f32
func.func @two_outputs_f16(%x: tensor<4x8xf16>, %b: tensor<8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf32>) {
  %y, %z = aicf_tensor.fused ins(%x, %b : tensor<4x8xf16>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf16>, %c: tensor<8xf16>):
    %0 = aicf_tensor.neg %c : (tensor<8xf16>) -> tensor<8xf16>
    %1 = aicf_tensor.add %a, %0 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
    %2 = aicf_tensor.cast %1 : (tensor<4x8xf16>) -> tensor<4x8xf32>
    aicf_tensor.yield %1, %2 : tensor<4x8xf16>, tensor<4x8xf32>
  }
  func.return %y, %z : tensor<4x8xf16>, tensor<4x8xf32>
}
