// RUN: not aicf-run %s --target cpu --repeat 1 2>&1 | filecheck %s
// An input too large to draw (2^50 elements, 8 PiB in float64) is aicf's
// OutOfMemory, naming the entry and the input; NumPy's _ArrayMemoryError came out
// as a raw traceback.

// CHECK: @f: the random input %x (1048576x1048576x1024, 8388608.0 GiB drawn in float64) does not fit in this machine's memory
// CHECK-NOT: Traceback

func.func @f(%x: tensor<1048576x1048576x1024xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<1048576x1048576x1024xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
