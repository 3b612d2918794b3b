// RUN: aicf-opt %s --split-input-file -t cuda | filecheck %s
// Ops marked `fastmath<afn>` (math = "approx" schedules) print from the emitter's table
// of approximate forms; unmarked ones as f32 libm. f16 constants print as their bits,
// and a widened constant as its f32 value (no conversion at run time).

// CHECK-LABEL: void __launch_bounds__(256, 4) approx(
// CHECK: const unsigned short [[C:.*]] = (unsigned short)0x3ecd;
// CHECK: const float {{.*}} = 1.7001953125f;
// CHECK: = aicf_sin_quarter_approx({{.*}}, 0);
// CHECK: = aicf_sin_quarter_approx({{.*}}, 1);
// CHECK: = aicf_tanh_approx(
// CHECK: = aicf_ex2_approx({{.*}} * 1.44269502f);
// CHECK: = aicf_ex2_approx(
// CHECK: = aicf_div_full({{.*}}, {{.*}});
// CHECK: = {{.*}} / {{.*}};
// CHECK: = sinf(
aicf_gpu.kernel @approx(%x : memref<1024xf16>, %y : memref<1024xf16>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 4] index = 32 {
  %t = aicf_gpu.thread_id x
  %h = memref.load %x[%t] : memref<1024xf16>
  %c = arith.constant 1.7 : f16
  %cw = arith.extf %c : f16 to f32
  %a = arith.extf %h : f16 to f32
  %m = arith.mulf %a, %cw : f32
  %s = math.sin %m fastmath<afn> : f32
  %k = math.cos %s fastmath<afn> : f32
  %th = math.tanh %k fastmath<afn> : f32
  %e = math.exp %th fastmath<afn> : f32
  %e2 = math.exp2 %e fastmath<afn> : f32
  %q = arith.divf %e2, %a fastmath<afn> : f32
  %q2 = arith.divf %q, %a : f32
  %p = math.sin %q2 : f32
  %r = arith.truncf %p : f32 to f16
  memref.store %r, %y[%t] : memref<1024xf16>
  aicf_gpu.return
}

// -----

// bf16 constants: round to nearest even of the f32 pattern (1.7 = 0x3fd9999a -> 0x3fda).
// CHECK-LABEL: bf16_const(
// CHECK: (unsigned short)0x3fda;
aicf_gpu.kernel @bf16_const(%y : memref<1024xbf16>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 4] index = 32 {
  %t = aicf_gpu.thread_id x
  %c = arith.constant 1.7 : bf16
  memref.store %c, %y[%t] : memref<1024xbf16>
  aicf_gpu.return
}

// -----

// `afn` permits an approximation, it does not ask for one (a user's fastmath<fast>): an
// add, sub or mul has none and prints as it is; so does a division not on f32.
// CHECK-LABEL: fast_flags(
// CHECK: = {{.*}} + {{.*}};
// CHECK: = {{.*}} - {{.*}};
// CHECK: = {{.*}} * {{.*}};
// CHECK: = {{.*}} / {{.*}};
// CHECK: = aicf_div_full({{.*}}, {{.*}});
aicf_gpu.kernel @fast_flags(%x : memref<1024xf64>, %y : memref<1024xf64>, %z : memref<1024xf32>) grid = [4, 1, 1] block = [256, 1, 1] smem = 0 bounds = [256, 4] index = 32 {
  %t = aicf_gpu.thread_id x
  %a = memref.load %x[%t] : memref<1024xf64>
  %s = arith.addf %a, %a fastmath<fast> : f64
  %d = arith.subf %s, %a fastmath<afn> : f64
  %m = arith.mulf %d, %a fastmath<fast> : f64
  %q = arith.divf %m, %a fastmath<fast> : f64
  memref.store %q, %y[%t] : memref<1024xf64>
  %f = memref.load %z[%t] : memref<1024xf32>
  %g = arith.divf %f, %f fastmath<fast> : f32
  memref.store %g, %z[%t] : memref<1024xf32>
  aicf_gpu.return
}
