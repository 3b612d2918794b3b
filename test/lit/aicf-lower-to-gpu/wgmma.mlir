// RUN: aicf-opt %s -p 'aicf-lower-to-gpu{target=h100}' --split-input-file | filecheck %s
// gpu.wgmma: a producer warpgroup (setmaxnreg.dec) copies A's 128x64 box and B's
// 64-column boxes with bulk tensor copies after announcing the stage's bytes; the
// consumers (setmaxnreg.inc) wait for the stage, issue bk/16 = 4 wgmma on it, keep one
// group in flight and release the previous stage; persistent: the block walks tiles
// pid, pid + grid, ... .

// CHECK-LABEL: aicf_gpu.kernel @mm_nest0
// CHECK-SAME:    grid = [6, 1, 1] block = [384, 1, 1] smem = 196672 bounds = [384, 1]
// CHECK-SAME:    gpu.wgmma bm=128 bn=256 bk=64 stages=4 grid=6
// CHECK-SAME:    aicf_gpu.fixed_layouts
// CHECK:         aicf_gpu.alloc_shared dynamic_offset = 0 : memref<98304xf16, #aicf_gpu.address_space<shared>>
// CHECK:         aicf_gpu.alloc_shared dynamic_offset = 196608 : memref<8xi64, #aicf_gpu.address_space<shared>>
// CHECK:         aicf_gpu.mbarrier_init {{.*}} count = 1
// CHECK:         aicf_gpu.mbarrier_init {{.*}} count = 2
// CHECK:         aicf_gpu.mbarrier_init_fence
// CHECK:         aicf_gpu.barrier
// CHECK:         aicf_gpu.setmaxnreg "dec" 40
// CHECK:         scf.for
// CHECK:         aicf_gpu.mbarrier_wait
// CHECK:         aicf_gpu.mbarrier_arrive {{.*}} tx = 49152
// CHECK:         aicf_gpu.tma_load %a[{{.*}}] -> {{.*}} {dims = array<i64: 1, 0>, box = array<i64: 64, 128>}
// CHECK-COUNT-4: aicf_gpu.tma_load %b[{{.*}}] -> {{.*}} {dims = array<i64: 1, 0>, box = array<i64: 64, 64>}
// CHECK:         } else {
// CHECK:         aicf_gpu.setmaxnreg "inc" 232
// CHECK:         memref.alloca() : memref<128xf32>
// CHECK:         aicf_gpu.mbarrier_wait
// CHECK:         aicf_gpu.wgmma_fence
// CHECK-COUNT-4: aicf_gpu.wgmma {{.*}} {n = 256 : i64, a_major = "k", b_major = "mn", a_strides = array<i64: 16, 1024>, b_strides = array<i64: 8192, 1024>}
// CHECK-NEXT:    aicf_gpu.wgmma_commit
// CHECK-NEXT:    aicf_gpu.wgmma_wait pending = 1
// CHECK:         aicf_gpu.mbarrier_arrive
// CHECK:         aicf_gpu.wgmma_wait pending = 0
// CHECK:         aicf_gpu.store_vector {{.*}} : vector<2xf16>, memref<512x1536xf16>
func.func @mm(%a: memref<512x512xf16>, %b: memref<512x1536xf16>, %out0: memref<512x1536xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [512, 1536, 512] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<512x512xf16>, memref<512x1536xf16>) outs(%out0 : memref<512x1536xf16>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.wgmma", bm = 128, bn = 256, bk = 64, stages = 4, grid = 6}} {
  ^bb0(%x: f16, %y: f16):
    %1 = arith.extf %x : f16 to f32
    %2 = arith.extf %y : f16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}

// -----

// B stored N x K (x @ w.T): one k-major box per operand, both descriptors k-major.
// CHECK-LABEL: aicf_gpu.kernel @mm_t_nest0
// CHECK:         aicf_gpu.tma_load %b[{{.*}}] -> {{.*}} {dims = array<i64: 1, 0>, box = array<i64: 64, 128>}
// CHECK:         aicf_gpu.wgmma {{.*}} {n = 128 : i64, a_major = "k", b_major = "k", a_strides = array<i64: 16, 1024>, b_strides = array<i64: 16, 1024>}
func.func @mm_t(%a: memref<256x512xbf16>, %b: memref<384x512xbf16>, %out0: memref<256x384xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [256, 384, 512] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<256x512xbf16>, memref<384x512xbf16>) outs(%out0 : memref<256x384xf32>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.wgmma", bm = 128, bn = 128, bk = 64, stages = 3}} {
  ^bb0(%x: bf16, %y: bf16):
    %1 = arith.extf %x : bf16 to f32
    %2 = arith.extf %y : bf16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}

// -----

// A matmul + bias + gelu group: one kernel; the intermediate is never stored (it is
// not a kernel parameter); the epilogue rounds the accumulator to f16 (as storing it
// would), adds the bias read at the column, applies erf, stores the result.
// CHECK-LABEL: aicf_gpu.kernel @mlp_group0(%x : memref<256x512xf16>, %w : memref<512x1024xf16>, %b : memref<1024xf16>, %out0 : memref<256x1024xf16>)
// CHECK:         aicf_gpu.wgmma
// CHECK:         arith.truncf {{.*}} : f32 to f16
// CHECK:         memref.load %b[{{.*}}] : memref<1024xf16>
// CHECK:         math.erf
// CHECK:         aicf_gpu.store_vector {{.*}}, %out0
// CHECK:       func.func @mlp
// CHECK-NEXT:    aicf_gpu.launch @mlp_group0(%x, %w, %b, %out0)
// CHECK-NEXT:    func.return
func.func @mlp(%x: memref<256x512xf16>, %w: memref<512x1024xf16>, %b: memref<1024xf16>, %out0: memref<256x1024xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [256, 1024] attributes {aicf.schedule = {kind = "gpu.wgmma_epilogue", bm = 128, bn = 128, bk = 64, stages = 4}} {
    %0 = memref.alloc() : memref<256x1024xf16>
    aicf_loop.nest domain = [256, 1024, 512] iterators = [parallel, parallel, reduction]
      ins(%x, %w : memref<256x512xf16>, memref<512x1024xf16>) outs(%0 : memref<256x1024xf16>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
    ^bb0(%1: f16, %2: f16):
      %3 = arith.extf %1 : f16 to f32
      %4 = arith.extf %2 : f16 to f32
      %5 = arith.mulf %3, %4 : f32
      aicf_loop.yield %5 : f32
    }
    aicf_loop.nest domain = [256, 1024] iterators = [parallel, parallel]
      ins(%0, %b : memref<256x1024xf16>, memref<1024xf16>) outs(%out0 : memref<256x1024xf16>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0, d1)] {
    ^bb0(%6: f16, %7: f16):
      %8 = arith.extf %6 : f16 to f32
      %9 = arith.extf %7 : f16 to f32
      %10 = arith.addf %8, %9 : f32
      %15 = math.erf %10 : f32
      %21 = arith.truncf %15 : f32 to f16
      aicf_loop.yield %21 : f16
    }
    memref.dealloc %0 : memref<256x1024xf16>
  }
  func.return
}

// -----

// store = "smem": C's rows are odd (N = 1001), so column pairs cannot be stored; each
// consumer stages 32 columns of its 64 rows in shared memory (f32, rows 40 apart, after
// the ring and the mbarriers), syncs its own 128 threads on a named barrier, and each
// warp stores 16 rows one element a lane, guarded at the edges.
// CHECK-LABEL: aicf_gpu.kernel @odd_nest0
// CHECK-SAME:    smem = 217152
// CHECK:         aicf_gpu.alloc_shared dynamic_offset = 196672 : memref<5120xf32, #aicf_gpu.address_space<shared>>
// CHECK:         aicf_gpu.wgmma_wait pending = 0
// CHECK:         aicf_gpu.store_vector {{.*}} : vector<2xf32>, memref<5120xf32, #aicf_gpu.address_space<shared>>
// CHECK:         aicf_gpu.named_barrier id = 1 : i64, threads = 128 : i64
// CHECK:         aicf_gpu.named_barrier id = 2 : i64, threads = 128 : i64
// CHECK:         scf.for
// CHECK:         memref.load {{.*}} : memref<5120xf32, #aicf_gpu.address_space<shared>>
// CHECK:         scf.if
// CHECK:         arith.truncf {{.*}} : f32 to f16
// CHECK:         memref.store {{.*}} : memref<300x1001xf16>
// CHECK-NOT:     aicf_gpu.store_vector {{.*}} memref<300x1001xf16>
func.func @odd(%a: memref<300x512xf16>, %b: memref<1001x512xf16>, %out0: memref<300x1001xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [300, 1001, 512] iterators = [parallel, parallel, reduction]
    ins(%a, %b : memref<300x512xf16>, memref<1001x512xf16>) outs(%out0 : memref<300x1001xf16>)
    maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d1)]
    combiners = [add] attrs = {aicf.schedule = {kind = "gpu.wgmma", bm = 128, bn = 256, bk = 64, stages = 4, store = "smem"}} {
  ^bb0(%x: f16, %y: f16):
    %1 = arith.extf %x : f16 to f32
    %2 = arith.extf %y : f16 to f32
    %3 = arith.mulf %1, %2 : f32
    aicf_loop.yield %3 : f32
  }
  func.return
}
