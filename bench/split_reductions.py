"""Reductions the planner splits over blocks (few outputs, long reductions): the
time per call of aicf's pick against CuPy's and torch's reduction, the kernels it
runs, its error against float64, and the split it chose. Cases whose split leaves a
tail (the reduction extent not a multiple of the split) are included.

    python3 bench/split_reductions.py [--json OUT.json] [--reps 30]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402  (CUDA events around back-to-back calls, medians)

CASES = [
    # (name, op, shape, axis, dtype)
    ("sum(axis=0) 65536x64 f32", "sum", (65536, 64), 0, np.float32),
    ("sum(axis=0) 100003x16 f32", "sum", (100003, 16), 0, np.float32),
    ("sum(axis=0) 262144x8 f16", "sum", (262144, 8), 0, np.float16),
    ("max(axis=-1) 8x1048576 f16", "max", (8, 1048576), -1, np.float16),
    ("sum(axis=-1) 16x1000003 f32", "sum", (16, 1000003), -1, np.float32),
    ("sum(axis=-1) 64x262144 f32", "sum", (64, 262144), -1, np.float32),
    ("sum 4194304 f32", "sum", (4194304,), 0, np.float32),
]


def case_executable(op: str, shape, axis: int, dt, rng):
    """The jitted reduction of a case on the cuda target, its executable and a random
    input."""
    import cupy as cp

    import aicf

    red = aicf.ops.reduce_sum if op == "sum" else aicf.ops.reduce_max
    f = aicf.jit(target="cuda")(lambda x, red=red, axis=axis: red(x, axis=axis))
    x = cp.asarray(rng.standard_normal(shape).astype(dt))
    return f, f.executable(x), x


def main() -> int:
    import cupy as cp
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, op, shape, axis, dt in CASES:
        f, exe, x = case_executable(op, shape, axis, dt, rng)
        t = torch.as_tensor(x, device="cuda")
        y = f(x)
        ref = getattr(np, op)(cp.asnumpy(x).astype(np.float64), axis=axis)
        err = float(np.max(np.abs(cp.asnumpy(y).astype(np.float64) - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        ours = bench(lambda: exe(x), args.reps)
        cupy = bench(lambda: getattr(cp, op)(x, axis=axis), args.reps)
        tref = bench((lambda: torch.sum(t, dim=axis)) if op == "sum" else (lambda: torch.amax(t, dim=axis)), args.reps)
        kernels = [ln.strip() for ln in exe.explain().splitlines() if "gpu." in ln]
        row = {"case": name, "ms": ours, "cupy_ms": cupy, "torch_ms": tref, "rel_err": err,
               "steps": len(exe._program._plan[1]) if exe._program._plan else None, "schedule": kernels[:1]}
        rows.append(row)
        print(f"{name:32s} {ours * 1e3:8.1f} us  cupy {cupy * 1e3:8.1f} ({cupy / ours:4.2f}x)  torch {tref * 1e3:8.1f} "
              f"({tref / ours:4.2f}x)  err {err:.1e}  {kernels[0][:90] if kernels else '-'}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
