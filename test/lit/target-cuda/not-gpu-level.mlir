// RUN: not aicf-opt %s -t cuda 2>&1 | filecheck %s --check-prefix=TENSOR
// RUN: not aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t cuda 2>&1 | filecheck %s --check-prefix=LOOP

// -t cuda prints kernels of the GPU level; on anything above it, it says which
// lowering is missing instead of printing an empty module.

// TENSOR: not-gpu-level.mlir:10:3: error: 'aicf_tensor.sin' is not at the GPU level: run aicf-lower-to-loops,aicf-lower-to-gpu before -t cuda
// LOOP: error: 'aicf_loop.nest' is not at the GPU level: run aicf-lower-to-gpu before -t cuda
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = aicf_tensor.sin %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
