// RUN: aicf-opt %s --verify-diagnostics
// A symbol defined twice is an error at the second definition, naming the first
// (not at the implicit module, which has no location).

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// expected-error @+1 {{'func.func' redefinition of symbol @f (first defined at}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
