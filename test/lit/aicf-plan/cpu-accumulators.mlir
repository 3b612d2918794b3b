// RUN: aicf-opt %s -p 'aicf-plan{target=cpu cores=1}' --split-input-file | filecheck %s
// The planner, not the C emitter, chooses a reduction's accumulator type and writes it
// in the cpu.nest schedule: float sums in f64, integer sums in i64, max and min in the
// output's own type (bf16, a storage type in C, in f32); elementwise nests have none.

// CHECK-LABEL: func.func @sums
// CHECK: combiners = [add, add] attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f64,i64", est_ns = {{[0-9]+}} : i64}}
func.func @sums(%a: memref<8x16xf32>, %b: memref<8x16xi32>, %s: memref<8xf32>, %t: memref<8xi32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a, %b : memref<8x16xf32>, memref<8x16xi32>) outs(%s, %t : memref<8xf32>, memref<8xi32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0)] combiners = [add, add] {
  ^bb0(%x: f32, %y: i32):
    aicf_loop.yield %x, %y : f32, i32
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @max_bf16
// CHECK: acc = "f32"
func.func @max_bf16(%a: memref<8x16xbf16>, %m: memref<8xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xbf16>) outs(%m : memref<8xbf16>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {
  ^bb0(%x: bf16):
    aicf_loop.yield %x : bf16
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK: aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, est_ns = {{[0-9]+}} : i64}
func.func @elementwise(%a: memref<8xf32>, %b: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}
