// RUN: not aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops -t c 2>&1 | filecheck %s

// Shapes whose element count or byte size does not fit in int64 (what the code
// indexes and allocates with) are rejected where they appear, before any emission.

// The same at the loop level: the allocation size is checked too.
// CHECK: {{.*}}-overflow.mlir:[[# @LINE + 2]]:3: error: {{.*}}memref<2305843009213693952x2xf32> is 18446744073709551616 bytes
func.func @alloc() {
  %0 = memref.alloc() : memref<2305843009213693952x2xf32>
  func.return
}
