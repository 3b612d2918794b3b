// RUN: aicf-opt %s --split-input-file -p aicf-lower-to-gpu | filecheck %s
// The gpu.transpose_tiled builder follows a hand-written schedule: a tile_o x tile_i
// shared tile with the schedule's layout, phase-1 loads along the input's contiguous
// dim, one barrier, phase-2 column reads and stores along the output's contiguous dim.

// 64x64 tiles of a 128x256 transpose, 256 threads, 4-vectors both ways, swizzled:
// tile multiples, so no edge guard; grid (256/64, 128/64).
// CHECK-LABEL: aicf_gpu.kernel @vec_nest0
// CHECK-SAME: grid = [4, 2, 1] block = [256, 1, 1]
// CHECK: aicf_gpu.alloc_shared : memref<64x64xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
// CHECK-NOT: scf.if
// CHECK-COUNT-4: aicf_gpu.load_vector %x{{.*}} : memref<256x128xf32> -> vector<4xf32>
// CHECK: aicf_gpu.barrier
// CHECK-COUNT-4: memref.load
// CHECK: arith.negf
// CHECK: aicf_gpu.store_vector %{{.*}} : vector<4xf32>, memref<128x256xf32>
// CHECK-LABEL: func.func @vec
// CHECK: aicf_gpu.launch @vec_nest0(%x, %y)
func.func @vec(%x: memref<256x128xf32>, %y: memref<128x256xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [128, 256] iterators = [parallel, parallel]
      ins(%x : memref<256x128xf32>) outs(%y : memref<128x256xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 64 : i64, tile_o = 64 : i64, threads = 256 : i64, vec_in = 4 : i64, vec_out = 4 : i64, smem = "swizzle"}} {
  ^bb0(%v: f32):
    %n = arith.negf %v : f32
    aicf_loop.yield %n : f32
  }
  func.return
}

// -----

// 1000x37 -> 37x1000 in 32x32 tiles (32-bit indices), padded by one element: edges guarded (both
// dims are not tile multiples); y (already in the output's order) is read in place.
// CHECK-LABEL: aicf_gpu.kernel @odd_nest0
// CHECK-SAME: grid = [32, 2, 1] block = [256, 1, 1] smem = 0 bounds = [256, 1] index = 32
// CHECK: aicf_gpu.alloc_shared : memref<32x32xf32, #aicf_gpu.padded<interval = 32, pad = 1>, #aicf_gpu.address_space<shared>>
// CHECK: scf.if
// CHECK: memref.load %x
// CHECK: memref.store
// CHECK: aicf_gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<32x32xf32, #aicf_gpu.padded
// CHECK: memref.load %b
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %y
func.func @odd(%x: memref<1000x37xf32>, %b: memref<37x1000xf32>, %y: memref<37x1000xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [37, 1000] iterators = [parallel, parallel]
      ins(%x, %b : memref<1000x37xf32>, memref<37x1000xf32>) outs(%y : memref<37x1000xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 256 : i64, vec_in = 1 : i64, vec_out = 1 : i64, smem = "padded"}} {
  ^bb0(%v: f32, %w: f32):
    %s = arith.addf %v, %w : f32
    aicf_loop.yield %s : f32
  }
  func.return
}

// -----

// Batched [4, 96, 64] -> [4, 64, 96]: the batch entry is blockIdx.z.
// CHECK-LABEL: aicf_gpu.kernel @batched_nest0
// CHECK-SAME: grid = [3, 2, 4]
// CHECK: aicf_gpu.block_id z
// CHECK: aicf_gpu.alloc_shared : memref<32x32xf16, #aicf_gpu.padded<interval = 32, pad = 2>, #aicf_gpu.address_space<shared>>
// CHECK: aicf_gpu.load_vector %x{{.*}} : memref<4x96x64xf16> -> vector<2xf16>
// CHECK: aicf_gpu.store_vector %{{.*}} : vector<2xf16>, memref<4x64x96xf16>
func.func @batched(%x: memref<4x96x64xf16>, %y: memref<4x64x96xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4, 64, 96] iterators = [parallel, parallel, parallel]
      ins(%x : memref<4x96x64xf16>) outs(%y : memref<4x64x96xf16>)
      maps = [(d0, d1, d2) -> (d0, d2, d1), (d0, d1, d2) -> (d0, d1, d2)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 128 : i64, vec_in = 2 : i64, vec_out = 2 : i64, smem = "padded"}} {
  ^bb0(%v: f16):
    aicf_loop.yield %v : f16
  }
  func.return
}

// -----

// 65536 x 32769 elements (> 2^31): 64-bit index arithmetic.
// CHECK-LABEL: aicf_gpu.kernel @wide_nest0
// CHECK-SAME: index = 64
func.func @wide(%x: memref<65536x32769xf32>, %y: memref<32769x65536xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [32769, 65536] iterators = [parallel, parallel]
      ins(%x : memref<65536x32769xf32>) outs(%y : memref<32769x65536xf32>)
      maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] attrs = {aicf.schedule = {kind = "gpu.transpose_tiled", tile_i = 32 : i64, tile_o = 32 : i64, threads = 256 : i64, vec_in = 1 : i64, vec_out = 1 : i64, smem = "padded"}} {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}
