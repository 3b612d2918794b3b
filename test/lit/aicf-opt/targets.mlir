// aicf-opt offers the targets that take aicf programs: mlir, c, cuda, ptx. xDSL's
// others (wat, wgsl, csl, llvm, the assemblers) print their own dialects only, and
// printed nothing or failed deep inside on these programs; xdsl-opt keeps them.
// RUN: env COLUMNS=100 aicf-opt --help | filecheck %s --check-prefix=HELP
// HELP: targets (-t): mlir, c, cuda, ptx{{$}}
// RUN: not aicf-opt -t wat %s 2>&1 | filecheck %s --check-prefix=WAT
// WAT: error: argument -t/--target: invalid choice: 'wat' (choose from mlir, c, cuda, ptx)
// RUN: not aicf-opt -t riscv-asm %s 2>&1 | filecheck %s --check-prefix=RISCV
// RISCV: invalid choice: 'riscv-asm'
// RUN: aicf-opt -t c -p aicf-lower-to-loops,aicf-plan{target=cpu} %s | filecheck %s --check-prefix=C
// C: int aicf_f(void *const *bufs, const int64_t *const *strides)

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aicf_tensor.sin %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// The level error names the target asked for.
// RUN: not aicf-opt -t ptx %s 2>&1 | filecheck %s --check-prefix=PTX
// PTX: error: 'aicf_tensor.sin' is not at the GPU level: run aicf-lower-to-loops,aicf-lower-to-gpu before -t ptx
