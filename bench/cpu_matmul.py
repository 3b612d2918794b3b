"""Matmul 1024^3 f32 and a GPT-2 block (64 tokens, width 768) on aicf's cpu target vs
NumPy, on the same number of threads.

    python bench/cpu_matmul.py [--threads N] [--repeat R] [--json PATH]

Threads: OMP_NUM_THREADS (aicf's OpenMP loops) and OPENBLAS_NUM_THREADS (both NumPy's
OpenBLAS and the scipy-openblas32 copy aicf links) are set to --threads (default: the
cores this process may use) before NumPy or aicf is imported, so both sides run their
BLAS on the same threads; threadpoolctl, when installed, prints what each library got.

Each figure is the median of R calls, each on fresh random inputs (drawn before the
timer starts), after one warm-up call (which builds the program). aicf and NumPy run in
pairs on the same inputs, one after the other in alternating order, each after a
pause that lets the other's idle threads stop spinning (SETTLE_S); the ratio is the
median of the pairs' ratios (robust to load from other processes on a shared machine).
The load average before and after is printed and recorded, to judge the figures by.

The GPT-2 block (pre-layer-norm, as GPT-2):
    h = x + attn(ln1(x));  y = h + W2 gelu(W1 ln2(h) + b1) + b2
attn: q, k, v as three 768x768 linears (the tensor ops have no slice, so the fused
qkv matmul cannot be split; NumPy does the same three), 12 heads of 64 by reshape and
transpose, scores q k^T / 8 plus a causal mask (an input: 0 or -1e9), softmax over
keys (max-subtracted), heads merged back, output linear. gelu is GPT-2's tanh form.
Layer norm: biased variance, eps 1e-5. Everything f32.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

N_CTX, D, HEADS, D_FF = 64, 768, 12, 3072


def _set_threads(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    n = ap.parse_known_args(argv)[0].threads
    os.environ["OMP_NUM_THREADS"] = str(n)
    os.environ["OPENBLAS_NUM_THREADS"] = str(n)
    return n


THREADS = _set_threads(sys.argv[1:])

import numpy as np  # noqa: E402

import aicf  # noqa: E402
from aicf import ops  # noqa: E402


SETTLE_S = 0.15
"""Pause before each timed call: the other side's idle threads stop spinning by then
(OpenMP's after its spin count, OpenBLAS's after THREAD_TIMEOUT, 2^28 cycles ~0.1 s),
so neither is timed while the other's pool still holds a core."""


def paired_times(f_aicf, f_numpy, make_inputs, repeat: int) -> dict:
    """Medians and minima of aicf's and NumPy's times, and the median of their per-pair
    ratios (NumPy / aicf). Each pair runs
    both on the same fresh inputs, one after the other (in alternating order), so that
    both see the same load on a shared machine."""
    args = make_inputs()
    f_aicf(*args)
    f_numpy(*args)
    ta, tn = [], []
    for i in range(repeat):
        args = make_inputs()
        for which in ((0, 1) if i % 2 == 0 else (1, 0)):
            fn = (f_aicf, f_numpy)[which]
            time.sleep(SETTLE_S)
            t0 = time.perf_counter()
            fn(*args)
            (ta, tn)[which].append(time.perf_counter() - t0)
    return {"aicf_ms": float(np.median(ta)) * 1e3, "numpy_ms": float(np.median(tn)) * 1e3,
            "aicf_min_ms": min(ta) * 1e3, "numpy_min_ms": min(tn) * 1e3,
            "numpy_over_aicf": float(np.median(np.array(tn) / np.array(ta)))}  # fmt: skip


def rel_error(out, ref) -> float:
    return float(np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref))


# --- the GPT-2 block, written twice: aicf ops and NumPy --------------------------------


def _layer_norm(x, g, b, mean, rsqrt):
    mu = mean(x)
    d = x - mu
    return d * rsqrt(mean(d * d) + 1e-5) * g + b


def _gelu_tanh(x, tanh):
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x))))


def block_aicf(x, mask, g1, b1, wq, bq, wk, bk, wv, bv, wo, bo, g2, b2, w1, bf1, w2, bf2):
    def mean(t):
        return ops.reduce_mean(t, axis=-1, keepdims=True)

    a = _layer_norm(x, g1, b1, mean, ops.rsqrt)
    heads = (N_CTX, HEADS, D // HEADS)
    q = ops.transpose(ops.reshape(a @ wq + bq, heads), [1, 0, 2])
    kt = ops.transpose(ops.reshape(a @ wk + bk, heads), [1, 2, 0])
    v = ops.transpose(ops.reshape(a @ wv + bv, heads), [1, 0, 2])
    s = (q @ kt) * 0.125 + mask
    e = ops.exp(s - ops.reduce_max(s, axis=-1, keepdims=True))
    p = e / ops.reduce_sum(e, axis=-1, keepdims=True)
    att = ops.reshape(ops.transpose(p @ v, [1, 0, 2]), (N_CTX, D))
    h = x + (att @ wo + bo)
    f = _gelu_tanh(_layer_norm(h, g2, b2, mean, ops.rsqrt) @ w1 + bf1, ops.tanh)
    return h + (f @ w2 + bf2)


def block_numpy(x, mask, g1, b1, wq, bq, wk, bk, wv, bv, wo, bo, g2, b2, w1, bf1, w2, bf2):
    def mean(t):
        return t.mean(axis=-1, keepdims=True)

    def rsqrt(t):
        return 1.0 / np.sqrt(t)

    a = _layer_norm(x, g1, b1, mean, rsqrt)
    heads = (N_CTX, HEADS, D // HEADS)
    q = (a @ wq + bq).reshape(heads).transpose(1, 0, 2)
    kt = (a @ wk + bk).reshape(heads).transpose(1, 2, 0)
    v = (a @ wv + bv).reshape(heads).transpose(1, 0, 2)
    s = (q @ kt) * np.float32(0.125) + mask
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    att = (p @ v).transpose(1, 0, 2).reshape(N_CTX, D)
    h = x + (att @ wo + bo)
    f = _gelu_tanh(_layer_norm(h, g2, b2, mean, rsqrt) @ w1 + bf1, np.tanh)
    return h + (f @ w2 + bf2)


def block_inputs(rng):
    def w(*shape, scale=0.02):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    mask = np.triu(np.full((N_CTX, N_CTX), -1e9, np.float32), 1)
    ones = np.ones(D, np.float32)
    return [w(N_CTX, D, scale=1.0), mask, ones + w(D), w(D), w(D, D), w(D), w(D, D), w(D),
            w(D, D), w(D), w(D, D), w(D), ones + w(D), w(D), w(D, D_FF), w(D_FF),
            w(D_FF, D), w(D)]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=THREADS)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    report: dict = {"cpu": _cpu_name(), "threads": THREADS, "repeat": args.repeat,
                    "load_before": os.getloadavg(),
                    "numpy": np.__version__, "env": {k: os.environ.get(k) for k in (
                        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
                        "OPENBLAS_L2_SIZE")}}  # fmt: skip

    # matmul 1024^3
    n = 1024
    mm = aicf.jit(lambda a, b: a @ b)

    def mm_inputs():
        return (rng.standard_normal((n, n), dtype=np.float32),
                rng.standard_normal((n, n), dtype=np.float32))  # fmt: skip

    a, b = mm_inputs()
    err = rel_error(mm(a, b), a.astype(np.float64) @ b)
    r = report["matmul_1024"] = paired_times(mm, np.matmul, mm_inputs, args.repeat)
    r["aicf_gflops"] = 2 * n**3 / r["aicf_ms"] / 1e6
    r["numpy_gflops"] = 2 * n**3 / r["numpy_ms"] / 1e6
    r["rel_err"] = err

    # GPT-2 block
    blk = aicf.jit(block_aicf)
    ins = block_inputs(rng)
    ref = block_numpy(*[i.astype(np.float64) for i in ins])
    err = rel_error(blk(*ins), ref)
    r = report["gpt2_block_64x768"] = paired_times(
        blk, block_numpy, lambda: block_inputs(rng), args.repeat)
    r["rel_err"] = err
    report["threadpools"] = _threadpools()
    report["load_after"] = os.getloadavg()

    print(f"{report['cpu']}, {THREADS} threads (OMP_NUM_THREADS = OPENBLAS_NUM_THREADS), "
          f"median of {args.repeat}, fresh inputs each call; load average "
          f"{report['load_before'][0]:.1f} before, {report['load_after'][0]:.1f} after")  # fmt: skip
    for name in ("matmul_1024", "gpt2_block_64x768"):
        r = report[name]
        extra = f", aicf {r['aicf_gflops']:.0f} GFLOP/s" if "aicf_gflops" in r else ""
        print(f"  {name:20s} aicf {r['aicf_ms']:8.3f} ms (min {r['aicf_min_ms']:.3f})  "
              f"numpy {r['numpy_ms']:8.3f} ms (min {r['numpy_min_ms']:.3f})  "
              f"numpy/aicf {r['numpy_over_aicf']:.2f}x  rel err {r['rel_err']:.1e}{extra}")  # fmt: skip
    for p in report["threadpools"]:
        print(f"  threadpool: {p}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


def _cpu_name() -> str:
    from aicf.target import host_cpu

    return host_cpu().name or platform.processor()


def _threadpools() -> list[str]:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return ["(threadpoolctl not installed)"]
    return [f"{p.get('internal_api')} {p.get('version')} {p.get('filepath', '').split('/')[-1]} "
            f"threads={p.get('num_threads')} core={p.get('architecture')}"
            for p in threadpool_info()]  # fmt: skip


if __name__ == "__main__":
    main()
