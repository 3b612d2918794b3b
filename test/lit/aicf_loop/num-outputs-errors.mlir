// RUN: aicf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// `aicf.num_outputs` says how many trailing arguments are outputs: a non-negative
// integer no larger than the argument count.

// expected-error @+1 {{'func.func' aicf.num_outputs must be an integer from 0 to 1 (the argument count), got 5 : i64}}
func.func @too_many(%x: memref<4xf32>) attributes {aicf.num_outputs = 5 : i64} {
  func.return
}

// -----

// expected-error @+1 {{'func.func' aicf.num_outputs must be an integer from 0 to 1 (the argument count), got "abc"}}
func.func @not_an_integer(%x: memref<4xf32>) attributes {aicf.num_outputs = "abc"} {
  func.return
}

// -----

// expected-error @+1 {{'func.func' aicf.num_outputs must be an integer from 0 to 2 (the argument count), got -1 : i64}}
func.func @negative(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = -1 : i64} {
  func.return
}

// -----

// CHECK-LABEL: func.func @fine
// CHECK-SAME: aicf.num_outputs = 1 : i64
func.func @fine(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  func.return
}
