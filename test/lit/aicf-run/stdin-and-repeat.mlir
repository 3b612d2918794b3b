// RUN: cat %s | aicf-run - --target cpu --repeat 3 | filecheck %s
// RUN: sed 's/aicf_tensor.exp/aicf_tensor.nope/' %s | not aicf-run - --target cpu 2>&1 | filecheck %s --check-prefix=STDIN-ERROR
// RUN: not aicf-run %t.missing.mlir --target cpu --repeat 1000000000000 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not aicf-run %s --target cpu --repeat 10001 2>&1 | filecheck %s --check-prefix=MAX
// RUN: not aicf-run %s --target cpu --repeat 0 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not aicf-run %s --target cpu --repeat -1 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: aicf-run --help | filecheck %s --check-prefix=HELP
// RUN: not sh -c 'aicf-run - --target cpu <&-' 2>&1 | filecheck %s --check-prefix=CLOSED
// CLOSED: aicf-run: cannot read the program from standard input: it is closed
// As aicf-opt, aicf-run reads the program from stdin for `-` and names it <stdin> in
// what it prints. --repeat takes 1 to 10000 timed runs: a mistyped count ran for days
// (and kept every time in memory); 0 or less is a usage error, not one run. The
// count is checked before the program is read (%t.missing.mlir does not exist).

// CHECK: <stdin>: @f on cpu, seed 0
// CHECK: output #0 float32[4, 8]: {{.*}} ok
// CHECK: time: median {{.*}} ms over 3 runs
// STDIN-ERROR: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}aicf_tensor.nope
// STDIN-ERROR-NOT: Traceback
// HUGE: aicf-run: error: argument --repeat: must be <= 10000, got 1000000000000
// MAX: aicf-run: error: argument --repeat: must be <= 10000, got 10001
// ZERO: aicf-run: error: argument --repeat: must be >= 1, got 0
// NEGATIVE: aicf-run: error: argument --repeat: must be >= 1, got -1
// HELP: --repeat REPEAT timed runs, 1 to 10000

func.func @f(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
