// RUN: not aicf-opt %s -p aicf-lower-smem-layouts 2>&1 | filecheck %s
// An op that takes a laid-out shared buffer whole (not a load or store of one
// element or vector) has no flat form: the pass names it instead of leaving a layout
// the emitter cannot print.

// CHECK: error: 'memref.dealloc' uses the shared buffer memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>> whole: aicf-lower-smem-layouts lowers only its loads and stores
// CHECK-NOT: Traceback
aicf_gpu.kernel @whole(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  memref.dealloc %s : memref<8x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
