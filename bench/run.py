"""Benchmarks of the cuda target against CuPy, torch and the copy-bandwidth floor,
all measured in the same run (CUDA events, warm-up, median of repeats, random data;
fresh random inputs for each correctness check).

    python3 bench/run.py [--out DIR] [--no-torch-compile] [--reps N]

Prints a table and writes bench/results/<date>-<gpu>.{json,md} (and to --out).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

DATE = time.strftime("%Y-%m-%d")


def sin_program(n: int) -> str:
    return f"""
func.func @main(%x: memref<{n}xf32>, %y: memref<{n}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{n}] iterators = [parallel] ins(%x : memref<{n}xf32>) outs(%y : memref<{n}xf32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {{
    ^bb0(%v: f32):
      %a = arith.constant 1.7 : f32
      %b = arith.constant 0.3 : f32
      %m = arith.mulf %a, %v : f32
      %s = arith.addf %m, %b : f32
      %r = math.sin %s : f32
      aicf_loop.yield %r : f32
  }}
  func.return
}}"""


def sum_program(m: int, n: int) -> str:
    return f"""
func.func @main(%x: memref<{m}x{n}xf32>, %y: memref<{m}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{m}, {n}] iterators = [parallel, reduction] ins(%x : memref<{m}x{n}xf32>)
      outs(%y : memref<{m}xf32>) maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {{
    ^bb0(%v: f32):
      aicf_loop.yield %v : f32
  }}
  func.return
}}"""


def transpose_program(m: int, n: int) -> str:
    """y = x.T for x of m x n (f32)."""
    return f"""
func.func @main(%x: memref<{m}x{n}xf32>, %y: memref<{n}x{m}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{n}, {m}] iterators = [parallel, parallel] ins(%x : memref<{m}x{n}xf32>)
      outs(%y : memref<{n}x{m}xf32>) maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)] {{
    ^bb0(%v: f32):
      aicf_loop.yield %v : f32
  }}
  func.return
}}"""


def matmul_program(m: int, k: int, n: int) -> str:
    return f"""
func.func @main(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<{m}x{n}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{m}, {n}, {k}] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%c : memref<{m}x{n}xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {{
    ^bb0(%x: f32, %w: f32):
      %p = arith.mulf %x, %w : f32
      aicf_loop.yield %p : f32
  }}
  func.return
}}"""


CHAIN = """
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %a = aicf_tensor.constant dense<1.7> : tensor<f32>
  %b = aicf_tensor.constant dense<0.3> : tensor<f32>
  %one = aicf_tensor.constant dense<1.0> : tensor<f32>
  %h = aicf_tensor.constant dense<0.5> : tensor<f32>
  %0 = aicf_tensor.mul %a, %x : (tensor<f32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<{n}xf32>, tensor<f32>) -> tensor<{n}xf32>
  %2 = aicf_tensor.sin %1 : (tensor<{n}xf32>) -> tensor<{n}xf32>
  %3 = aicf_tensor.mul %2, %x : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  %4 = aicf_tensor.add %3, %one : (tensor<{n}xf32>, tensor<f32>) -> tensor<{n}xf32>
  %5 = aicf_tensor.tanh %4 : (tensor<{n}xf32>) -> tensor<{n}xf32>
  %6 = aicf_tensor.mul %5, %h : (tensor<{n}xf32>, tensor<f32>) -> tensor<{n}xf32>
  func.return %6 : tensor<{n}xf32>
}}
"""

SOFTMAX = """
func.func @main(%x: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<{R}x1xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<{R}x{C}xf32>, tensor<{R}x1xf32>) -> tensor<{R}x{C}xf32>
  %e = aicf_tensor.exp %d : (tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<{R}x1xf32>
  %y = aicf_tensor.div %e, %s : (tensor<{R}x{C}xf32>, tensor<{R}x1xf32>) -> tensor<{R}x{C}xf32>
  func.return %y : tensor<{R}x{C}xf32>
}}
"""

LAYERNORM = """
func.func @main(%x: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %mu = aicf_tensor.reduce_mean %x axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<{R}x1xf32>
  %xc = aicf_tensor.sub %x, %mu : (tensor<{R}x{C}xf32>, tensor<{R}x1xf32>) -> tensor<{R}x{C}xf32>
  %sq = aicf_tensor.mul %xc, %xc : (tensor<{R}x{C}xf32>, tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32>
  %var = aicf_tensor.reduce_mean %sq axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<{R}x1xf32>
  %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f32>
  %ve = aicf_tensor.add %var, %eps : (tensor<{R}x1xf32>, tensor<f32>) -> tensor<{R}x1xf32>
  %sd = aicf_tensor.sqrt %ve : (tensor<{R}x1xf32>) -> tensor<{R}x1xf32>
  %y = aicf_tensor.div %xc, %sd : (tensor<{R}x{C}xf32>, tensor<{R}x1xf32>) -> tensor<{R}x{C}xf32>
  func.return %y : tensor<{R}x{C}xf32>
}}
"""


def kernel_count(run, *arrays) -> tuple[int, list[str]]:
    """Kernels one call launches (aicf.profiler) and their schedules' names."""
    import cupy as cp

    from aicf.profiling import profiler

    with profiler() as p:
        run(*arrays)
    cp.cuda.Device().synchronize()
    return len(p.records), [r.kernel for r in p.records]


def schedules_of(exe) -> list[str]:
    prog = getattr(exe, "_program", exe)
    return [m[:120] for m in re.findall(r"// \w+: (.*)", getattr(prog, "source", ""))][:3]


def compile_text(text: str, force: str = "", matmul_precision: str = ""):
    """A loop-level program planned for this GPU (`force`: schedule kinds to take where
    their guard passes; `matmul_precision`: "high" allows TF32) and compiled with no
    synchronisation per call."""
    from aicf.backend.cuda.program import compile_cuda
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), text, "<bench>")
    prec = f" matmul_precision={matmul_precision}" if matmul_precision else ""
    run_pipeline(module, ["aicf-fuse-epilogue",
                          f'aicf-plan{{target=gpu force="{force}"{prec}}}' if force else f"aicf-plan{{target=gpu{prec}}}"])
    return compile_cuda(module, "main", sync="none")


def bench(fn, reps: int, warmup: int = 3, inner: int = 10) -> float:
    """Median over `reps` samples of the ms per call, each sample `inner` calls
    back to back between two CUDA events (so host-side launch overhead overlaps the
    previous kernel, for us and the references alike, as in triton's do_bench)."""
    import cupy as cp

    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) / inner)
    return float(np.median(times))


def interleaved(ours, ref, reps: int, rounds: int = 7) -> tuple[float, float, list[float]]:
    """`bench` of ours and of the reference in alternating rounds: the medians of each
    and the sorted per-round ratios ref/ours. The lent host drifts 30-50% between
    minutes, which decides host-bound calls (~10 us) more than either side does; in
    alternation the drift falls on both alike, where two single passes minutes apart
    can differ by that much."""
    a, r = [], []
    for _ in range(rounds):
        a.append(bench(ours, reps))
        r.append(bench(ref, reps))
    return float(np.median(a)), float(np.median(r)), sorted(ri / ai for ai, ri in zip(a, r))


def ratio_check(ratios: list[float], ref: str) -> dict:
    """What a row reports of `interleaved`'s ratios against the reference `ref`."""
    return {"ratio_ref": ref, "ratio_median": float(np.median(ratios)), "ratio_min": ratios[0],
            "ratio_max": ratios[-1], "rounds": len(ratios)}


def kernel_ms(prog, *arrays) -> float:
    """GPU time of one call's kernels alone (aicf.profiler: events around each launch)."""
    import cupy as cp

    from aicf.profiling import profiler

    with profiler() as p:
        prog(*arrays)
    cp.cuda.Device().synchronize()
    return sum(r.ms for r in p.records)


def ulp_f32(out: np.ndarray, ref: np.ndarray) -> np.ndarray:
    o = out.astype(np.float32).view(np.int32).astype(np.int64)
    r = ref.astype(np.float32).view(np.int32).astype(np.int64)
    o = np.where(o < 0, -(o & 0x7FFFFFFF), o)
    r = np.where(r < 0, -(r & 0x7FFFFFFF), r)
    return np.abs(o - r)


def torch_refs(have_torch, torch, args, reps, fn, *tensors) -> dict:
    refs = {}
    if not have_torch:
        return refs
    refs["torch"] = bench(lambda: fn(*tensors), reps)
    if not args.no_torch_compile:
        try:
            f = torch.compile(fn)
            f(*tensors)
            refs["torch_compile"] = bench(lambda: f(*tensors), reps)
        except Exception as e:  # noqa: BLE001
            print(f"torch.compile failed: {e}", flush=True)
    return refs


def fused_rows(args, rows, row, rng, reps, have_torch, torch, copy_ms, copy_gbps, src) -> None:
    """The issue-4 cases: an elementwise chain written as separate ops, softmax and
    layer norm (row groups), an aicf.jit MLP, and the per-call host overhead."""
    import os

    import cupy as cp

    import aicf

    # tanh(sin(1.7x+0.3)*x+1)*0.5, seven tensor ops -> one kernel
    n = 2**28
    exe = aicf.compile(CHAIN.format(n=n), target="cuda")
    unf = aicf.compile(CHAIN.format(n=n), target="cuda", fuse=False)
    x = src
    nk, names = kernel_count(exe, x)
    nk_unf, _ = kernel_count(unf, x)
    y = exe(x)
    k = 1 << 22
    xh = cp.asnumpy(x[:k]).astype(np.float64)
    c = [float(np.float32(v)) for v in (1.7, 0.3)]
    ref = np.tanh(np.sin(c[0] * xh + c[1]) * xh + 1.0) * 0.5
    out = cp.asnumpy(y[:k]).astype(np.float64)
    err = float(np.abs(out - ref).max())
    del y
    ours = bench(lambda: exe(x), reps)
    refs = {"copy_floor": copy_ms, "cupy_unfused": bench(lambda: cp.tanh(cp.sin(1.7 * x + 0.3) * x + 1) * 0.5, reps)}
    if have_torch:
        tx = torch.as_tensor(x, device="cuda")
        refs.update(torch_refs(have_torch, torch, args, reps, lambda t: torch.tanh(torch.sin(1.7 * t + 0.3) * t + 1) * 0.5, tx))
        del tx
    nbytes = 2 * n * 4
    tc = refs.get("torch_compile")
    ok = nk == 1 and err < 1e-5 and (tc is None or tc / ours >= 0.95)
    row("tanh(sin(1.7x+0.3)*x+1)*0.5 2^28 f32 (7 ops)", ours, refs, nbytes=nbytes,
        check={"kernels": nk, "kernels_unfused": nk_unf, "max_abs_err": err, "pct_of_copy_bw": (nbytes / (ours * 1e-3) / 1e9) / copy_gbps},
        target={"text": "1 kernel, >=0.95x torch.compile, abs err < 1e-5", "met": bool(ok)})
    del exe, unf

    # softmax over the last axis and layer norm (no affine): one row-group kernel each
    def norm_case(label, text, R, C, ref64, torch_fn):
        exe = aicf.compile(text.format(R=R, C=C), target="cuda")
        unf = aicf.compile(text.format(R=R, C=C), target="cuda", fuse=False)
        xs = cp.asarray((rng.standard_normal((R, C), dtype=np.float32) * 3 + 0.5).astype(np.float32))
        nk, names = kernel_count(exe, xs)
        nk_unf, _ = kernel_count(unf, xs)
        out = exe(xs)
        errs = []
        ref = ref64(xs.astype(cp.float64))
        errs.append(float(cp.linalg.norm(out.astype(cp.float64) - ref) / cp.linalg.norm(ref)))
        del ref
        h = cp.asnumpy(xs[:256]).astype(np.float64)  # NumPy float64 on a slice, too
        errs.append(float(np.linalg.norm(cp.asnumpy(out[:256]) - ref64(h)) / np.linalg.norm(ref64(h))))
        out2 = unf(xs)
        err_unf = float(cp.linalg.norm(out2.astype(cp.float64) - out.astype(cp.float64)) / cp.linalg.norm(out.astype(cp.float64)))
        del out, out2
        ours = bench(lambda: exe(xs), reps)
        kms = kernel_ms(getattr(exe, "_program", exe), xs)
        refs = {"aicf_unfused": bench(lambda: unf(xs), reps)}
        if have_torch:
            tx = torch.as_tensor(xs, device="cuda")
            refs.update(torch_refs(have_torch, torch, args, reps, torch_fn, tx))
            del tx
        nbytes = 2 * R * C * 4
        t, tc = refs.get("torch"), refs.get("torch_compile")
        ok = nk == 1 and max(errs) < 1e-5 and (t is None or t / ours >= 1.0) and (tc is None or tc / ours >= 0.9)
        row(f"{label} {R}x{C} f32", ours, refs, nbytes=nbytes,
            check={"kernels": nk, "kernels_unfused": nk_unf, "rel_err": max(errs), "fused_vs_unfused": err_unf,
                   "kernel_only_ms": kms, "schedule": schedules_of(exe)},
            target={"text": "1 kernel, >= torch eager, >= 0.9x torch.compile, rel err < 1e-5", "met": bool(ok)})
        del xs

    def softmax64(a):
        xp = cp.get_array_module(a)
        e = xp.exp(a - a.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm64(a):
        xp = cp.get_array_module(a)
        mu = a.mean(axis=-1, keepdims=True)
        return (a - mu) / xp.sqrt(((a - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5)

    norm_case("softmax(axis=-1)", SOFTMAX, 8192, 8192, softmax64, lambda t: torch.softmax(t, dim=-1))
    norm_case("layernorm (no affine)", LAYERNORM, 16384, 4096, layernorm64,
              lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=1e-5))

    # softmax 4096x1000 through aicf.jit (issue 7: >= torch eager): 250 float4 a row,
    # not a multiple of the lanes, so the row group caches it with a guarded last vector
    @aicf.jit(target="cuda")
    def softmax(x):
        e = aicf.ops.exp(x - aicf.ops.reduce_max(x, axis=-1, keepdims=True))
        return e / aicf.ops.reduce_sum(e, axis=-1, keepdims=True)

    xs = cp.asarray((rng.standard_normal((4096, 1000), dtype=np.float32) * 3 + 0.5).astype(np.float32))
    out = softmax(xs)
    ref = softmax64(xs.astype(cp.float64))
    err = float(cp.linalg.norm(out.astype(cp.float64) - ref) / cp.linalg.norm(ref))
    exe = softmax.executable(xs)
    nk, names = kernel_count(exe, xs)
    ours = bench(lambda: exe(xs), reps)
    refs, rc = {}, {}
    if have_torch:
        tx = torch.as_tensor(xs, device="cuda")
        refs.update(torch_refs(have_torch, torch, args, reps, lambda t: torch.softmax(t, dim=-1), tx))
        ours, refs["torch"], ratios = interleaved(lambda: exe(xs), lambda: torch.softmax(tx, dim=-1), reps)
        rc = ratio_check(ratios, "torch")
        del tx
    row("aicf.jit softmax(axis=-1) 4096x1000 f32", ours, refs, nbytes=2 * xs.size * 4,
        check={"kernels": nk, "rel_err": err, "kernel_only_ms": kernel_ms(getattr(exe, "_program", exe), xs),
               **rc, "schedule": schedules_of(exe)},
        target={"text": "1 kernel, >= torch eager (median of interleaved rounds), rel err < 1e-5",
                "met": bool(nk == 1 and err < 1e-5 and (not rc or rc["ratio_median"] >= 1.0))})
    del xs, out, ref

    # aicf.jit two-layer MLP forward on the cuda target
    @aicf.jit(target="cuda")
    def mlp(x, w1, b1, w2, b2):
        return aicf.ops.relu(x @ w1 + b1) @ w2 + b2

    shapes = [(512, 1024), (1024, 2048), (2048,), (2048, 1024), (1024,)]
    host = [rng.standard_normal(s).astype(np.float32) * (0.05 if len(s) == 2 and s[0] > 512 else 1) for s in shapes]
    dev = [cp.asarray(h) for h in host]
    out = cp.asnumpy(mlp(*dev))
    w = [h.astype(np.float64) for h in host]
    ref = np.maximum(w[0] @ w[1] + w[2], 0) @ w[3] + w[4]
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    exe = mlp.executable(*dev)
    nk, names = kernel_count(exe, *dev)
    ours = bench(lambda: exe(*dev), reps)
    refs = {}
    if have_torch:
        tt = [torch.as_tensor(d, device="cuda") for d in dev]
        refs["torch"] = bench(lambda: torch.relu(tt[0] @ tt[1] + tt[2]) @ tt[3] + tt[4], reps)
    flops = 2 * 512 * 1024 * 2048 + 2 * 512 * 2048 * 1024
    row("aicf.jit MLP relu(x@W1+b1)@W2+b2 512x1024x2048x1024 f32", ours, refs, flops=flops,
        min_bytes=sum(d.nbytes for d in dev) + 512 * 1024 * 4,
        check={"kernels": nk, "kernel_names": names, "rel_err": err},
        target={"text": "matches NumPy float64 (rel err < 1e-4)", "met": bool(err < 1e-4)})

    # per-call host overhead of CudaProgram.__call__: cached launch plan vs the general path
    prog = compile_text(sin_program(1024))
    xa = cp.asarray(rng.standard_normal(1024, dtype=np.float32))
    ya = cp.empty_like(xa)

    def host_us(f, calls=2000):
        for _ in range(50):
            f()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        t1 = time.perf_counter()
        cp.cuda.Device().synchronize()
        return (t1 - t0) / calls * 1e6

    fast = host_us(lambda: prog(xa, ya))
    general = host_us(lambda: prog._run_general(xa, ya))
    fast_alloc = host_us(lambda: prog(xa))
    empty = cp.RawKernel('extern "C" __global__ void aicf_empty() {}', "aicf_empty")
    raw = host_us(lambda: empty((1,), (1,), ()))
    print(f"host overhead per call: plan {fast:.1f} us, general {general:.1f} us, plan+alloc {fast_alloc:.1f} us, empty RawKernel {raw:.1f} us", flush=True)
    rows.append({"case": "host overhead per call, sin 1024 f32 (us)", "aicf_ms": fast / 1e3,
                 "refs_ms": {"general_path": general / 1e3, "empty_rawkernel": raw / 1e3}, "ratios": {"general_path": general / fast, "empty_rawkernel": raw / fast},
                 "check": {"plan_us": fast, "general_us": general, "plan_with_output_alloc_us": fast_alloc, "empty_rawkernel_us": raw},
                 "target": {"text": "cached plan cheaper than the general path", "met": bool(fast < general)}})


def main(argv=None) -> int:
    import cupy as cp

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-torch-compile", action="store_true")
    ap.add_argument("--skip-matmul", action="store_true")
    args = ap.parse_args(argv)
    try:
        import torch

        have_torch = torch.cuda.is_available()
    except Exception:
        torch, have_torch = None, False
    gpu_name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    reps = args.reps

    def row(case, ours_ms, refs: dict, nbytes=None, flops=None, check=None, target=None, min_bytes=None):
        r = {"case": case, "aicf_ms": ours_ms, "refs_ms": refs, "check": check, "target": target,
             "nbytes": nbytes or min_bytes, "flops": flops}  # the roofline's (min_bytes: plot only)
        if nbytes:
            r["aicf_GBps"] = nbytes / (ours_ms * 1e-3) / 1e9
        if flops:
            r["aicf_TFLOPs"] = flops / (ours_ms * 1e-3) / 1e12
        r["ratios"] = {k: (v / ours_ms if v else None) for k, v in refs.items()}  # >1: we are faster
        if check and "ratio_median" in check and check.get("ratio_ref") in r["ratios"]:
            # the interleaved reference: its median per-round ratio, which the target reads
            r["ratios"][check["ratio_ref"]] = check["ratio_median"]
        rows.append(r)
        print(json.dumps(r), flush=True)

    # --- copy floor --------------------------------------------------------------------
    n = 2**28
    src = cp.asarray(rng.standard_normal(n, dtype=np.float32))
    dst = cp.empty_like(src)
    copy_ms = bench(lambda: cp.copyto(dst, src), reps)
    copy_gbps = 2 * n * 4 / (copy_ms * 1e-3) / 1e9
    print(f"copy 1 GiB: {copy_ms:.3f} ms = {copy_gbps:.0f} GB/s", flush=True)

    # --- sin(1.7x+0.3) -----------------------------------------------------------------
    prog = compile_text(sin_program(n))
    x = src
    y = cp.full(n, np.nan, dtype=np.float32)
    prog(x, y)
    cp.cuda.Device().synchronize()
    # accuracy on fresh inputs (a slice checked against float64 on the host)
    xc = cp.asarray(rng.uniform(-100, 100, n).astype(np.float32))
    yc = cp.full(n, np.nan, dtype=np.float32)
    prog(xc, yc)
    k = 1 << 22
    xh = cp.asnumpy(xc[:k]).astype(np.float64)
    yh = cp.asnumpy(yc)
    a32, b32 = float(np.float32(1.7)), float(np.float32(0.3))
    arg_fma = (a32 * xh + b32).astype(np.float32)
    arg_sep = ((a32 * xh).astype(np.float32).astype(np.float64) + b32).astype(np.float32)
    d = np.minimum(ulp_f32(yh[:k], np.sin(arg_fma.astype(np.float64))), ulp_f32(yh[:k], np.sin(arg_sep.astype(np.float64))))
    max_ulp = int(d.max())
    unwritten = int(np.isnan(yh).sum())
    ours = bench(lambda: prog(x, y), reps)
    refs = {"copy_floor": copy_ms}
    refs["cupy_unfused"] = bench(lambda: cp.sin(1.7 * x + 0.3), reps)
    ek = cp.ElementwiseKernel("float32 x", "float32 y", "y = sinf(1.7f * x + 0.3f)", "aicf_bench_sin")
    refs["cupy_elementwise"] = bench(lambda: ek(x, y), reps)
    if have_torch:
        tx = torch.as_tensor(x, device="cuda")
        refs["torch"] = bench(lambda: torch.sin(1.7 * tx + 0.3), reps)
        if not args.no_torch_compile:
            try:
                f = torch.compile(lambda t: torch.sin(1.7 * t + 0.3))
                f(tx)
                refs["torch_compile"] = bench(lambda: f(tx), reps)
            except Exception as e:  # noqa: BLE001
                print(f"torch.compile failed: {e}", flush=True)
    nbytes = 2 * n * 4
    ok = (nbytes / (ours * 1e-3) / 1e9) >= 0.8 * copy_gbps and ours < refs["cupy_elementwise"] and max_ulp <= 2 and unwritten == 0
    row("sin(1.7x+0.3) 2^28 f32", ours, refs, nbytes=nbytes,
        check={"max_ulp": max_ulp, "unwritten": unwritten, "pct_of_copy_bw": (nbytes / (ours * 1e-3) / 1e9) / copy_gbps},
        target={"text": ">=80% copy BW, faster than CuPy ElementwiseKernel, <=2 ulp", "met": bool(ok)})
    del xc, yc, y

    # --- sum(axis=-1) ------------------------------------------------------------------
    # (shape, the reference the target is against, the ratio needed): 3000x3001 has rows
    # the float4 width does not divide (peeled), issue 7 asks >= 0.9x torch.sum there
    # and >= 1.0x CuPy on 1024x65536
    for (m, nn), ref_key, need in (((8192, 8192), "cupy_sum", 0.9), ((65536, 1024), "cupy_sum", 0.75),
                                   ((1024, 65536), "cupy_sum", 1.0), ((262144, 128), "cupy_sum", 0.75),
                                   ((3000, 3001), "torch_sum", 0.9)):
        prog = compile_text(sum_program(m, nn))
        xs = cp.asarray(rng.standard_normal((m, nn), dtype=np.float32))
        out = cp.full(m, np.nan, dtype=np.float32)
        prog(xs, out)
        ref = cp.sum(xs.astype(cp.float64), axis=-1)
        err = float(cp.linalg.norm(out.astype(cp.float64) - ref) / cp.linalg.norm(ref))
        xs2 = cp.asarray(rng.standard_normal((m, nn), dtype=np.float32))  # fresh inputs
        out.fill(np.nan)
        prog(xs2, out)
        ref2 = cp.sum(xs2.astype(cp.float64), axis=-1)
        err = max(err, float(cp.linalg.norm(out.astype(cp.float64) - ref2) / cp.linalg.norm(ref2)))
        del xs2, ref, ref2
        kms = kernel_ms(prog, xs, out)
        ref_fns = {"cupy_sum": lambda: cp.sum(xs, axis=-1)}
        if have_torch:
            tx = torch.as_tensor(xs, device="cuda")
            ref_fns["torch_sum"] = lambda: torch.sum(tx, dim=-1)
        key = ref_key if ref_key in ref_fns else "cupy_sum"
        # the target's reference alternates with ours (the bar is their ratio); the other once
        ours, ref_ms, ratios = interleaved(lambda: prog(xs, out), ref_fns[key], reps)
        refs = {k: (ref_ms if k == key else bench(f, reps)) for k, f in ref_fns.items()}
        nbytes = m * nn * 4 + m * 4
        ratio = float(np.median(ratios))
        row(f"sum(axis=-1) {m}x{nn} f32", ours, refs, nbytes=nbytes,
            check={"rel_err": err, "kernel_only_ms": kms, **ratio_check(ratios, key),
                   "schedule": re.findall(r"// \w+: (\S+ \S+ \S+ \S+)", prog.source)},
            target={"text": f">={need}x {key.replace('_', '.')} (median of interleaved rounds), rel err < 1e-5",
                    "met": bool(ratio >= need and err < 1e-5)})
        del xs, out

    # --- transpose (issue 7: >= 85% of copy bandwidth, >= 1.0x torch.compile) ------------
    M = N = 8192
    xt = cp.asarray(rng.standard_normal((M, N), dtype=np.float32))
    yt = cp.empty((N, M), dtype=np.float32)
    nbytes = 2 * M * N * 4
    refs = {"copy_floor_same_bytes": bench(lambda: cp.copyto(yt, xt), reps)}
    if have_torch:
        tx = torch.as_tensor(xt, device="cuda")
        refs["torch"] = bench(lambda: tx.t().contiguous(), reps)
        if not args.no_torch_compile:
            try:
                f = torch.compile(lambda t: t.t().contiguous())
                f(tx)
                refs["torch_compile"] = bench(lambda: f(tx), reps)
            except Exception as e:  # noqa: BLE001
                print(f"torch.compile failed: {e}", flush=True)
    same_copy_gbps = nbytes / (refs["copy_floor_same_bytes"] * 1e-3) / 1e9
    for label, force in (("planner's pick", ""), ("forced gpu.per_output", "gpu.per_output")):
        prog = compile_text(transpose_program(M, N), force)
        yt.fill(np.nan)
        prog(xt, yt)
        exact = bool(cp.array_equal(yt, xt.T))
        ours = bench(lambda: prog(xt, yt), reps)
        gbps = nbytes / (ours * 1e-3) / 1e9
        tc = refs.get("torch_compile")
        check = {"exact": exact, "kernel_only_ms": kernel_ms(prog, xt, yt), "pct_of_copy_bw": gbps / copy_gbps,
                 "pct_of_same_bytes_copy": gbps / same_copy_gbps, "schedule": schedules_of(prog)}
        if force:
            target = {"text": "exact (the old schedule, for comparison)", "met": exact}
        else:
            target = {"text": ">= 85% copy BW, >= 1.0x torch.compile, exact",
                      "met": bool(exact and gbps >= 0.85 * copy_gbps and (tc is None or tc / ours >= 1.0))}
        row(f"transpose 8192x8192 f32 {label}", ours, refs, nbytes=nbytes, check=check, target=target)
    del xt, yt

    # --- matmul ------------------------------------------------------------------------
    if not args.skip_matmul:
        M = K = N = 4096
        a = cp.asarray(rng.standard_normal((M, K), dtype=np.float32))
        b = cp.asarray(rng.standard_normal((K, N), dtype=np.float32))
        refs = {"cupy_matmul_cublas": bench(lambda: cp.matmul(a, b), reps)}
        # the planner's pick, then each candidate forced (issue 7: picks by cost, forcing works)
        for label, force in (("planner's pick", ""), ("forced gpu.matmul_tiled", "gpu.matmul_tiled"),
                             ("forced gpu.cublas_gemm", "gpu.cublas_gemm")):
            prog = compile_text(matmul_program(M, K, N), force)
            sched = re.findall(r"// (\w+): (.*)", prog.source)
            c = cp.full((M, N), np.nan, dtype=np.float32)
            prog(a, b, c)
            ref = a.astype(cp.float64) @ b.astype(cp.float64)
            err = float(cp.linalg.norm(c.astype(cp.float64) - ref) / cp.linalg.norm(ref))
            del ref
            ours = bench(lambda: prog(a, b, c), 5, warmup=1, inner=3)
            flops = 2 * M * N * K
            tf = flops / (ours * 1e-3) / 1e12
            if force == "gpu.matmul_tiled":
                text, met = ">= 16.4 TFLOP/s (2x naive 8.2), rel err < 1e-4", tf >= 16.4 and err < 1e-4
            elif force:
                text, met = ">= 0.9x cupy.matmul, rel err < 1e-4", refs["cupy_matmul_cublas"] / ours >= 0.9 and err < 1e-4
            else:
                text, met = "rel err < 1e-4 (what the model picks)", err < 1e-4
            row(f"matmul 4096^3 f32 {label}", ours, refs, flops=flops, min_bytes=4 * (M * K + K * N + M * N),
                check={"rel_err": err, "schedule": [s[1] for s in sched][:2] or ["cublas.gemm (library)"]},
                target={"text": text, "met": bool(met)})
            del c

    # --- fused programs through aicf.compile (tensor level, default pipeline) ----------------
    fused_rows(args, rows, row, rng, reps, have_torch, torch, copy_ms, copy_gbps, src)

    # --- half precision (bench/half.py): the f16 chain, f16 softmax --------------------------
    from half import half_rows

    half_rows(args, row, rng, reps, have_torch, torch)

    # --- report ------------------------------------------------------------------------
    lines = [f"# aicf benchmarks, {DATE}, {gpu_name}", "",
             f"Copy floor (cupy.copyto, 1 GiB f32): {copy_ms:.3f} ms = {copy_gbps:.0f} GB/s (read+write).", "",
             "ratio = reference time / aicf time (> 1: aicf is faster).", "",
             "| case | aicf ms | achieved | references (ms, ratio) | check | target | met |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        ach = f"{r['aicf_GBps']:.0f} GB/s" if "aicf_GBps" in r else (
            f"{r['aicf_TFLOPs']:.2f} TFLOP/s" if "aicf_TFLOPs" in r else "-")
        refs = "; ".join(f"{k} {v:.3f} ({r['ratios'][k]:.2f}x)" for k, v in r["refs_ms"].items())
        chk = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in (r["check"] or {}).items())
        lines.append(f"| {r['case']} | {r['aicf_ms']:.3f} | {ach} | {refs} | {chk} | {r['target']['text']} | {'yes' if r['target']['met'] else 'NO'} |")
    md = "\n".join(lines) + "\n"
    print(md, flush=True)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", gpu_name).strip("-")
    data = {"date": DATE, "gpu": gpu_name, "copy_ms": copy_ms, "copy_GBps": copy_gbps, "rows": rows}
    dests = [Path(__file__).parent / "results"]
    if args.out:
        dests.append(Path(args.out))
    for d in dests:
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{DATE}-{slug}.md").write_text(md)
        (d / f"{DATE}-{slug}.json").write_text(json.dumps(data, indent=1))
        write_roofline(rows, d / f"{DATE}-{slug}-roofline.png")
    return 0


def write_roofline(rows: list[dict], path: Path) -> None:
    """The achieved FLOP/s and bandwidth of every case against this GPU's roofs
    (aicf.profiling's roofline; needs matplotlib, the `plot` extra)."""
    from aicf.profiling import LaunchRecord, Profiler
    from aicf.target import resolve_target

    prof = Profiler([LaunchRecord(r["case"], (), (), 0, r.get("nbytes") or 0, r.get("flops") or 0,
                                  ms=r["aicf_ms"], target="cuda") for r in rows])  # fmt: skip
    try:
        prof.roofline(path, resolve_target("gpu"))
        print(f"roofline: {path}", flush=True)
    except ImportError as e:
        print(f"no roofline plot: {e}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
