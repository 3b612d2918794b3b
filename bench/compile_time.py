"""Compile time against program size on the cpu target (issue 10 item 11).

Three programs of N ops:
- `fused`: an elementwise chain x -> sin -> mul c -> add x -> ... that aicf-fuse turns
  into few kernels (exercises the fusion pass's graph walk);
- `reductions`: s -> sum(x * s, axis=-1, keepdims) repeated, a reduction every other
  op (row groups of many reduction levels: the groups' buffers, nests and cones);
- `unfused`: tanh(x @ w) repeated (matmuls do not fuse with each other: one nest each,
  exercises lowering, the C emitter and the C compiler).

Prints, per N, seconds for parse + the pipeline `aicf.compile` runs (infer-shapes,
fold, fuse, lower, plan; for cuda also the GPU lowering) and the emitter as this
process's CPU time (steadier than wall time on a shared machine), the C build or
`nvcc -cubin -arch=sm_90` (cold cache; no GPU needed) as wall time, and their sum;
`--json FILE` writes them; `--profile FILE` writes a cProfile of the Python part.

    python bench/compile_time.py fused 500 1000 2000
    python bench/compile_time.py reductions 1000 5000
    python bench/compile_time.py unfused 50 100 200 --target cuda
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import subprocess
import tempfile
import time


def fused_chain(n: int) -> str:
    lines = ["func.func @f(%x: tensor<64x64xf32>) -> tensor<*xf32> {",
             "  %c = aicf_tensor.constant dense<0.5> : tensor<f32>"]  # fmt: skip
    prev = "%x"
    for i in range(n):
        kind = i % 3
        if kind == 0:
            lines.append(f"  %v{i} = aicf_tensor.sin {prev} : (tensor<*xf32>) -> tensor<*xf32>")
        elif kind == 1:
            lines.append(f"  %v{i} = aicf_tensor.mul {prev}, %c : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>")
        else:
            lines.append(f"  %v{i} = aicf_tensor.add {prev}, %x : (tensor<*xf32>, tensor<64x64xf32>) -> tensor<*xf32>")
        prev = f"%v{i}"
    lines += [f"  func.return {prev} : tensor<*xf32>", "}"]
    return "\n".join(lines).replace("sin %x : (tensor<*xf32>)", "sin %x : (tensor<64x64xf32>)")


def reduction_chain(n: int) -> str:
    lines = ["func.func @f(%x: tensor<64x64xf32>) -> tensor<*xf32> {"]
    prev, prev_t = "%x", "tensor<64x64xf32>"
    for i in range(0, n, 2):
        lines.append(f"  %m{i} = aicf_tensor.mul %x, {prev} : (tensor<64x64xf32>, {prev_t}) -> tensor<*xf32>")
        lines.append(f"  %s{i} = aicf_tensor.reduce_sum %m{i} axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>")
        prev, prev_t = f"%s{i}", "tensor<*xf32>"
    lines += [f"  func.return {prev} : tensor<*xf32>", "}"]
    return "\n".join(lines)


def unfused_chain(n: int) -> str:
    lines = ["func.func @f(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<*xf32> {"]
    prev, prev_t = "%x", "tensor<16x16xf32>"
    for i in range(0, n, 2):
        lines.append(f"  %m{i} = aicf_tensor.matmul {prev}, %w : ({prev_t}, tensor<16x16xf32>) -> tensor<*xf32>")
        lines.append(f"  %t{i} = aicf_tensor.tanh %m{i} : (tensor<*xf32>) -> tensor<*xf32>")
        prev, prev_t = f"%t{i}", "tensor<*xf32>"
    lines += [f"  func.return {prev} : tensor<*xf32>", "}"]
    return "\n".join(lines)


def _nvcc(src: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        cu = os.path.join(d, "k.cu")
        with open(cu, "w") as f:
            f.write(src)
        subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", cu, "-o", cu + ".cubin"],
                       check=True)  # fmt: skip


def measure(src: str, target: str = "cpu", profile: str | None = None) -> dict[str, float]:
    from aicf.backend.c.build import build_shared_library
    from aicf.backend.c.emit import emit_c_unit
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import pipeline_for, run_pipeline, target_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    passes = pipeline_for(target)
    if target == "cuda":
        passes = passes[:-1] + target_pipeline("cuda", gpu="h100")
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    t0 = time.process_time()
    module = parse_module(make_context(), src, "bench.mlir")
    run_pipeline(module, passes)
    t1 = time.process_time()
    c, flags, linked = emit_c_unit(module) if target == "cpu" else (emit_cuda(module), (), ())
    t2 = time.process_time()
    if prof:
        prof.disable()
        prof.dump_stats(profile)
    w = time.perf_counter()
    if target == "cpu":
        build_shared_library(c, flags, linked)
    else:
        _nvcc(c)
    cc = time.perf_counter() - w
    return {"pipeline_s": t1 - t0, "emit_s": t2 - t1, "cc_s": cc, "total_s": t2 - t0 + cc,
            "c_lines": c.count("\n")}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("program", choices=("fused", "reductions", "unfused"))
    p.add_argument("sizes", type=int, nargs="+")
    p.add_argument("--target", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--json")
    p.add_argument("--profile", help="cProfile output of the last size")
    args = p.parse_args()
    os.environ["AICF_CACHE_DIR"] = tempfile.mkdtemp(prefix="aicf-bench-")  # cold
    make = {"fused": fused_chain, "reductions": reduction_chain, "unfused": unfused_chain}[args.program]
    rows = []
    for n in args.sizes:
        r = {"program": args.program, "target": args.target, "ops": n,
             **measure(make(n), args.target, args.profile)}  # fmt: skip
        rows.append(r)
        print(f"{args.program} {args.target} {n:6d} ops: pipeline {r['pipeline_s']:7.2f} s  emit "
              f"{r['emit_s']:6.2f} s  cc {r['cc_s']:7.2f} s  total {r['total_s']:7.2f} s  "
              f"({r['c_lines']} lines of source)", flush=True)  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
