// RUN: aicf-opt %s -t cuda | filecheck %s

// CHECK: extern "C" __global__ void __launch_bounds__(256, 4) scale(const float* __restrict__ x_p0, float* __restrict__ y_p1, long long y_p1_s0)
// CHECK: const long long [[B:.*]] = (long long)blockIdx.x;
// CHECK: aicf_vec<float, 4> {{.*}} = *reinterpret_cast<const aicf_vec<float, 4>*>(&x_p0[
// CHECK: aicf_warp_add(
// CHECK: __shared__ __align__(16) float
// CHECK: __syncthreads();
// CHECK: y_p1[{{.*}} * y_p1_s0] =
// CHECK: // host @main: scale<<<[4, 1, 1], [256, 1, 1], 0>>>
aicf_gpu.kernel @scale(%x : memref<1024xf32>, %y : memref<1024xf32, strided<[?]>>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 4] index = 64 {
  %b = aicf_gpu.block_id x
  %t = aicf_gpu.thread_id x
  %c4 = arith.constant 4 : index
  %i = arith.muli %t, %c4 : index
  %v = aicf_gpu.load_vector %x[%i] : memref<1024xf32> -> vector<4xf32>
  %e = vector.extract %v[0] : f32 from vector<4xf32>
  %r = aicf_gpu.warp_reduce add %e width = 32 : f32
  %s = aicf_gpu.alloc_shared : memref<32xf32, #aicf_gpu.address_space<shared>>
  %l = aicf_gpu.lane_id
  memref.store %r, %s[%l] : memref<32xf32, #aicf_gpu.address_space<shared>>
  aicf_gpu.barrier
  memref.store %r, %y[%b] : memref<1024xf32, strided<[?]>>
  aicf_gpu.return
}
func.func @main(%x : memref<1024xf32>, %y : memref<1024xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_gpu.launch @scale(%x, %y) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 : memref<1024xf32>, memref<1024xf32>
  func.return
}
