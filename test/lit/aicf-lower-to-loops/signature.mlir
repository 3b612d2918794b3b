// RUN: aicf-opt %s -p aicf-lower-to-loops --split-input-file | filecheck %s
// Destination-passing style: tensor arguments become memrefs, results become
// trailing output memrefs (aicf.num_outputs), func.return has no operands. The op
// producing a returned value writes straight into its output; intermediates are
// allocated where defined and freed after their last use; a returned argument or a
// value returned twice is copied.

// CHECK-LABEL: func.func @dps
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>, %[[OUT0:.*]]: memref<4xf32>, %[[OUT1:.*]]: memref<4x8xf32>, %[[OUT2:.*]]: memref<4x8xf32>, %[[OUT3:.*]]: memref<4x8xf32>)
// CHECK-SAME: attributes {aicf.num_outputs = 4 : i64}
func.func @dps(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // %0 is returned: written into its output, no allocation
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[X]], %[[B]] : memref<4x8xf32>, memref<8xf32>)
  // CHECK-NEXT:   outs(%[[OUT1]] : memref<4x8xf32>)
  %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK:      %[[T1:.*]] = memref.alloc() : memref<4x8xf32>
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[OUT1]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[T1]] : memref<4x8xf32>)
  %1 = aicf_tensor.exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK:      %[[T2:.*]] = memref.alloc() : memref<4x8xf32>
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[T1]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[T2]] : memref<4x8xf32>)
  %2 = aicf_tensor.sin %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // %1's last use is here
  // CHECK:      aicf_loop.nest
  // CHECK-NEXT:   ins(%[[T2]], %[[T1]] : memref<4x8xf32>, memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[OUT3]] : memref<4x8xf32>)
  // CHECK:      memref.dealloc %[[T1]] : memref<4x8xf32>
  %3 = aicf_tensor.mul %2, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[T2]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[OUT0]] : memref<4xf32>)
  // CHECK:      memref.dealloc %[[T2]] : memref<4x8xf32>
  %4 = aicf_tensor.reduce_sum %2 axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // The returned argument %x is copied into %out2.
  // CHECK-NEXT: aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
  // CHECK-NEXT:   ins(%[[X]] : memref<4x8xf32>)
  // CHECK-NEXT:   outs(%[[OUT2]] : memref<4x8xf32>)
  // CHECK-NEXT:   maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  // CHECK-NEXT: ^{{.*}}(%[[V:.*]]: f32):
  // CHECK-NEXT:   aicf_loop.yield %[[V]] : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: func.return
  // CHECK-NEXT: }
  func.return %4, %0, %x, %3 : tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A value returned twice is written once and copied into the second output.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.*]]: memref<3xf32>, %[[OUT0:.*]]: memref<3xf32>, %[[OUT1:.*]]: memref<3xf32>)
func.func @twice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[X]] : memref<3xf32>)
  // CHECK-NEXT:   outs(%[[OUT0]] : memref<3xf32>)
  // CHECK:      aicf_loop.nest
  // CHECK-NEXT:   ins(%[[OUT0]] : memref<3xf32>)
  // CHECK-NEXT:   outs(%[[OUT1]] : memref<3xf32>)
  %0 = aicf_tensor.tanh %x : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0, %0 : tensor<3xf32>, tensor<3xf32>
}

// -----

// An unused value is freed right after it is computed; other attributes are kept.
// CHECK-LABEL: func.func @dead
// CHECK-SAME: attributes {keep.me, aicf.num_outputs = 1 : i64}
func.func @dead(%x: tensor<3xf32>) -> tensor<3xf32> attributes {keep.me} {
  // CHECK:      %[[T:.*]] = memref.alloc() : memref<3xf32>
  // CHECK-NEXT: aicf_loop.nest
  // CHECK:      memref.dealloc %[[T]] : memref<3xf32>
  %0 = aicf_tensor.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = aicf_tensor.sin %x : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}

// -----

// Calls pass their output buffers; declarations over tensors take outputs too.
// CHECK:      func.func private @ext(memref<4xf32>, memref<4xf32>) -> () attributes {aicf.num_outputs = 1 : i64}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32>)
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[T:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: func.call @ext(%[[X]], %[[T]]) : (memref<4xf32>, memref<4xf32>) -> ()
  %0 = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: aicf_loop.nest
  // CHECK-NEXT:   ins(%[[T]] : memref<4xf32>)
  // CHECK-NEXT:   outs(%[[OUT0]] : memref<4xf32>)
  // CHECK:      memref.dealloc %[[T]]
  %1 = aicf_tensor.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Functions that are already over memrefs are left alone.
// CHECK-LABEL: func.func @lowered
// CHECK-SAME: (%{{.*}}: memref<4xf32>)
// CHECK-NOT:  aicf.num_outputs
func.func @lowered(%x: memref<4xf32>) {
  func.return
}
