// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-fuse{target=cpu},aicf-propose-kernels{proposer="python3 %S/../../python/external_kernels/propose.py wrong" target=cpu},aicf-lower-to-loops,aicf-fold-view-copies,aicf-plan{target=cpu explain=true gate_time_limit=5.0}' 2>&1 >/dev/null | filecheck %s
// RUN: aicf-opt %s -p 'aicf-infer-shapes,aicf-fuse{target=cpu},aicf-propose-kernels{proposer="python3 %S/../../python/external_kernels/propose.py nocompile" target=cpu},aicf-lower-to-loops,aicf-fold-view-copies,aicf-plan{target=cpu explain=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=COMPILE
// The proposer is asked for the subgraph (the sum of a broadcast), its kernel goes
// through the gate at aicf-plan, and a wrong or uncompilable one is rejected with
// the reason while the compiler's own nest is taken.

// CHECK-LABEL: @bcast_sum nest #0 domain=[64, 32] [reduction,parallel] on
// CHECK:         -> cpu.nest
// CHECK:            cpu.external:bcast_sum_wrong does not apply: rejected by the gate{{( \(cached\))?}} (wrong): case 'program shape' (inputs f32[32]): result #0 (f32[32]) differs from the reference:
// CHECK-NEXT:         arrays are not close

// COMPILE:          cpu.external:bcast_sum_nocompile does not apply: rejected by the gate{{( \(cached\))?}} (compile): it does not compile:
// COMPILE-NEXT:       the C compiler failed on the external kernel 'bcast_sum_nocompile'
// COMPILE:            kernel.c:{{[0-9]+}}:{{[0-9]+}}: error: expected ';' before '}' token
func.func @bcast_sum(%v: tensor<32xf32>) -> tensor<*xf32> {
  %b = aicf_tensor.broadcast_to %v shape = [64, 32] : (tensor<32xf32>) -> tensor<64x32xf32>
  %s = aicf_tensor.reduce_sum %b axes = [0] : (tensor<64x32xf32>) -> tensor<*xf32>
  func.return %s : tensor<*xf32>
}
