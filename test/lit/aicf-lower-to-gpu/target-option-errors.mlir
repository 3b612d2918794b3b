// RUN: not aicf-opt %s -p 'aicf-lower-to-gpu{target=cpu}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not aicf-opt %s -p 'aicf-lower-to-gpu{target=tpu}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// The GPU lowering takes a GPU target: `cpu` is a known target, but not one it can
// take (it was "unknown target 'cpu' (known: ..., cpu, auto)", listing cpu as known).

// CPU: error: target 'cpu' is not a GPU: this takes a GPU target ({{.*}}, gpu, auto)
// CPU-NOT: Traceback
// UNKNOWN: error: unknown target 'tpu' (known: {{.*}}, gpu, cpu, auto)

func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) attributes {aicf.num_outputs = 1 : i64} {
  func.return
}
