"""Kernel time (GPU only, from the CUDA profiler's activity records) per call of the
split-reduction cases of bench/split_reductions.py: the calls there are host-bound
(~25 us for 2-3 kernels of a few us), so a change in the kernels hides in the host's
drift. Sums the kernels of one call (median over calls).

    python3 bench/split_kernel_probe.py [--calls 50] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from split_reductions import CASES  # noqa: E402


def kernel_us(fn, calls: int) -> tuple[float, int]:
    """Median over calls of the summed kernel time of one call (us), and kernels a call."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    ks = sorted((e for e in prof.events() if e.device_type.name == "CUDA"), key=lambda e: e.time_range.start)
    per = max(1, round(len(ks) / calls))
    sums = [sum(e.time_range.elapsed_us() for e in ks[i:i + per]) for i in range(0, len(ks) - per + 1, per)]
    return float(np.median(sums)), per


def main() -> int:
    import cupy as cp

    import aicf

    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, op, shape, axis, dt in CASES:
        red = aicf.ops.reduce_sum if op == "sum" else aicf.ops.reduce_max
        f = aicf.jit(target="cuda")(lambda x, red=red, axis=axis: red(x, axis=axis))
        x = cp.asarray(rng.standard_normal(shape).astype(dt))
        exe = f.executable(x)
        us, n = kernel_us(lambda: exe(x), args.calls)
        rows.append({"case": name, "kernel_us": us, "kernels": n})
        print(f"{name:34s} {us:8.2f} us in {n} kernel(s)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
