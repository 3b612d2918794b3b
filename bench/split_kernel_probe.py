"""Kernel time (GPU only, from the CUDA profiler's activity records) per call of the
split-reduction cases of bench/split_reductions.py: the calls there are host-bound
(~25 us for 2-3 kernels of a few us), so a change in the kernels hides in the host's
drift. Sums each kernel's median time per call (kernel_times.kernel_us). (Session 13's
table, results/2026-11-24-session13-split-adopted-H100.md, took the median of each
call's summed kernels instead; the same in a steady state.)

    python3 bench/split_kernel_probe.py [--calls 50] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from kernel_times import kernel_us  # noqa: E402
from split_reductions import CASES, case_executable  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, op, shape, axis, dt in CASES:
        _, exe, x = case_executable(op, shape, axis, dt, rng)
        per = kernel_us(lambda: exe(x), args.calls)
        us = sum(per.values())
        rows.append({"case": name, "kernel_us": us, "kernels": per})
        print(f"{name:34s} {us:8.2f} us in {len(per)} kernel(s)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
