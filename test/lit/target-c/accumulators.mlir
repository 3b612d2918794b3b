// RUN: aicf-opt %s -t c --split-input-file | filecheck %s
// The C emitter accumulates in the type the schedule names (`acc`), and in the
// output's own type without one: it decides nothing itself.

// CHECK-LABEL: int aicf_f32_acc
// CHECK: float acc0 = 0;
// CHECK: acc0 = acc0 + (float)
func.func @f32_acc(%a: memref<8x16xf32>, %s: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64}} {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

// CHECK-LABEL: int aicf_f64_acc
// CHECK: double acc0 = 0;
// CHECK: acc0 = acc0 + (double)
// CHECK: = (float)acc0;
func.func @f64_acc(%a: memref<8x16xf32>, %s: memref<8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f64"}} {
  ^bb0(%x: f32):
    aicf_loop.yield %x : f32
  }
  func.return
}

// -----

// A double accumulator stored into bf16 rounds once (through float it rounded twice).
// CHECK-LABEL: int aicf_f64_acc_bf16
// CHECK: double acc0 = 0;
// CHECK: = aicf_f64_to_bf16(acc0);
func.func @f64_acc_bf16(%a: memref<8x16xbf16>, %s: memref<8xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 16] iterators = [parallel, reduction]
      ins(%a : memref<8x16xbf16>) outs(%s : memref<8xbf16>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.nest", parallel = 0 : i64, acc = "f64"}} {
  ^bb0(%x: bf16):
    aicf_loop.yield %x : bf16
  }
  func.return
}
