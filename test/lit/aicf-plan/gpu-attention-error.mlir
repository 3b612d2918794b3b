// RUN: aicf-opt %s -p 'aicf-plan{target=h100}' --verify-diagnostics
// A GPU has no attention schedule yet (the cuda pipeline decomposes the op at the
// tensor level, aicf-decompose-attention): planning one for it is an error at the op.

func.func @f(%q: memref<8x64xf16>, %o: memref<8x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.attention' has no GPU schedule yet: the cuda pipeline lowers attention through aicf-decompose-attention (batched matmul, softmax row group, batched matmul) before aicf-lower-to-loops}}
  aicf_loop.attention scale = 0.125 causal ins(%q, %q, %q : memref<8x64xf16>, memref<8x64xf16>, memref<8x64xf16>) outs(%o : memref<8x64xf16>)
  func.return
}
