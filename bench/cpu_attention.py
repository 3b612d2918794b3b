"""Attention on aicf's cpu target: one aicf_tensor.attention (cpu.attention: tiles and an
online softmax) against the same program without aicf-recognize-attention (matmul,
softmax row group, matmul: the seq x seq scores written and read back), NumPy f32 and,
when installed, torch's scaled_dot_product_attention, on the same threads.

    python bench/cpu_attention.py [--threads N] [--repeat R] [--seq S ...] [--json PATH]

Shapes: batch 1, 12 heads, head dim 64 (GPT-2 small's), f32, causal and not, sequence
lengths --seq (default 256 1024 2048). Each figure is the median of R calls after a
warm-up call (which builds the program), inputs drawn before the timer starts; the
FLOPs counted are 4 * heads * Sq * Sk * D (halved, about, for causal). The bytes of
the largest intermediate buffer of each aicf program are reported (the scores matrix
when attention is not recognised).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

from cpu_matmul import THREADS  # noqa: E402,F401 (sets the thread counts from --threads first)

import numpy as np  # noqa: E402

import aicf  # noqa: E402

HEADS, D = 12, 64


def program(seq: int, causal: bool) -> str:
    t = f"tensor<{HEADS}x{seq}x{D}xf32>"
    s = f"tensor<{HEADS}x{seq}x{seq}xf32>"
    r = f"tensor<{HEADS}x{seq}x1xf32>"
    kt = f"tensor<{HEADS}x{D}x{seq}xf32>"
    mask = ""
    scores = "%s1"
    if causal:
        mask = (f"  %r = aicf_tensor.iota dim = 1 : tensor<1x{seq}x{seq}xi32>\n"
                f"  %c = aicf_tensor.iota dim = 2 : tensor<1x{seq}x{seq}xi32>\n"
                f"  %keep = aicf_tensor.ge %r, %c : (tensor<1x{seq}x{seq}xi32>, tensor<1x{seq}x{seq}xi32>) -> tensor<1x{seq}x{seq}xi1>\n"
                f"  %ninf = aicf_tensor.constant dense<0xFF800000> : tensor<f32>\n"
                f"  %s2 = aicf_tensor.select %keep, %s1, %ninf : (tensor<1x{seq}x{seq}xi1>, {s}, tensor<f32>) -> {s}\n")  # fmt: skip
        scores = "%s2"
    return f"""func.func @attention(%q: {t}, %k: {t}, %v: {t}) -> {t} {{
  %kt = aicf_tensor.transpose %k perm = [0, 2, 1] : ({t}) -> {kt}
  %s = aicf_tensor.matmul %q, %kt : ({t}, {kt}) -> {s}
  %scale = aicf_tensor.constant dense<0.125> : tensor<f32>
  %s1 = aicf_tensor.mul %s, %scale : ({s}, tensor<f32>) -> {s}
{mask}  %m = aicf_tensor.reduce_max {scores} axes = [-1] keepdims : ({s}) -> {r}
  %d = aicf_tensor.sub {scores}, %m : ({s}, {r}) -> {s}
  %e = aicf_tensor.exp %d : ({s}) -> {s}
  %l = aicf_tensor.reduce_sum %e axes = [-1] keepdims : ({s}) -> {r}
  %p = aicf_tensor.div %e, %l : ({s}, {r}) -> {s}
  %o = aicf_tensor.matmul %p, %v : ({s}, {t}) -> {t}
  func.return %o : {t}
}}"""


def unrecognised(src: str):
    """The program compiled as aicf.compile does for cpu, without
    aicf-recognize-attention."""
    from aicf.backend.c.runtime import CpuModule, CpuProgram
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), src)
    run_pipeline(module, [p for p in pipeline_for("cpu") if p != "aicf-recognize-attention"])
    prog = CpuProgram(CpuModule(module), "attention")

    def run(q, k, v):
        out = np.empty_like(q)
        prog.run((q, k, v), [out])
        return out

    return run, module


def largest_buffer(module) -> int:
    from xdsl.dialects import memref

    sizes = [math.prod(op.memref.type.get_shape()) * 4 for op in module.walk() if isinstance(op, memref.AllocOp)]
    return max(sizes, default=0)


def numpy_attention(q, k, v, causal):
    s = q @ np.swapaxes(k, -1, -2) * np.float32(0.125)
    if causal:
        s = np.where(np.tri(s.shape[-1], dtype=bool), s, np.float32(-np.inf))
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) @ v


def timed(fn, inputs, repeat: int) -> float:
    fn(*inputs[0])
    times = []
    for args in inputs[:repeat]:
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=THREADS)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seq", type=int, nargs="+", default=[256, 1024, 2048])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    rows = []
    print(f"threads {args.threads}, load {os.getloadavg()[0]:.1f}; batch 1, {HEADS} heads, head dim {D}, f32")
    for seq in args.seq:
        for causal in (False, True):
            src = program(seq, causal)
            exe = aicf.compile(src, target="cpu")
            assert any(op.name == "aicf_loop.attention" for op in exe.module.walk())
            plain, plain_module = unrecognised(src)
            inputs = [[rng.standard_normal((HEADS, seq, D)).astype(np.float32) for _ in range(3)]
                      for _ in range(args.repeat)]  # fmt: skip
            ref = numpy_attention(*(x.astype(np.float64) for x in inputs[0]), causal)
            err = float(np.linalg.norm(exe(*inputs[0]) - ref) / np.linalg.norm(ref))
            t = {"aicf": timed(exe, inputs, args.repeat), "aicf unrecognised": timed(plain, inputs, args.repeat),
                 "numpy": timed(lambda q, k, v: numpy_attention(q, k, v, causal), inputs, args.repeat)}  # fmt: skip
            if torch is not None:
                tin = [[torch.from_numpy(x) for x in xs] for xs in inputs]
                sdpa = torch.nn.functional.scaled_dot_product_attention
                with torch.no_grad():
                    t["torch sdpa"] = timed(lambda q, k, v: sdpa(q, k, v, is_causal=causal, scale=0.125), tin, args.repeat)
            flops = 4 * HEADS * seq * seq * D * (0.5 if causal else 1)
            row = {"seq": seq, "causal": causal, "rel_err": err, "ms": {k: v * 1e3 for k, v in t.items()},
                   "gflops": {k: flops / v / 1e9 for k, v in t.items()},
                   "largest_buffer_bytes": {"aicf": largest_buffer(exe.module),
                                            "aicf unrecognised": largest_buffer(plain_module)}}  # fmt: skip
            rows.append(row)
            figures = "  ".join(f"{k} {v * 1e3:.2f} ms ({row['gflops'][k]:.1f} GFLOP/s)" for k, v in t.items())
            print(f"seq {seq:5d} {'causal' if causal else 'full  '}: {figures}; rel err {err:.1e}; largest buffer "
                  f"{row['largest_buffer_bytes']['aicf'] / 2**20:.1f} MiB vs "
                  f"{row['largest_buffer_bytes']['aicf unrecognised'] / 2**20:.1f} MiB unrecognised")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "load": os.getloadavg(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
