// RUN: aicf-opt %s -p aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=cpu} -t c | filecheck %s

// Steps that differ only in the buffers they touch are one C function (repeated
// layers are compiled once): the entry calls it with its own arguments and
// intermediates, in the step's canonical order; local names are numbered per step.
// CHECK-LABEL: int aicf_repeated(void *const *bufs, const int64_t *const *strides) {
// CHECK-NEXT: (void)strides;
// CHECK-NEXT: void *mem[1] = {0};
// CHECK-NEXT: if (aicf_repeated_step0((void *const[]){bufs[0], bufs[4]}, strides, mem)) goto fail;
// CHECK-NEXT: if (aicf_repeated_step0((void *const[]){bufs[1], bufs[5]}, strides, mem)) goto fail;
// CHECK-NEXT: if (aicf_repeated_step1((void *const[]){bufs[2], bufs[6]}, strides, mem)) goto fail;
// CHECK-NEXT: if (aicf_repeated_step0((void *const[]){bufs[3], bufs[7]}, strides, mem)) goto fail;
// CHECK-NEXT: return 0;
// CHECK: static int __attribute__((noinline)) aicf_repeated_step0(
// CHECK-NEXT: (void)bufs; (void)strides; (void)mem;
// CHECK-NEXT: const float *restrict a0 = (const float *)bufs[0];
// CHECK-NEXT: float *restrict a1 = (float *)bufs[1];
// CHECK: const float x0 = a0[i0];
// CHECK-NEXT: const float v0 = tanhf(x0);
// CHECK-NEXT: a1[i0] = v0;
// CHECK: static int __attribute__((noinline)) aicf_repeated_step1(
// CHECK: const float v0 = sinf(x0);
// CHECK-NOT: aicf_repeated_step2
func.func @repeated(%x: tensor<64xf32>, %y: tensor<64xf32>, %z: tensor<64xf32>, %w: tensor<64xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = aicf_tensor.tanh %x : (tensor<64xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.tanh %y : (tensor<64xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.sin %z : (tensor<64xf32>) -> tensor<*xf32>
  %3 = aicf_tensor.tanh %w : (tensor<64xf32>) -> tensor<*xf32>
  func.return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// A chain through intermediates: the middle steps read and write `mem` slots.
// CHECK-LABEL: int aicf_chain(void *const *bufs, const int64_t *const *strides) {
// CHECK: if (aicf_chain_step0(bufs, strides, mem)) goto fail;
// CHECK: if (aicf_chain_step1(bufs, strides, mem)) goto fail;
// CHECK: if (aicf_chain_step1(bufs, strides, (void *[]){mem[1], mem[2]})) goto fail;
// CHECK: if (aicf_chain_step2((void *const[]){bufs[1]}, strides, (void *[]){mem[2]})) goto fail;
// CHECK: static int __attribute__((noinline)) aicf_chain_step1(
// CHECK-NEXT: (void)bufs; (void)strides; (void)mem;
// CHECK-NEXT: void *const m0_mem = mem[0];
// CHECK-NEXT: void *const m1_mem = mem[1];
// CHECK-NOT: aicf_chain_step3
func.func @chain(%x: tensor<64xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.tanh %x : (tensor<64xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.tanh %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = aicf_tensor.tanh %1 : (tensor<*xf32>) -> tensor<*xf32>
  %3 = aicf_tensor.tanh %2 : (tensor<*xf32>) -> tensor<*xf32>
  func.return %3 : tensor<*xf32>
}

// Steps reading run-time strides get the strides of their own arguments.
// CHECK-LABEL: int aicf_strided(void *const *bufs, const int64_t *const *strides) {
// CHECK-NEXT: (void)strides;
// CHECK-NEXT: void *mem[1] = {0};
// CHECK-NEXT: if (aicf_strided_step0((void *const[]){bufs[0], bufs[2]}, (const int64_t *const[]){strides[0], strides[2]}, mem)) goto fail;
// CHECK-NEXT: if (aicf_strided_step0((void *const[]){bufs[1], bufs[3]}, (const int64_t *const[]){strides[1], strides[3]}, mem)) goto fail;
// CHECK: static int __attribute__((noinline)) aicf_strided_step0(
// CHECK-NEXT: (void)bufs; (void)strides; (void)mem;
// CHECK-NEXT: const int64_t a0_s0 = strides[0][0];
// CHECK-NEXT: const float *restrict a0 = (const float *)bufs[0];
// CHECK-NEXT: float *restrict a1 = (float *)bufs[1];
// CHECK: a1[i0] = v0;
// CHECK-NOT: aicf_strided_step1
func.func @strided(%x: memref<8xf32, strided<[?], offset: ?>>, %y: memref<8xf32, strided<[?], offset: ?>>,
                   %u: memref<8xf32>, %v: memref<8xf32>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%x : memref<8xf32, strided<[?], offset: ?>>) outs(%u : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a : f32):
    %t = math.tanh %a : f32
    aicf_loop.yield %t : f32
  }
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%y : memref<8xf32, strided<[?], offset: ?>>) outs(%v : memref<8xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%b : f32):
    %t = math.tanh %b : f32
    aicf_loop.yield %t : f32
  }
  func.return
}
