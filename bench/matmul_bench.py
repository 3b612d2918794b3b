"""Matmul on the GPU machine: the tiled schedule against cuBLAS (cupy.matmul) and a
naive 16x16 shared-memory kernel, all measured in this run, plus the cost model's
prediction for each variant (see bench/matmul_notes.md).

    python3 bench/matmul_bench.py [--out DIR] [--quick]

Times are CUDA-event medians over repeated back-to-back launches after a warm-up,
on random inputs; our kernels are launched directly from the emitted CUDA (RawModule)
so that the Python launch path does not enter kernel times; correctness goes through
the real runtime (compile_cuda) with a NaN-poisoned output, against float64.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from aicf.dtypes import f32_to_bf16_bits

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402

NAIVE = r"""
extern "C" __global__ void naive16(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[16][16], Bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(long long)row * N + col] = acc;
}
"""


def program(m, n, k, dt="f32", batch_a=(), batch_b=(), params: str | None = None) -> str:
    nb = max(len(batch_a), len(batch_b))
    ob = [max(([1] * (nb - len(batch_a)) + list(batch_a))[i], ([1] * (nb - len(batch_b)) + list(batch_b))[i]) for i in range(nb)]
    d = [f"d{i}" for i in range(nb + 3)]

    def bm(batch):
        return ["0" if e == 1 and ob[nb - len(batch) + j] != 1 else d[nb - len(batch) + j] for j, e in enumerate(batch)]

    def mt(shape):
        return "memref<" + "x".join([*map(str, shape), dt]) + ">"

    at, bt, ct = mt([*batch_a, m, k]), mt([*batch_b, k, n]), mt([*ob, m, n])
    dims = ", ".join(d)
    M, N, K = d[nb], d[nb + 1], d[nb + 2]
    body = ("%p = arith.mulf %x, %w : f32" if dt == "f32" else
            f"%xf = arith.extf %x : {dt} to f32\n    %wf = arith.extf %w : {dt} to f32\n    %p = arith.mulf %xf, %wf : f32")
    attrs = f' attrs = {{aicf.schedule = {{kind = "gpu.matmul_tiled", {params}}}}}' if params else ""
    return f"""
func.func @main(%a: {at}, %b: {bt}, %c: {ct}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, [*ob, m, n, k]))}] iterators = [{', '.join(['parallel'] * (nb + 2) + ['reduction'])}]
      ins(%a, %b : {at}, {bt}) outs(%c : {ct})
      maps = [({dims}) -> ({', '.join(bm(batch_a) + [M, K])}), ({dims}) -> ({', '.join(bm(batch_b) + [K, N])}), ({dims}) -> ({', '.join(d[:nb] + [M, N])})]
      combiners = [add]{attrs} {{
  ^bb0(%x: {dt}, %w: {dt}):
    {body}
    aicf_loop.yield %p : f32
  }}
  func.return
}}""", [*batch_a, m, k], [*batch_b, k, n], [*ob, m, n]


def events_ms(fn, reps=15) -> float:
    """ms per call: bench/run.py's bench() (CUDA events), 5 calls per sample."""
    return bench(fn, reps, inner=5)


def main(argv=None) -> int:
    import cupy as cp

    from aicf.cost import matmul as cm
    from aicf.target import GpuTarget
    from aicf.backend.cuda.emit import emit_cuda, kernels_of
    from aicf.backend.cuda.program import compile_cuda, lower_to_gpu
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rng = np.random.default_rng(0)
    rows = []

    def ours(text, shapes, dt="f32", check=True):
        mod = lower_to_gpu(parse_module(make_context(), text, "<bench>"))
        (k,) = kernels_of(mod)
        src = emit_cuda(mod)
        fn = cp.RawModule(code=src, options=("-std=c++17",)).get_function(k.kernel_name)
        a_s, b_s, c_s = shapes
        npdt = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[dt]

        def rand(shape):
            x = rng.standard_normal(shape, dtype=np.float32)
            return cp.asarray(f32_to_bf16_bits(x) if dt == "bf16" else x.astype(npdt))

        a, b = rand(a_s), rand(b_s)
        c = cp.empty(c_s, dtype=npdt)
        err = None
        if check:
            prog = compile_cuda(parse_module(make_context(), text, "<bench>"), "main", sync="full-sync")
            cpoison = cp.full(c_s, np.nan, dtype=np.float32) if dt == "f32" else cp.full(c_s, 0xFFFF, dtype=np.uint16).view(npdt)
            prog(a, b, cpoison)

            def f64(x):
                return ((x.astype(cp.uint32) << 16).view(cp.float32) if dt == "bf16" else x).astype(cp.float64)

            ref = cp.matmul(f64(a), f64(b))
            out = f64(cpoison)
            err = float(cp.linalg.norm(out - ref) / cp.linalg.norm(ref)) if not bool(cp.isnan(out).any()) else float("nan")
            del ref, out, cpoison
        ms = events_ms(lambda: fn(k.grid_dims, k.block_dims, (a, b, c)))
        return ms, err, k.attributes["aicf.schedule"].data, (a, b)

    def predicted(text, params=None):
        from aicf.dialects.loop import NestOp

        nest = next(o for o in parse_module(make_context(), text, "<p>").walk() if isinstance(o, NestOp))
        t = GpuTarget.from_device()
        _, p = cm.nest_problem(nest, t.max_vector_bytes)
        e = cm.best(p, t) if params is None else cm.estimate(cm.candidate_from_params(params, p), p, t)
        return e.cand.short(), p.flops / e.total / 1e12

    # --- 4096^3 f32: the bar ---------------------------------------------------------------
    M = N = K = 4096
    flops = 2 * M * N * K
    text, *shapes = program(M, N, K)
    t0 = time.time()
    ms, err, sched, (a, b) = ours(text, shapes)
    naive = cp.RawModule(code=NAIVE).get_function("naive16")
    c = cp.empty((M, N), dtype=np.float32)
    naive_ms = events_ms(lambda: naive((N // 16, M // 16), (16, 16), (a, b, c, np.int32(M), np.int32(N), np.int32(K))), reps=7)
    cub_ms = events_ms(lambda: cp.matmul(a, b))
    cand, pred = predicted(text)
    rows.append(dict(case="4096^3 f32 (cost model's choice)", ms=ms, tflops=flops / ms / 1e9, rel_err=err,
                     naive_ms=naive_ms, naive_tflops=flops / naive_ms / 1e9, cublas_ms=cub_ms,
                     cublas_tflops=flops / cub_ms / 1e9, vs_naive=naive_ms / ms, vs_cublas=cub_ms / ms,
                     predicted_tflops=pred, candidate=cand, schedule=sched))
    print(rows[-1], f"({time.time() - t0:.1f}s)", flush=True)
    del a, b, c

    # --- variants of the 4096^3 kernel: does the model rank them as measured? ------------
    variants = [
        "bm = 128, bn = 128, bk = 16, tm = 8, tn = 8, swizzle = false",
        "bm = 128, bn = 128, bk = 8, tm = 8, tn = 8",
        "bm = 64, bn = 128, bk = 32, tm = 8, tn = 8",
        "bm = 64, bn = 64, bk = 32, tm = 4, tn = 4",
    ]
    if args.quick:  # the swizzle question and run-to-run spread (the default again)
        variants = [variants[0], "bm = 128, bn = 128, bk = 16, tm = 8, tn = 8, swizzle = true", variants[0]]
    for v in variants:
        params = dict(kv.split(" = ") for kv in v.split(", "))
        params = {k_: (int(x) if x.isdigit() else x == "true") for k_, x in params.items()}
        text, *shapes = program(M, N, K, params=v)
        ms, err, sched, _ = ours(text, shapes, check=False)
        cand, pred = predicted(text, params)
        rows.append(dict(case=f"4096^3 f32 [{v}]", ms=ms, tflops=flops / ms / 1e9, predicted_tflops=pred, candidate=cand))
        print(rows[-1], flush=True)

    # --- other shapes ----------------------------------------------------------------------
    others = [
        (1024, 1024, 1024, "f32", (), ()),
        (512, 512, 512, "f32", (8,), (1,)),
        (4097, 4095, 1000, "f32", (), ()),
        (2048, 2048, 2048, "f16", (), ()),
        (2048, 2048, 2048, "bf16", (), ()),
    ]
    if args.quick:
        others = [others[0], others[2], others[4]]
    for m, n, k, dt, ba, bb in others:
        text, *shapes = program(m, n, k, dt, ba, bb)
        ms, err, sched, (a, b) = ours(text, shapes, dt)
        batch = max([1, *ba, *bb])
        fl = 2 * batch * m * n * k
        ref_ms = events_ms(lambda: cp.matmul(a, b)) if dt != "bf16" else float("nan")
        cand, pred = predicted(text)
        rows.append(dict(case=f"{'x'.join(map(str, ba)) + 'x' if ba else ''}{m}x{n}x{k} {dt}", ms=ms, tflops=fl / ms / 1e9,
                         rel_err=err, cupy_ms=ref_ms, predicted_tflops=pred, candidate=cand, schedule=sched))
        print(rows[-1], flush=True)
        del a, b

    lines = [f"matmul on {gpu}", "| case | ms | TFLOP/s | predicted | rel err | reference |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        ref = ""
        if "cublas_ms" in r:
            ref = f"naive16 {r['naive_tflops']:.2f} TF ({r['vs_naive']:.2f}x); cuBLAS {r['cublas_tflops']:.2f} TF ({r['vs_cublas']:.2f}x)"
        elif "cupy_ms" in r and not math.isnan(r["cupy_ms"]):
            ref = f"cupy.matmul {r['cupy_ms']:.3f} ms"
        e = r.get("rel_err")
        lines.append(f"| {r['case']} | {r['ms']:.3f} | {r['tflops']:.2f} | {r['predicted_tflops']:.1f} ({r['candidate']}) | "
                     f"{'' if e is None else f'{e:.2e}'} | {ref} |")
    md = "\n".join(lines)
    print(md, flush=True)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "matmul_bench.json").write_text(json.dumps({"gpu": gpu, "rows": rows}, indent=1))
        Path(args.out, "matmul_bench.md").write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
