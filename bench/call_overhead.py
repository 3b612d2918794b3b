"""Call overhead on the cuda target (issue 12's runtime bar), in one run:

1. a 1024-element program (sin): one synced call (call + stream sync, wall clock,
   median of many) through aicf.compile's executable, the program's fast path, torch
   eager (torch.sin) and CuPy (cupy.sin);
2. a program of many small kernels (an unfused chain of N elementwise ops, as a
   model's forward launches them): the time per call with CUDA graphs off and on, and
   the per-kernel launch overhead it implies (CUDA events around back-to-back calls);
3. the issue's model: a 2-layer GPT-2 forward (examples/gpt2_numpy.py, picoGPT's code
   under aicf.jit, 64 tokens, width 768), its weights on the device, graphs off and on.

    python3 bench/call_overhead.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import sys
from pathlib import Path

import numpy as np

import aicf

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402  (CUDA events around back-to-back calls, medians)


def sin_program(n: int) -> str:
    return f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %y = aicf_tensor.sin %x : (tensor<{n}xf32>) -> tensor<{n}xf32>
  func.return %y : tensor<{n}xf32>
}}
"""


def chain_program(n_ops: int, size: int) -> str:
    lines, prev = [], "%x"
    ops = ("sin", "tanh", "exp", "neg")
    for i in range(n_ops):
        op = ops[i % len(ops)]
        lines.append(f"  %v{i} = aicf_tensor.{op} {prev} : (tensor<{size}xf32>) -> tensor<{size}xf32>")
        prev = f"%v{i}"
    body = "\n".join(lines)
    return f"func.func @main(%x: tensor<{size}xf32>) -> tensor<{size}xf32> {{\n{body}\n  func.return {prev} : tensor<{size}xf32>\n}}\n"


def synced_us(f, sync, calls=3000, warm=200) -> float:
    for _ in range(warm):
        f()
    sync()
    samples = []
    for _ in range(calls):
        t0 = time.perf_counter()
        f()
        sync()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def gpt2_forward(cp, rng) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    import gpt2_numpy as g

    cfg = dict(g.CONFIGS["small"], n_layer=2)
    params = g.init_params(**cfg)
    dparams = _to_device(cp, params)
    ids = cp.asarray(rng.integers(0, cfg["n_vocab"], 64))
    model = aicf.jit(g.gpt2, target="cuda", static_argnames="n_head")
    exe = model.executable(ids, **dparams, n_head=cfg["n_head"])
    prog = exe._program
    model(ids, **dparams, n_head=cfg["n_head"])
    kinds = [st[0] for st in prog._plan[1]]
    res: dict = {"steps": {k: kinds.count(k) for k in sorted(set(map(str, kinds)))}, "graphable": prog._graphable}
    print(f"gpt2 2 layers: launch plan {res['steps']}, graphable {prog._graphable}")
    ref = None
    for graphs in (False, True):
        prog.graphs = graphs
        t = bench(lambda: model(ids, **dparams, n_head=cfg["n_head"]), 15, warmup=20, inner=50) * 1e3
        got = cp.asnumpy(model(ids, **dparams, n_head=cfg["n_head"]))
        ref = got if ref is None else ref
        assert np.array_equal(got, ref), "graph replay differs from kernel-by-kernel launches"
        res["graphs on" if graphs else "graphs off"] = t
        print(f"gpt2 2 layers, 64 tokens, f32, graphs {'on ' if graphs else 'off'}: {t:8.1f} us per call")
    # where a call's time goes: the GPU's time per step (aicf's profiler), then the host
    leaves = model._split((ids,), {**dparams, "n_head": cfg["n_head"]}).leaves
    prof = exe.profile(*leaves, repeat=3)
    by_name: dict[str, float] = {}
    for r in prof.records:
        by_name[r.kernel] = by_name.get(r.kernel, 0.0) + r.ms / 3
    res["gpu_ms_per_call"] = sum(by_name.values())
    res["gpu_top"] = sorted(by_name.items(), key=lambda kv: -kv[1])[:8]
    print(f"gpt2 2 layers: GPU time {res['gpu_ms_per_call'] * 1e3:.1f} us per call over {len(prof.records) // 3} steps; "
          "top: " + ", ".join(f"{n} {ms * 1e3:.1f} us" for n, ms in res["gpu_top"]))
    import cProfile
    import io
    import pstats

    host = cProfile.Profile()
    host.enable()
    for _ in range(20):
        model(ids, **dparams, n_head=cfg["n_head"])
    cp.cuda.get_current_stream().synchronize()
    host.disable()
    text = io.StringIO()
    pstats.Stats(host, stream=text).sort_stats("tottime").print_stats(12)
    print(text.getvalue())
    return res


def _to_device(cp, tree):
    if isinstance(tree, np.ndarray):
        return cp.asarray(tree)
    if isinstance(tree, dict):
        return {k: _to_device(cp, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_to_device(cp, v) for v in tree)
    return tree


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--ops", type=int, default=49)
    args = ap.parse_args()
    import cupy as cp

    out: dict = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    rng = np.random.default_rng(0)
    sync = cp.cuda.get_current_stream().synchronize

    exe = aicf.compile(sin_program(1024), target="cuda")
    x = cp.asarray(rng.standard_normal(1024, dtype=np.float32))
    y = cp.empty_like(x)
    prog = exe._program
    res = {
        "aicf exe(x)": synced_us(lambda: exe(x), sync),
        "aicf program(x, out)": synced_us(lambda: prog(x, y), sync),
        "cupy.sin(x)": synced_us(lambda: cp.sin(x), sync),
    }
    try:
        import torch

        tx = torch.as_tensor(x, device="cuda")
        tsync = torch.cuda.synchronize
        res["torch.sin(x)"] = synced_us(lambda: torch.sin(tx), tsync)
    except Exception as e:  # torch missing or without CUDA
        res["torch.sin(x)"] = f"n/a ({e})"
    out["synced_call_us"] = res
    for k, v in res.items():
        print(f"synced call, sin 1024 f32: {k:24s} {v if isinstance(v, str) else f'{v:7.1f} us'}")

    chain = aicf.compile(chain_program(args.ops, 4096), target="cuda", fuse=False)
    cprog = chain._program
    xc = cp.asarray(rng.standard_normal(4096, dtype=np.float32))
    yc = cp.empty_like(xc)
    ref = None
    per_call = {}
    for graphs in (False, True):
        cprog.graphs = graphs
        t = bench(lambda: cprog(xc, yc), 15, warmup=20, inner=200) * 1e3
        per_call["graphs on" if graphs else "graphs off"] = t
        got = cp.asnumpy(yc)
        ref = got if ref is None else ref
        assert np.array_equal(got, ref), "graph replay differs from kernel-by-kernel launches"
        print(f"{args.ops}-kernel chain, 4096 f32, graphs {'on ' if graphs else 'off'}: {t:8.1f} us per call "
              f"({t / args.ops:.2f} us per kernel)")
    out["chain_us_per_call"] = per_call
    out["kernels"] = args.ops
    out["gpt2"] = gpt2_forward(cp, rng)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
