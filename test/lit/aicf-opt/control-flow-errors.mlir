// RUN: aicf-opt %s --split-input-file --verify-diagnostics
// RUN: aicf-opt %s --split-input-file --verify-diagnostics -p canonicalize
// aicf's functions are straight-line code (every pass and backend takes one block
// for granted): a branch to another block is an error at the branch, at every level,
// when the input is read (it was a ValueError traceback from aicf-fuse, the lowering
// or the C emitter).

func.func @tensor_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'cf.br' a function of aicf has one block (no control flow), @tensor_level has 2}}
  cf.br ^bb1
^bb1:
  func.return %x : tensor<4xf32>
}

// -----

func.func @loop_level(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    aicf_loop.yield %a : f32
  }
  // expected-error @+1 {{'cf.br' a function of aicf has one block (no control flow), @loop_level has 2}}
  cf.br ^bb1
^bb1:
  func.return
}
