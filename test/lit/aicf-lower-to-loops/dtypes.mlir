// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// f16/bf16 compute in f32, explicitly in the body (extf after reading, truncf before
// the yield); mixed element types convert to the promoted type in the body; casts
// are a conversion nest.

// CHECK-LABEL: func.func @half
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  // CHECK:      ins(%{{.*}} : memref<4xf16>)
  // CHECK-NEXT: outs(%{{.*}} : memref<4xf16>)
  // CHECK-NEXT: maps = [(d0) -> (d0), (d0) -> (d0)] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   %[[E:.*]] = math.exp %[[W]] : f32
  // CHECK-NEXT:   %[[N:.*]] = arith.truncf %[[E]] : f32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[N]] : f16
  %0 = aicf_tensor.exp %x : (tensor<4xf16>) -> tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_binary
func.func @bf16_binary(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  // CHECK:      ^{{.*}}(%[[A:.*]]: bf16, %[[B:.*]]: bf16):
  // CHECK-NEXT:   %[[A32:.*]] = arith.extf %[[A]] : bf16 to f32
  // CHECK-NEXT:   %[[B32:.*]] = arith.extf %[[B]] : bf16 to f32
  // CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A32]], %[[B32]] : f32
  // CHECK-NEXT:   %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : bf16
  %0 = aicf_tensor.add %x, %y : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  func.return %0 : tensor<4xbf16>
}

// -----

// f16 * f32 -> f32; i32 + f16 -> f16 (computed in f32); f16 + bf16 -> f32.
// CHECK-LABEL: func.func @mixed
func.func @mixed(%h: tensor<4xf16>, %f: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>) {
  // CHECK:      ^{{.*}}(%[[H:.*]]: f16, %[[F:.*]]: f32):
  // CHECK-NEXT:   %[[H32:.*]] = arith.extf %[[H]] : f16 to f32
  // CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[H32]], %[[F]] : f32
  // CHECK-NEXT:   aicf_loop.yield %[[M]] : f32
  %0 = aicf_tensor.mul %h, %f : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK:      ^{{.*}}(%[[I:.*]]: i32, %[[H2:.*]]: f16):
  // CHECK-NEXT:   %[[I32:.*]] = arith.sitofp %[[I]] : i32 to f32
  // CHECK-NEXT:   %[[H232:.*]] = arith.extf %[[H2]] : f16 to f32
  // CHECK-NEXT:   %[[S:.*]] = arith.addf %[[I32]], %[[H232]] : f32
  // CHECK-NEXT:   %[[R:.*]] = arith.truncf %[[S]] : f32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f16
  %1 = aicf_tensor.add %i, %h : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK:      ^{{.*}}(%[[H3:.*]]: f16, %[[B3:.*]]: bf16):
  // CHECK-NEXT:   arith.extf %[[H3]] : f16 to f32
  // CHECK-NEXT:   arith.extf %[[B3]] : bf16 to f32
  // CHECK-NEXT:   arith.subf
  // CHECK-NEXT:   aicf_loop.yield %{{.*}} : f32
  %2 = aicf_tensor.sub %h, %b : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<4xf16>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xi32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xf16>) {
  // CHECK:      ^{{.*}}(%[[V:.*]]: f32):
  // CHECK-NEXT:   %[[R:.*]] = arith.truncf %[[V]] : f32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f16
  %0 = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  // CHECK:      ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   %[[R:.*]] = arith.fptosi %[[W]] : f32 to i32
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : i32
  %1 = aicf_tensor.cast %0 : (tensor<4xf16>) -> tensor<4xi32>
  // f16 -> bf16 goes through f32 (neither holds the other)
  // CHECK:      ^{{.*}}(%[[V:.*]]: f16):
  // CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
  // CHECK-NEXT:   %[[R:.*]] = arith.truncf %[[W]] : f32 to bf16
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : bf16
  %2 = aicf_tensor.cast %0 : (tensor<4xf16>) -> tensor<4xbf16>
  // CHECK:      ^{{.*}}(%[[V:.*]]: i32):
  // CHECK-NEXT:   %[[R:.*]] = arith.sitofp %[[V]] : i32 to f64
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f64
  %3 = aicf_tensor.cast %1 : (tensor<4xi32>) -> tensor<4xf64>
  // int -> half in one rounding (through f32 an integer past 2^24 rounds twice)
  // CHECK:      ^{{.*}}(%[[V:.*]]: i32):
  // CHECK-NEXT:   %[[R:.*]] = arith.sitofp %[[V]] : i32 to f16
  // CHECK-NEXT:   aicf_loop.yield %[[R]] : f16
  %4 = aicf_tensor.cast %1 : (tensor<4xi32>) -> tensor<4xf16>
  func.return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<4xi32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xf16>
}
