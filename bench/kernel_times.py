"""The small cases' kernels by device time (CUPTI, through torch's profiler), against
the wall time of back-to-back calls (CUDA events, as bench/run.py measures): where the
wall time is above the kernels' sum, the call is host-bound.

    python3 bench/kernel_times.py [--reps 200]

Cases: softmax 4096x1000 f32 and f16, 32768x512 f16, sum(axis=-1) 3000x3001 f32 and
GEMV 1x4096 @ 4096x4096 f16, each through aicf (the planner's pick) and torch eager.
Inputs are fresh random arrays; each case is warmed up first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402


def softmax(x):
    """The small cases' softmax over the last axis, as aicf ops (for aicf.jit)."""
    import aicf

    e = aicf.ops.exp(x - aicf.ops.reduce_max(x, axis=-1, keepdims=True))
    return e / aicf.ops.reduce_sum(e, axis=-1, keepdims=True)


def rowsum(x):
    import aicf

    return aicf.ops.reduce_sum(x, axis=-1)


def kernel_us(fn, reps: int) -> dict[str, float]:
    """Median device time per call of each kernel name over `reps` back-to-back calls."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    per: dict[str, list[float]] = {}
    for e in prof.events():
        if e.device_type.name == "CUDA" and e.device_time > 0:
            per.setdefault(e.name, []).append(e.device_time)
    return {k: statistics.median(v) * len(v) / reps for k, v in per.items()}


def main() -> int:
    import cupy as cp
    import numpy as np
    import torch

    import aicf

    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    def gemv(x, w):
        return x @ w

    cases = [
        ("softmax 4096x1000 f32", softmax, [(4096, 1000)], np.float32, lambda t: torch.softmax(t[0], dim=-1)),
        ("softmax 4096x1000 f16", softmax, [(4096, 1000)], np.float16, lambda t: torch.softmax(t[0], dim=-1)),
        ("softmax 32768x512 f16", softmax, [(32768, 512)], np.float16, lambda t: torch.softmax(t[0], dim=-1)),
        ("sum(-1) 3000x3001 f32", rowsum, [(3000, 3001)], np.float32, lambda t: torch.sum(t[0], dim=-1)),
        ("GEMV 1x4096x4096 f16", gemv, [(1, 4096), (4096, 4096)], np.float16, lambda t: t[0] @ t[1]),
    ]
    for name, fn, shapes, dt, ref in cases:
        xs = [cp.asarray(rng.standard_normal(s).astype(dt)) for s in shapes]
        ts = [torch.as_tensor(x, device="cuda") for x in xs]
        jf = aicf.jit(target="cuda")(fn)
        jf(*xs)
        exe = jf.executable(*xs)
        rows = []
        for who, call in (("aicf", lambda: exe(*xs)), ("torch", lambda: ref(ts))):
            ks = kernel_us(call, args.reps)
            wall = bench(call, 20) * 1e3
            rows.append((who, wall, sum(ks.values()), ks))
        print(f"== {name}: schedule {[line.strip() for line in exe.explain().splitlines() if '->' in line][:3]}")
        for who, wall, ksum, ks in rows:
            top = ", ".join(f"{k[:40]} {v:.1f}" for k, v in sorted(ks.items(), key=lambda kv: -kv[1])[:3])
            print(f"  {who:6} wall {wall:6.1f} us  kernels {ksum:6.1f} us  [{top}]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
