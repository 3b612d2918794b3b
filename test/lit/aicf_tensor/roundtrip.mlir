// RUN: aicf-opt %s | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | aicf-opt | filecheck %s
// RUN: aicf-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.sin %{{.*}} : (tensor<*xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.sin %0 : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: aicf_tensor.constant dense<1.500000e+00> : tensor<f32>
  %c = aicf_tensor.constant dense<1.5> : tensor<f32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %2 = aicf_tensor.pow %1, %c : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<1x8xf32>, tensor<f32>, tensor<4x1xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %1 = aicf_tensor.reduce_max %x axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>
  // CHECK: aicf_tensor.reduce_min %{{.*}} axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  %2 = aicf_tensor.reduce_min %x axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  // CHECK: aicf_tensor.reduce_prod %{{.*}} axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %3 = aicf_tensor.reduce_prod %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  func.return %0, %1, %2, %3 : tensor<4xf32>, tensor<1x8xf32>, tensor<f32>, tensor<4x1xf32>
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: aicf_tensor.cumsum %{{.*}} axis = -1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.cumsum %x axis = -1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: aicf_tensor.cumprod %{{.*}} axis = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.cumprod %x axis = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<4x8xf16>) -> tensor<2x16xf32> {
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  %0 = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  %1 = aicf_tensor.matmul %x, %0 : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [2, -1] : (tensor<4x8xf16>) -> tensor<2x16xf16>
  %2 = aicf_tensor.reshape %x shape = [2, -1] : (tensor<4x8xf16>) -> tensor<2x16xf16>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [3, 4, 4] : (tensor<4x4xf16>) -> tensor<3x4x4xf16>
  %3 = aicf_tensor.broadcast_to %1 shape = [3, 4, 4] : (tensor<4x4xf16>) -> tensor<3x4x4xf16>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<2x16xf16>) -> tensor<2x16xf32>
  %4 = aicf_tensor.cast %2 : (tensor<2x16xf16>) -> tensor<2x16xf32>
  func.return %4 : tensor<2x16xf32>
}

// CHECK-LABEL: func.func @fused_group
func.func @fused_group(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // CHECK:      aicf_tensor.fused ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^{{.*}}(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>):
  // CHECK:        aicf_tensor.yield %{{.*}} : tensor<4xf32>
  %y = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = aicf_tensor.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
    aicf_tensor.yield %2 : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// Every op of the dialect, in its custom form.

// CHECK-LABEL: func.func @all_unary
func.func @all_unary(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: aicf_tensor.neg %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = aicf_tensor.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.exp %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aicf_tensor.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.log %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aicf_tensor.log %1 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.sin %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = aicf_tensor.sin %2 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.cos %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = aicf_tensor.cos %3 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.tanh %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = aicf_tensor.tanh %4 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.sqrt %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %6 = aicf_tensor.sqrt %5 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.rsqrt %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %7 = aicf_tensor.rsqrt %6 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.abs %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %8 = aicf_tensor.abs %7 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.relu %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %9 = aicf_tensor.relu %8 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.gelu %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %10 = aicf_tensor.gelu %9 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.sigmoid %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %11 = aicf_tensor.sigmoid %10 : (tensor<4xf32>) -> tensor<4xf32>
  // neg, abs and relu also take integers.
  // CHECK: aicf_tensor.neg %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %12 = aicf_tensor.neg %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: aicf_tensor.abs %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %13 = aicf_tensor.abs %12 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: aicf_tensor.relu %{{.*}} {note = "kept"} : (tensor<4xi32>) -> tensor<4xi32>
  %14 = aicf_tensor.relu %13 {note = "kept"} : (tensor<4xi32>) -> tensor<4xi32>
  func.return %11, %14 : tensor<4xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @all_binary
func.func @all_binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %h: tensor<2x1xf16>) -> tensor<2x3xf32> {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = aicf_tensor.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.sub %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = aicf_tensor.sub %0, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x1xf16>) -> tensor<2x3xf32>
  %2 = aicf_tensor.mul %1, %h : (tensor<2x3xf32>, tensor<2x1xf16>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.div %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = aicf_tensor.div %2, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.max %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = aicf_tensor.max %3, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.min %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = aicf_tensor.min %4, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = aicf_tensor.pow %5, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %6 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @constants_and_casts
func.func @constants_and_casts() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<2x2xbf16>) {
  // CHECK: aicf_tensor.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %0 = aicf_tensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: aicf_tensor.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = aicf_tensor.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: aicf_tensor.constant dense<-2.500000e-01> : tensor<2x2xf16>
  %2 = aicf_tensor.constant dense<-0.25> : tensor<2x2xf16>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<2x2xf16>) -> tensor<2x2xbf16>
  %3 = aicf_tensor.cast %2 : (tensor<2x2xf16>) -> tensor<2x2xbf16>
  func.return %0, %1, %3 : tensor<2x2xf32>, tensor<3xi32>, tensor<2x2xbf16>
}

// CHECK-LABEL: func.func @all_reductions
func.func @all_reductions(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<1x3x1xf32>, tensor<2x3x4xf32>) {
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [1, -1] : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %0 = aicf_tensor.reduce_sum %x axes = [1, -1] : (tensor<2x3x4xf32>) -> tensor<2xf32>
  // CHECK: aicf_tensor.reduce_mean %{{.*}} axes = [0, 2] keepdims : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %1 = aicf_tensor.reduce_mean %x axes = [0, 2] keepdims : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = aicf_tensor.reduce_max %x axes = [] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0, %1, %2 : tensor<2xf32>, tensor<1x3x1xf32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @all_layout
func.func @all_layout(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %d: tensor<?x4xf32>) -> (tensor<2x3x5xf32>, tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x2x3x4xf32>, tensor<?x4xf32>) {
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %0 = aicf_tensor.matmul %x, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // The target of a reshape may come from its result type alone.
  // CHECK: aicf_tensor.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = aicf_tensor.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [2, 2, 3, 4] : (tensor<2x3x4xf32>) -> tensor<2x2x3x4xf32>
  %3 = aicf_tensor.broadcast_to %x shape = [2, 2, 3, 4] : (tensor<2x3x4xf32>) -> tensor<2x2x3x4xf32>
  // Dynamic extents print as `?`.
  // CHECK: aicf_tensor.exp %{{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = aicf_tensor.exp %d : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<2x3x5xf32>, tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x2x3x4xf32>, tensor<?x4xf32>
}

// The generic form parses too, and prints back in the custom form.
// CHECK-LABEL: func.func @generic_input
// GENERIC-LABEL: "func.func"() <{sym_name = "generic_input"
func.func @generic_input(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4xf32>, tensor<8x4xf16>, tensor<2x16xf32>, tensor<3x4x8xf32>) {
  // CHECK: aicf_tensor.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // GENERIC: "aicf_tensor.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = "aicf_tensor.add"(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: aicf_tensor.reduce_max %{{.*}} axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // GENERIC: "aicf_tensor.reduce_max"(%{{.*}}) <{axes = array<i64: -1>, keepdims}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %1 = "aicf_tensor.reduce_max"(%0) <{axes = array<i64: -1>, keepdims}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: aicf_tensor.reduce_sum %{{.*}} axes = [1] : (tensor<4x1xf32>) -> tensor<4xf32>
  // GENERIC: "aicf_tensor.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>}> : (tensor<4x1xf32>) -> tensor<4xf32>
  %2 = "aicf_tensor.reduce_sum"(%1) <{axes = array<i64: 1>}> : (tensor<4x1xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.cast %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf16>
  // GENERIC: "aicf_tensor.cast"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %3 = "aicf_tensor.cast"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  // CHECK: aicf_tensor.transpose %{{.*}} perm = [1, 0] : (tensor<4x8xf16>) -> tensor<8x4xf16>
  // GENERIC: "aicf_tensor.transpose"(%{{.*}}) <{perm = array<i64: 1, 0>}> : (tensor<4x8xf16>) -> tensor<8x4xf16>
  %4 = "aicf_tensor.transpose"(%3) <{perm = array<i64: 1, 0>}> : (tensor<4x8xf16>) -> tensor<8x4xf16>
  // CHECK: aicf_tensor.constant dense<2.000000e+00> : tensor<f32>
  // GENERIC: "aicf_tensor.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %c = "aicf_tensor.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  // CHECK: aicf_tensor.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // GENERIC: "aicf_tensor.matmul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %5 = "aicf_tensor.matmul"(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.pow %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // GENERIC: "aicf_tensor.pow"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = "aicf_tensor.pow"(%5, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: aicf_tensor.reshape %{{.*}} shape = [2, -1] : (tensor<4x8xf32>) -> tensor<2x16xf32>
  // GENERIC: "aicf_tensor.reshape"(%{{.*}}) <{shape = array<i64: 2, -1>}> : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %7 = "aicf_tensor.reshape"(%x) <{shape = array<i64: 2, -1>}> : (tensor<4x8xf32>) -> tensor<2x16xf32>
  // CHECK: aicf_tensor.broadcast_to %{{.*}} shape = [3, 4, 8] : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
  // GENERIC: "aicf_tensor.broadcast_to"(%{{.*}}) <{shape = array<i64: 3, 4, 8>}> : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
  %8 = "aicf_tensor.broadcast_to"(%x) <{shape = array<i64: 3, 4, 8>}> : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
  %9 = "aicf_tensor.sigmoid"(%6) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %9, %4, %7, %8 : tensor<4xf32>, tensor<8x4xf16>, tensor<2x16xf32>, tensor<3x4x8xf32>
}
