// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu}' -t c --verify-diagnostics --split-input-file

// A zero extent makes a tensor empty, but its strides are still products of the
// other extents: those must fit in int64 too (NumPy refuses such a shape, so no
// array could be passed in or allocated for it; aicf-run gave a raw ValueError).

// expected-error @+1 {{tensor<0x4611686018427387904xf32> is 18446744073709551616 bytes (nonzero extents), more than can be allocated}}
func.func @arg(%x: tensor<0x4611686018427387904xf32>) -> tensor<0xf32> {
  %o = aicf_tensor.reduce_sum %x axes = [1] : (tensor<0x4611686018427387904xf32>) -> tensor<0xf32>
  func.return %o : tensor<0xf32>
}

// -----

func.func @result(%x: tensor<0x1xf32>) -> tensor<0x9223372036854775807xf32> {
  // expected-error @+1 {{tensor<0x9223372036854775807xf32> is 36893488147419103228 bytes (nonzero extents)}}
  %o = aicf_tensor.broadcast_to %x shape = [0, 9223372036854775807] : (tensor<0x1xf32>) -> tensor<0x9223372036854775807xf32>
  func.return %o : tensor<0x9223372036854775807xf32>
}

// -----

// An empty tensor whose other extents are in range stays valid.
func.func @fine(%x: tensor<0x1024x1024xf32>) -> tensor<1024x1024xf32> {
  %o = aicf_tensor.reduce_sum %x axes = [0] : (tensor<0x1024x1024xf32>) -> tensor<1024x1024xf32>
  func.return %o : tensor<1024x1024xf32>
}
