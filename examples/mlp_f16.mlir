// A linear layer with its bias and GELU in f16: on the cuda target one tensor-core
// kernel applies the bias and the GELU to the accumulators (docs/architecture.md,
// "Matmul on the tensor cores").
func.func @mlp(%x: tensor<128x512xf16>, %w: tensor<512x1024xf16>, %b: tensor<1024xf16>) -> tensor<128x1024xf16> {
  %0 = aicf_tensor.matmul %x, %w : (tensor<128x512xf16>, tensor<512x1024xf16>) -> tensor<128x1024xf16>
  %1 = aicf_tensor.add %0, %b : (tensor<128x1024xf16>, tensor<1024xf16>) -> tensor<128x1024xf16>
  %2 = aicf_tensor.gelu %1 approximate = "none" : (tensor<128x1024xf16>) -> tensor<128x1024xf16>
  func.return %2 : tensor<128x1024xf16>
}
