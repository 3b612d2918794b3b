// RUN: aicf-opt --verify-diagnostics --split-input-file %s
// aicf_gpu.library_call checks the call's parameters against its operands: the
// routine is known, every parameter is there with its type, leading dimensions are
// legal for cuBLAS, the element types are a combination cuBLAS computes, and no
// operand is read or written past its memref.

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' unknown library routine 'cublas.gemv' (known: aicf.flash_attention, cub.reduce, cublas.gemm, external)}}
  aicf_gpu.library_call "cublas.gemv" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'ldb' must be an integer}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' params a = 0, b = 0 must name the two inputs (0 and 1)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 0 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' lda = 16 must be >= max(1, 32) and < 2^31}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' lda = 16 must be >= max(1, 64) and < 2^31}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 1 : i64, trans_b = 0 : i64, lda = 16 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' trans_a and trans_b must be 0 or 1}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 2 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'compute' must be "f32" or "tf32"}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f16"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf16>, %b: memref<32x16xf16>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' compute = "tf32" applies to f32 inputs only}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf16>, memref<32x16xf16>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f32", compute = "tf32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'dtype' must be "f32" (the operands' type)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf16>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' cublas.gemm takes A and B of one type of f32, f16, bf16 and C of that type or f32, got f16, f32, f32}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf16>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' cublas.gemm takes A and B of one type of f32, f16, bf16 and C of that type or f32, got f32, f32, f16}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf16>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' operand A reaches element 2079, past its memref memref<64x32xf32> (last element 2047)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 32 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' operand C reaches element 2031, past its memref memref<64x16xf32> (last element 1023)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 32 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<2x64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' operand B reaches element 1023, past its memref memref<32x16xf32> (last element 511)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<2x64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 2 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 512 : i64, stride_c = 1024 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' C would be written by several batches (a zero batch stride of C)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 2 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' loops and loop_stride_a/b/c must have one entry per outer batch loop}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32", loops = array<i64: 2>, loop_stride_a = array<i64: 0>}
  func.return
}

// -----

func.func @f(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' m = -1, n = 16, k = 32, batch = 1: each must be in [0, 2^31)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) params = {a = 0 : i64, b = 1 : i64, m = -1 : i64, n = 16 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 16 : i64, ldc = 16 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f32", out_dtype = "f32", compute = "f32"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'op' must be "sum" or "max"}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) params = {op = "mean", reduce_dims = 1 : i64, rows = 4 : i64, cols = 8 : i64, dtype = "f32", out_dtype = "f32"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' rows = 4, cols = 4 must be the input's 4 x 8 and the output's 4 elements}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 4 : i64, dtype = "f32", out_dtype = "f32"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' reduce_dims = 3 must be in 1..2 (the input's rank)}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) params = {op = "sum", reduce_dims = 3 : i64, rows = 4 : i64, cols = 8 : i64, dtype = "f32", out_dtype = "f32"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xbf16>, %y: memref<4xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'dtype' must name the operand's type, one of f32, f16 (got bf16)}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xbf16>) outs(%y : memref<4xf32>) params = {op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 8 : i64, dtype = "bf16", out_dtype = "f32"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xf32>, %y: memref<4xf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' cub.reduce writes the input's type (f32) or f32, not f16}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xf32>) outs(%y : memref<4xf16>) params = {op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 8 : i64, dtype = "f32", out_dtype = "f16"}
  func.return
}

// -----

func.func @f(%x: memref<4x8xf32>, %y: memref<4xf32, strided<[2]>>) {
  // expected-error @+1 {{'aicf_gpu.library_call' cub.reduce writes a dense row-major output}}
  aicf_gpu.library_call "cub.reduce" ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32, strided<[2]>>) params = {op = "sum", reduce_dims = 1 : i64, rows = 4 : i64, cols = 8 : i64, dtype = "f32", out_dtype = "f32"}
  func.return
}

// -----

// pad_c: the scratch must be the second output, m x pad_c of C's type
func.func @pad_c_without_scratch(%a: memref<64x32xf16>, %b: memref<32x33xf16>, %c: memref<64x33xf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' cublas.gemm takes 2 inputs (A, B) and 1 output (C), and with pad_c a second output (the padded scratch C)}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf16>, memref<32x33xf16>) outs(%c : memref<64x33xf16>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 33 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 33 : i64, ldc = 33 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f16", compute = "f32", pad_c = 40 : i64}
  func.return
}

// -----

func.func @pad_c_short_scratch(%a: memref<64x32xf16>, %b: memref<32x33xf16>, %c: memref<64x33xf16>, %s: memref<64x32xf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' pad_c = 32 needs one call (batch 1, no loops), pad_c >= n = 33, and a second output memref<64x32xf16>, got batch 1, loops [], memref<64x32xf16>}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf16>, memref<32x33xf16>) outs(%c, %s : memref<64x33xf16>, memref<64x32xf16>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 33 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 33 : i64, ldc = 33 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f16", compute = "f32", pad_c = 32 : i64}
  func.return
}

// -----

func.func @pad_c_wrong_type(%a: memref<64x32xf16>, %b: memref<32x33xf16>, %c: memref<64x33xf16>, %s: memref<64x40xf32>) {
  // expected-error @+1 {{'aicf_gpu.library_call' pad_c = 40 needs one call (batch 1, no loops), pad_c >= n = 33, and a second output memref<64x40xf16>, got batch 1, loops [], memref<64x40xf32>}}
  aicf_gpu.library_call "cublas.gemm" ins(%a, %b : memref<64x32xf16>, memref<32x33xf16>) outs(%c, %s : memref<64x33xf16>, memref<64x40xf32>) params = {a = 0 : i64, b = 1 : i64, m = 64 : i64, n = 33 : i64, k = 32 : i64, batch = 1 : i64, trans_a = 0 : i64, trans_b = 0 : i64, lda = 32 : i64, ldb = 33 : i64, ldc = 33 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_c = 0 : i64, dtype = "f16", out_dtype = "f16", compute = "f32", pad_c = 40 : i64}
  func.return
}

// -----

func.func @f(%q: memref<4x16x128xbf16>, %k: memref<32x128xbf16>, %v: memref<1x32x128xbf16>, %o: memref<4x16x128xbf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' param 'mma' must be "mma_sync" or "wgmma"}}
  aicf_gpu.library_call "aicf.flash_attention" ins(%q, %k, %v : memref<4x16x128xbf16>, memref<32x128xbf16>, memref<1x32x128xbf16>) outs(%o : memref<4x16x128xbf16>) params = {head_dim = 128 : i64, block_m = 128 : i64, block_n = 128 : i64, causal = 0 : i64, dtype = "bf16", sq = 16 : i64, sk = 32 : i64, b0 = 1 : i64, b1 = 4 : i64, scale = "0.08838834764831845", mma = "tcgen05", q_strides = array<i64: 0, 2048, 128>, q_offset = 0 : i64, k_strides = array<i64: 0, 0, 128>, k_offset = 0 : i64, v_strides = array<i64: 0, 0, 128>, v_offset = 0 : i64, o_strides = array<i64: 0, 2048, 128>, o_offset = 0 : i64}
  func.return
}

// -----

func.func @f(%q: memref<4x16x128xbf16>, %k: memref<32x128xbf16>, %v: memref<1x32x128xbf16>, %o: memref<4x16x128xbf16>) {
  // expected-error @+1 {{'aicf_gpu.library_call' the wgmma flash kernel takes 128 x 128 tiles (block_m = block_n = 128)}}
  aicf_gpu.library_call "aicf.flash_attention" ins(%q, %k, %v : memref<4x16x128xbf16>, memref<32x128xbf16>, memref<1x32x128xbf16>) outs(%o : memref<4x16x128xbf16>) params = {head_dim = 128 : i64, block_m = 64 : i64, block_n = 64 : i64, causal = 0 : i64, dtype = "bf16", sq = 16 : i64, sk = 32 : i64, b0 = 1 : i64, b1 = 4 : i64, scale = "0.08838834764831845", mma = "wgmma", q_strides = array<i64: 0, 2048, 128>, q_offset = 0 : i64, k_strides = array<i64: 0, 0, 128>, k_offset = 0 : i64, v_strides = array<i64: 0, 0, 128>, v_offset = 0 : i64, o_strides = array<i64: 0, 2048, 128>, o_offset = 0 : i64}
  func.return
}
