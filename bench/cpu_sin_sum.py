"""sum(sin(1.7*x + 0.3), axis=-1) on a 4096x4096 f32 input: aicf's cpu target vs NumPy.

    python bench/cpu_sin_sum.py [--repeat N]

Both run on the same random input; each time is the median of N runs (after one
warm-up run each). Prints both times and the ratio NumPy / aicf (> 1: aicf is faster).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import aicf

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sin_sum.mlir"


def median_time(fn, repeat: int) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    x = np.random.default_rng(0).standard_normal((4096, 4096), dtype=np.float32)
    exe = aicf.compile(EXAMPLE, target="cpu")
    a, b = np.float32(1.7), np.float32(0.3)
    out = exe(x)
    ref = np.sin(1.7 * x.astype(np.float64) + 0.3).sum(axis=-1)
    rel = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    t_aicf = median_time(lambda: exe(x), args.repeat)
    t_np = median_time(lambda: np.sin(a * x + b).sum(axis=-1), args.repeat)
    print(f"sum(sin(1.7x+0.3), axis=-1), x: 4096x4096 f32, {os.cpu_count()} cpus, "
          f"median of {args.repeat}")  # fmt: skip
    print(f"  aicf cpu : {t_aicf * 1e3:8.2f} ms   (rel err vs float64 {rel:.1e})")
    print(f"  numpy    : {t_np * 1e3:8.2f} ms")
    print(f"  ratio numpy/aicf: {t_np / t_aicf:.2f}x")


if __name__ == "__main__":
    main()
