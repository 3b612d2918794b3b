// RUN: aicf-opt %s -t cuda --split-input-file --verify-diagnostics

// -t cuda prints kernels of the GPU level; on anything above it, it says which
// lowering is missing instead of printing an empty module.

func.func @tensor_level(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'aicf_tensor.sin' is not at the GPU level: run aicf-lower-to-loops,aicf-lower-to-gpu before -t cuda}}
  %0 = aicf_tensor.sin %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

func.func @loop_level(%x: memref<8xf32>, %y: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.nest' is not at the GPU level: run aicf-lower-to-gpu before -t cuda}}
  aicf_loop.nest domain = [8] iterators = [parallel] ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    %s = math.sin %a : f32
    aicf_loop.yield %s : f32
  }
  func.return
}
