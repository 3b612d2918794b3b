// RUN: aicf-opt %s -p 'aicf-lower-to-gpu{target=a100}' --split-input-file | filecheck %s
// gpu.mma_sync: every thread copies A's and B's k-tiles with 16-byte cp.async into a
// ring of 3 swizzled shared buffers (two commit groups in the prologue); each
// iteration waits for its k-tile (wait_group 1), passes a barrier, issues the k-tile
// two ahead and multiplies: per 16 of k, 4 ldmatrix.x4 of A (64 rows of the warp), 4
// ldmatrix.x4.trans of B (stored K x N: 64 columns, two n8 blocks each), 32 mma.sync
// m16n8k16 into the 128 accumulators of a 64x64 warp tile; the fragments of the next
// 16 of k are loaded before these products (two buffers), so bk = 32 issues both
// steps' ldmatrix, then 64 mma.sync.

// CHECK-LABEL: aicf_gpu.kernel @mm_nest0
// CHECK-SAME:    grid = [8, 1, 1] block = [128, 1, 1] smem = 49152 bounds = [128, 1]
// CHECK-SAME:    gpu.mma_sync bm=128 bn=128 bk=32 wm=64 wn=64 stages=3
// CHECK-SAME:    aicf_gpu.fixed_layouts
// CHECK:         aicf_gpu.alloc_shared dynamic_offset = 0 : memref<24576xf16, #aicf_gpu.address_space<shared>>
// CHECK:         memref.alloca() : memref<128xf32>
// CHECK-NEXT:    memref.alloca() : memref<32xi32>
// CHECK-NEXT:    memref.alloca() : memref<32xi32>
// CHECK:         aicf_gpu.cp_async %a[{{.*}}] -> {{.*}} bytes = 16
// CHECK:         aicf_gpu.cp_async %b[{{.*}}] -> {{.*}} bytes = 16
// CHECK:         aicf_gpu.cp_async_commit
// CHECK:         aicf_gpu.cp_async_commit
// CHECK:         scf.for
// CHECK-NEXT:      aicf_gpu.cp_async_wait pending = 1
// CHECK-NEXT:      aicf_gpu.barrier
// CHECK:           scf.if
// CHECK:             aicf_gpu.cp_async %a
// CHECK:             aicf_gpu.cp_async %b
// CHECK:           aicf_gpu.cp_async_commit
// CHECK-COUNT-4:   aicf_gpu.ldmatrix {{.*}} -> %{{.*}}[%{{.*}}] {num = 4 : i64, trans = 0 : i64}
// CHECK-COUNT-4:   aicf_gpu.ldmatrix {{.*}} -> %{{.*}}[%{{.*}}] {num = 4 : i64, trans = 1 : i64}
// CHECK-COUNT-4:   aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 0 : i64}
// CHECK-COUNT-4:   aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 1 : i64}
// CHECK-COUNT-64:  aicf_gpu.mma_sync {{.*}} {kind = "f16"} : memref<128xf32>, memref<32xi32>, memref<32xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    aicf_gpu.cp_async_wait pending = 0
// CHECK:         aicf_gpu.store_vector {{.*}} : vector<2xf16>, memref<256x512xf16>
// CHECK:       func.func @mm
// CHECK:         aicf_gpu.launch @mm_nest0
func.func @mm(%a: memref<256x384xf16>, %b: memref<384x512xf16>, %out0: memref<256x512xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [256, 512, 384] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<256x384xf16>, memref<384x512xf16>) outs(%out0 : memref<256x512xf16>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.mma_sync", bm = 128, bn = 128, bk = 32, wm = 64, wn = 64, stages = 3}} {
  ^bb0(%x: f16, %y: f16):
    %1 = arith.extf %x : f16 to f32
    %2 = arith.extf %y : f16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}

// -----

// B stored N x K (x @ w.T), bf16, an f32 output, every edge partial (77 x 130 x 200):
// the copies are predicated on M/N and K (zero-filled past them), B's fragments come
// from plain ldmatrix (k contiguous), and the stores are guarded.
// CHECK-LABEL: aicf_gpu.kernel @mm_t_nest0
// CHECK-SAME:    grid = [6, 1, 1] block = [128, 1, 1]
// CHECK:         arith.cmpi ult
// CHECK:         arith.andi
// CHECK:         aicf_gpu.cp_async %a[{{.*}}] -> {{.*}} if %{{.*}} bytes = 16
// CHECK:         aicf_gpu.cp_async %b[{{.*}}] -> {{.*}} if %{{.*}} bytes = 16
// CHECK:         aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 0 : i64}
// CHECK:         aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 0 : i64}
// CHECK:         aicf_gpu.mma_sync {{.*}} {kind = "bf16"} : memref<32xf32>, memref<16xi32>, memref<16xi32>
// CHECK:         scf.if
// CHECK:           aicf_gpu.store_vector {{.*}} : vector<2xf32>, memref<77x130xf32>
func.func @mm_t(%a: memref<77x200xbf16>, %b: memref<130x200xbf16>, %out0: memref<77x130xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [77, 130, 200] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<77x200xbf16>, memref<130x200xbf16>) outs(%out0 : memref<77x130xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.mma_sync", bm = 64, bn = 64, bk = 64, wm = 32, wn = 32, stages = 2}} {
  ^bb0(%x: bf16, %y: bf16):
    %1 = arith.extf %x : bf16 to f32
    %2 = arith.extf %y : bf16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}

// -----

// A batch of 3 with B broadcast over it: the batch is blockIdx.z; A stored K x M
// (ldmatrix.trans for A too); B's rows of 17 elements take no cp.async (they are
// copied one element at a time through registers, zero past the edges).
// CHECK-LABEL: aicf_gpu.kernel @bmm_nest0
// CHECK-SAME:    grid = [1, 1, 3] block = [128, 1, 1]
// CHECK:         aicf_gpu.block_id z
// CHECK:         aicf_gpu.cp_async %a[{{.*}}] -> {{.*}} bytes = 16
// CHECK:         memref.load %b[{{.*}}] : memref<40x17xf16>
// CHECK:         aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 1 : i64}
// CHECK:         aicf_gpu.ldmatrix {{.*}} {num = 4 : i64, trans = 1 : i64}
// CHECK:         aicf_gpu.mma_sync
func.func @bmm(%a: memref<3x40x64xf16>, %b: memref<40x17xf16>, %out0: memref<3x64x17xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [3, 64, 17, 40] iterators = [parallel, parallel, parallel, reduction]
    ins(%a, %b : memref<3x40x64xf16>, memref<40x17xf16>) outs(%out0 : memref<3x64x17xf16>)
    maps = [(d0, d1, d2, d3) -> (d0, d3, d1), (d0, d1, d2, d3) -> (d3, d2), (d0, d1, d2, d3) -> (d0, d1, d2)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.mma_sync", bm = 64, bn = 64, bk = 32, wm = 32, wn = 32, stages = 2}} {
  ^bb0(%x: f16, %y: f16):
    %1 = arith.extf %x : f16 to f32
    %2 = arith.extf %y : f16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}
