// RUN: aicf-opt %s -p 'aicf-plan{target=a100},aicf-lower-to-gpu{target=a100}' --split-input-file | filecheck %s
// RUN: aicf-opt %s -p 'aicf-plan{target=h100},aicf-lower-to-gpu{target=h100}' --split-input-file | filecheck %s --check-prefix=HOPPER
// An aicf_loop.attention the flash kernel takes is planned gpu.flash_attention and
// becomes one aicf_gpu.library_call "aicf.flash_attention": the operands' strides over
// [b0, b1, S] as the op reads them (Q, K and V through their perms), the output's,
// the extents, the tiles, the causal flag and the scale. On sm_80 that is the mma.sync
// kernel (64 x 64 tiles, no `mma` param); on Hopper the wgmma one (128 x 128 tiles).

// CHECK-LABEL: func.func @bshd
// CHECK-NOT:   aicf_loop.attention
// CHECK:       aicf_gpu.library_call "aicf.flash_attention" ins(%q, %k, %v : memref<2x100x12x64xf16>, memref<2x77x12x64xf16>, memref<2x77x12x64xf16>) outs(%o : memref<2x12x100x64xf16>)
// CHECK-SAME:  head_dim = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, causal = 1 : i64, dtype = "f16", sq = 100 : i64, sk = 77 : i64, b0 = 2 : i64, b1 = 12 : i64, scale = "0.125"
// CHECK-SAME:  q_strides = array<i64: 76800, 64, 768>, q_offset = 0 : i64, k_strides = array<i64: 59136, 64, 768>, k_offset = 0 : i64, v_strides = array<i64: 59136, 64, 768>, v_offset = 0 : i64, o_strides = array<i64: 76800, 6400, 64>, o_offset = 0 : i64
// CHECK-NEXT:  func.return
// HOPPER-LABEL: func.func @bshd
// HOPPER:       aicf_gpu.library_call "aicf.flash_attention"
// HOPPER-SAME:  head_dim = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, causal = 1 : i64, dtype = "f16", sq = 100 : i64, sk = 77 : i64, b0 = 2 : i64, b1 = 12 : i64, scale = "0.125", mma = "wgmma"
// HOPPER-SAME:  q_strides = array<i64: 76800, 64, 768>
func.func @bshd(%q: memref<2x100x12x64xf16>, %k: memref<2x77x12x64xf16>, %v: memref<2x77x12x64xf16>, %o: memref<2x12x100x64xf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.125 causal q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3] ins(%q, %k, %v : memref<2x100x12x64xf16>, memref<2x77x12x64xf16>, memref<2x77x12x64xf16>) outs(%o : memref<2x12x100x64xf16>)
  func.return
}

// -----

// One batch dim, K and V broadcast over it (stride 0), bf16, head dim 128.
// CHECK-LABEL: func.func @broadcast_kv
// CHECK:       aicf_gpu.library_call "aicf.flash_attention"
// CHECK-SAME:  head_dim = 128 : i64, block_m = 64 : i64, block_n = 64 : i64, causal = 0 : i64, dtype = "bf16", sq = 16 : i64, sk = 32 : i64, b0 = 1 : i64, b1 = 4 : i64
// CHECK-SAME:  q_strides = array<i64: 0, 2048, 128>, q_offset = 0 : i64, k_strides = array<i64: 0, 0, 128>, k_offset = 0 : i64, v_strides = array<i64: 0, 0, 128>
// HOPPER-LABEL: func.func @broadcast_kv
// HOPPER:       block_m = 128 : i64, block_n = 128 : i64, causal = 0 : i64, dtype = "bf16"{{.*}}mma = "wgmma"
// HOPPER-SAME:  k_strides = array<i64: 0, 0, 128>
func.func @broadcast_kv(%q: memref<4x16x128xbf16>, %k: memref<32x128xbf16>, %v: memref<1x32x128xbf16>, %o: memref<4x16x128xbf16>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.attention scale = 0.08838834764831845 ins(%q, %k, %v : memref<4x16x128xbf16>, memref<32x128xbf16>, memref<1x32x128xbf16>) outs(%o : memref<4x16x128xbf16>)
  func.return
}
