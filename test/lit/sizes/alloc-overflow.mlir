// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t c --verify-diagnostics

// Shapes whose element count or byte size does not fit in int64 (what the code
// indexes and allocates with) are rejected where they appear, before any emission.

// The same at the loop level: the allocation size is checked too.
// expected-error @+2 {{memref<2305843009213693952x2xf32> is 18446744073709551616 bytes}}
func.func @alloc() {
  %0 = memref.alloc() : memref<2305843009213693952x2xf32>
  func.return
}
