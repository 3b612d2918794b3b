// RUN: not aicf-run %s --target cpu --repeat 1 2>&1 | filecheck %s --check-prefix=SEVERAL
// RUN: not aicf-run %s --target cpu --repeat 1 --entry nope 2>&1 | filecheck %s --check-prefix=NONE
// RUN: aicf-run %s --target cpu --repeat 1 --entry g | filecheck %s --check-prefix=CHOSEN
// Several public functions: aicf-run says how to choose with its own flag and names
// the file, as its other errors do (it said "choose one with entry=", aicf.compile's
// keyword, with neither).

// SEVERAL: entry.mlir: error: the module has several functions (@f, @g): choose one with --entry NAME
// NONE: entry.mlir: error: no function @nope in the module (functions: @f, @g)
// CHOSEN: @g on cpu

func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

func.func @g(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.cos %x : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
