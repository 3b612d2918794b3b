// RUN: aicf-opt %s --split-input-file -p 'aicf-plan{target=h100 explain=true}' 2>&1 >/dev/null | filecheck %s
// A program that is one op runs without a CUDA graph, so its calls are bound by their
// host time where the GPU's work is shorter: a cuBLAS call (step loop, ctypes) is
// priced at no less than GpuTarget.host_library_call_s, and a 1000^3 f16 matmul takes
// the tensor-core kernel. With a second nest in the program, nothing is floored.

// CHECK-LABEL: @alone nest #0
// CHECK:         -> gpu.wgmma
// CHECK:         gpu.cublas_gemm         48.00 us {{.*}}host-bound alone in its program: 48 us a call
func.func @alone(%a: memref<1000x1000xf16>, %b: memref<1000x1000xf16>, %c: memref<1000x1000xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [1000, 1000, 1000] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<1000x1000xf16>, memref<1000x1000xf16>) outs(%c : memref<1000x1000xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
    ^bb0(%x: f16, %w: f16):
      %xf = arith.extf %x : f16 to f32
      %wf = arith.extf %w : f16 to f32
      %p = arith.mulf %xf, %wf : f32
      aicf_loop.yield %p : f32
  }
  func.return
}

// -----

// CHECK-LABEL: @with_another nest #0
// CHECK-NOT:     host-bound
// CHECK:       @with_another nest #1
func.func @with_another(%a: memref<1000x1000xf16>, %b: memref<1000x1000xf16>, %c: memref<1000x1000xf16>, %d: memref<1000x1000xf16>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [1000, 1000, 1000] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<1000x1000xf16>, memref<1000x1000xf16>) outs(%c : memref<1000x1000xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
    ^bb0(%x: f16, %w: f16):
      %xf = arith.extf %x : f16 to f32
      %wf = arith.extf %w : f16 to f32
      %p = arith.mulf %xf, %wf : f32
      aicf_loop.yield %p : f32
  }
  aicf_loop.nest domain = [1000, 1000] iterators = [parallel, parallel]
      ins(%a : memref<1000x1000xf16>) outs(%d : memref<1000x1000xf16>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
    ^bb0(%x: f16):
      %n = arith.negf %x : f16
      aicf_loop.yield %n : f16
  }
  func.return
}
