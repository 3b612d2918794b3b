// RUN: aicf-opt %s -p aicf-lower-smem-layouts -t cuda | filecheck %s

// The swizzled layout's index function reaches the emitter as index arithmetic
// (aicf-lower-smem-layouts): a flat shared array and one C statement per arith op,
// r * 32 + (((c >> 2) ^ (r & 7)) * 4 + (c & 3)) with r = c = t.
// CHECK:      __shared__ __align__(16) float [[S:[a-z_0-9]+]]{{\[}}2048];
// CHECK-NEXT: const int [[T:t_[0-9]+]] = (int)threadIdx.x;
// CHECK-NEXT: const int [[C7:v_[0-9]+]] = 7;
// CHECK-NEXT: const int [[PH:v_[0-9]+]] = [[T]] & [[C7]];
// CHECK-NEXT: const int [[C2:v_[0-9]+]] = 2;
// CHECK-NEXT: const int [[G:v_[0-9]+]] = (int)((unsigned)[[T]] >> (unsigned)[[C2]]);
// CHECK-NEXT: const int [[X:v_[0-9]+]] = [[G]] ^ [[PH]];
// CHECK-NEXT: const int [[C4:v_[0-9]+]] = 4;
// CHECK-NEXT: const int [[XV:v_[0-9]+]] = [[X]] * [[C4]];
// CHECK-NEXT: const int [[C3:v_[0-9]+]] = 3;
// CHECK-NEXT: const int [[IN:v_[0-9]+]] = [[T]] & [[C3]];
// CHECK-NEXT: const int [[COL:v_[0-9]+]] = [[XV]] + [[IN]];
// CHECK-NEXT: const int [[C32:v_[0-9]+]] = 32;
// CHECK-NEXT: const int [[ROW:v_[0-9]+]] = [[T]] * [[C32]];
// CHECK-NEXT: const int [[I:v_[0-9]+]] = [[ROW]] + [[COL]];
// CHECK-NEXT: [[S]]{{\[}}[[I]]] = x_p0;
aicf_gpu.kernel @k(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {
  %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  %t = aicf_gpu.thread_id x
  memref.store %x, %s[%t, %t] : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4, per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
  aicf_gpu.return
}
