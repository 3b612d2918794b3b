// RUN: aicf-opt %s -p aicf-lower-to-gpu --split-input-file | filecheck %s

// Softmax over long rows: ONE kernel for the whole group. A block per row; each
// thread loads its 16-byte vectors of the row once (registers) and every phase
// reuses them; each reduction is a warp reduce, one value per warp through its own
// 32 shared slots, a barrier, a second warp reduce. The row max and sum (group-local
// buffers) never reach memory: no allocation is left on the host.
// CHECK-LABEL: aicf_gpu.kernel @softmax_group0
// CHECK-SAME:    grid = [{{[0-9]+}}, 1, 1] block = [256, 1, 1]
// CHECK-SAME:    aicf.schedule = "gpu.row_group mode=block block=256 {{.*}} vec=4 rows=registers per=8
// CHECK-COUNT-2: aicf_gpu.alloc_shared : memref<32xf32, #aicf_gpu.address_space<shared>>
// CHECK-COUNT-8: aicf_gpu.load_vector %x
// CHECK-NOT:     aicf_gpu.load_vector
// CHECK:         aicf_gpu.warp_reduce max
// CHECK:         aicf_gpu.barrier
// CHECK:         aicf_gpu.warp_reduce max
// CHECK:         math.exp
// CHECK:         aicf_gpu.warp_reduce add
// CHECK:         aicf_gpu.barrier
// CHECK:         aicf_gpu.warp_reduce add
// CHECK:         arith.divf
// CHECK-COUNT-8: aicf_gpu.store_vector {{.*}}, %out0
// CHECK-NOT:     aicf_gpu.barrier
// CHECK:         aicf_gpu.return
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    aicf_gpu.launch @softmax_group0(%x, %out0)
// CHECK-NEXT:    func.return
func.func @softmax(%x: memref<512x8192xf32>, %out0: memref<512x8192xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [512] attributes {aicf.schedule = {kind = "gpu.row_group", mode = "block", block = 256 : i64, grid = 512 : i64, vec = 4 : i64, rows = "registers", per = 8 : i64, bps = 3 : i64, launch = "once", pipeline = 0 : i64, unroll = 4 : i64, est_ns = 16165 : i64}} {
    %0 = memref.alloc() : memref<512x1xf32>
    %1 = memref.alloc() : memref<512x1xf32>
    aicf_loop.nest domain = [512, 8192] iterators = [parallel, reduction]
      ins(%x : memref<512x8192xf32>) outs(%0 : memref<512x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)] combiners = [max] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [512, 8192] iterators = [parallel, reduction]
      ins(%x, %0 : memref<512x8192xf32>, memref<512x1xf32>) outs(%1 : memref<512x1xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0)] combiners = [add] {
    ^bb0(%a: f32, %m: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      aicf_loop.yield %e : f32
    }
    aicf_loop.nest domain = [512, 8192] iterators = [parallel, parallel]
      ins(%x, %0, %1 : memref<512x8192xf32>, memref<512x1xf32>, memref<512x1xf32>) outs(%out0 : memref<512x8192xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, 0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %s : f32
      aicf_loop.yield %q : f32
    }
    memref.dealloc %0 : memref<512x1xf32>
    memref.dealloc %1 : memref<512x1xf32>
  }
  func.return
}

// -----

// Short rows: a warp per row, no shared memory and no barrier; a reduction stored to
// a group output (the row sum, written by lane 0) is also read back by the next
// phase as a value; a per-row member (no row dims) computes the row's mean.
// CHECK-LABEL: aicf_gpu.kernel @short_group0
// CHECK-SAME:    aicf.schedule = "gpu.row_group mode=warp
// CHECK-NOT:     aicf_gpu.alloc_shared
// CHECK-NOT:     aicf_gpu.barrier
// CHECK:         aicf_gpu.load_vector %x
// CHECK:         %[[S:.*]] = aicf_gpu.warp_reduce add
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %[[S]], %sum
// CHECK:         arith.divf %[[S]]
// CHECK:         memref.store {{.*}}, %mean
// CHECK:         aicf_gpu.store_vector {{.*}}, %y
// CHECK-NOT:     aicf_gpu.barrier
// CHECK:         aicf_gpu.return
// CHECK-LABEL: func.func @short
// CHECK-NEXT:    aicf_gpu.launch @short_group0(%x, %sum, %mean, %y)
// CHECK-NEXT:    func.return
func.func @short(%x: memref<1024x64xf32>, %sum: memref<1024xf32>, %mean: memref<1024xf32>, %y: memref<1024x64xf32>) attributes {aicf.num_outputs = 3 : i64} {
  aicf_loop.group shared = [1024] attributes {aicf.schedule = {kind = "gpu.row_group", mode = "warp", block = 128 : i64, grid = 256 : i64, vec = 4 : i64, rows = "stream", per = 1 : i64, bps = 9 : i64, launch = "stride", pipeline = 0 : i64, unroll = 4 : i64, est_ns = 6270 : i64}} {
    aicf_loop.nest domain = [1024, 64] iterators = [parallel, reduction]
      ins(%x : memref<1024x64xf32>) outs(%sum : memref<1024xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [1024] iterators = [parallel]
      ins(%sum : memref<1024xf32>) outs(%mean : memref<1024xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
    ^bb0(%s: f32):
      %n = arith.constant 64.0 : f32
      %q = arith.divf %s, %n : f32
      aicf_loop.yield %q : f32
    }
    aicf_loop.nest domain = [1024, 64] iterators = [parallel, parallel]
      ins(%x, %sum : memref<1024x64xf32>, memref<1024xf32>) outs(%y : memref<1024x64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)] {
    ^bb0(%a: f32, %s: f32):
      %d = arith.subf %a, %s : f32
      aicf_loop.yield %d : f32
    }
  }
  func.return
}

// -----

// Rows not contiguous (a softmax over the first axis): the group runs as its member
// nests, one kernel each, the group-local buffers allocated on the host.
// CHECK-LABEL: aicf_gpu.kernel @column_nest0
// CHECK-LABEL: aicf_gpu.kernel @column_nest1
// CHECK-LABEL: func.func @column
// CHECK-NEXT:    %[[M:.*]] = memref.alloc() : memref<1x64xf32>
// CHECK-NEXT:    aicf_gpu.launch @column_nest0(%x, %[[M]])
// CHECK-NEXT:    aicf_gpu.launch @column_nest1(%x, %[[M]], %out0)
// CHECK-NEXT:    memref.dealloc %[[M]]
// CHECK-NEXT:    func.return
func.func @column(%x: memref<128x64xf32>, %out0: memref<128x64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.group shared = [64] attributes {aicf.schedule = {kind = "gpu.members", why = "rows are not contiguous in an operand memref<128x64xf32> (map (d0, d1) -> (d1, d0))"}} {
    %0 = memref.alloc() : memref<1x64xf32>
    aicf_loop.nest domain = [64, 128] iterators = [parallel, reduction]
      ins(%x : memref<128x64xf32>) outs(%0 : memref<1x64xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (0, d0)] combiners = [max] attrs = {aicf.schedule = {kind = "gpu.rows", vec = 1 : i64, mode = "warp", block = 256 : i64, grid = 8 : i64, split = 1 : i64, unroll = 4 : i64, minblocks = 4 : i64, est_ns = 5591 : i64}} {
    ^bb0(%a: f32):
      aicf_loop.yield %a : f32
    }
    aicf_loop.nest domain = [64, 128] iterators = [parallel, parallel]
      ins(%x, %0 : memref<128x64xf32>, memref<1x64xf32>) outs(%out0 : memref<128x64xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (0, d0), (d0, d1) -> (d1, d0)] attrs = {aicf.schedule = {kind = "gpu.per_output", vec = 1 : i64, block = 256 : i64, grid = 32 : i64, split = 1 : i64, unroll = 1 : i64, minblocks = 8 : i64, grid_kind = "stride", est_ns = 6223 : i64}} {
    ^bb0(%a: f32, %m: f32):
      %d = arith.subf %a, %m : f32
      aicf_loop.yield %d : f32
    }
    memref.dealloc %0 : memref<1x64xf32>
  }
  func.return
}
