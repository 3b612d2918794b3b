// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops --verify-diagnostics
// aicf's functions are straight-line code: a branch to another block is an error at
// the branch.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'cf.br' cannot be lowered to loops: a function of aicf has one block (no control flow), @f has 2}}
  cf.br ^bb1
^bb1:
  func.return %x : tensor<4xf32>
}
