// RUN: aicf-opt %s -p 'aicf-plan{target=h100}' --split-input-file --verify-diagnostics
// An attention that reaches the GPU planner but that the flash kernel does not take
// is an error naming why (the cuda pipeline decomposes such attentions first).

func.func @f32(%q: memref<16x64xf32>, %k: memref<16x64xf32>, %v: memref<16x64xf32>, %o: memref<16x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{'aicf_loop.attention' has no GPU schedule: the flash kernel takes f16 or bf16, not f32; lower it through aicf-decompose-attention}}
  aicf_loop.attention scale = 0.125 ins(%q, %k, %v : memref<16x64xf32>, memref<16x64xf32>, memref<16x64xf32>) outs(%o : memref<16x64xf32>)
  func.return
}

// -----

func.func @head_dim(%q: memref<16x96xf16>, %k: memref<16x96xf16>, %v: memref<16x96xf16>, %o: memref<16x96xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{the flash kernel takes head dims 64 or 128 (D = Dv), not 96, 96}}
  aicf_loop.attention scale = 0.125 ins(%q, %k, %v : memref<16x96xf16>, memref<16x96xf16>, memref<16x96xf16>) outs(%o : memref<16x96xf16>)
  func.return
}

// -----

func.func @k_transposed(%q: memref<16x64xf16>, %kt: memref<64x16xf16>, %v: memref<16x64xf16>, %o: memref<16x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{K's head dim is not its stored last axis}}
  aicf_loop.attention scale = 0.125 k_perm = [1, 0] ins(%q, %kt, %v : memref<16x64xf16>, memref<64x16xf16>, memref<16x64xf16>) outs(%o : memref<16x64xf16>)
  func.return
}

// -----

func.func @misaligned(%q: memref<16x64xf16, strided<[68, 1]>>, %k: memref<16x64xf16>, %v: memref<16x64xf16>, %o: memref<16x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{Q's strides [0, 0, 68] or offset 0 are not multiples of 8 elements}}
  aicf_loop.attention scale = 0.125 ins(%q, %k, %v : memref<16x64xf16, strided<[68, 1]>>, memref<16x64xf16>, memref<16x64xf16>) outs(%o : memref<16x64xf16>)
  func.return
}

// -----

func.func @batch(%q: memref<70000x1x64xf16>, %o: memref<70000x1x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{70000 batch entries are more than a grid's y dimension holds (65535)}}
  aicf_loop.attention scale = 0.125 ins(%q, %q, %q : memref<70000x1x64xf16>, memref<70000x1x64xf16>, memref<70000x1x64xf16>) outs(%o : memref<70000x1x64xf16>)
  func.return
}

// -----

func.func @long_sequence(%q: memref<2147483648x64xf16>, %k: memref<16x64xf16>, %v: memref<16x64xf16>, %o: memref<2147483648x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  // expected-error @+1 {{sequence lengths 2147483648, 16 pass 2^31}}
  aicf_loop.attention scale = 0.125 ins(%q, %k, %v : memref<2147483648x64xf16>, memref<16x64xf16>, memref<16x64xf16>) outs(%o : memref<2147483648x64xf16>)
  func.return
}
