"""Where the host time of the small cases' calls goes (issue 7's host-bound bars):
for softmax 4096x1000 f32/f16, softmax 32768x512 f16 and sum(axis=-1) 3000x3001, the
launch plan the call takes (one direct launch, a few, or CuPy's), the host time per
call of the executable, its program and torch's op (back-to-back calls without a sync,
medians), the wall time per call (CUDA events), and the top of a cProfile of aicf's
calls.

    python3 bench/call_breakdown.py [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from call_path import host_us  # noqa: E402
from kernel_times import rowsum, softmax  # noqa: E402  (the same cases' functions)
from run import bench  # noqa: E402


def main() -> int:
    import cupy as cp
    import torch

    import aicf

    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    cases = [
        ("softmax 4096x1000 f32", softmax, (4096, 1000), np.float32, lambda t: torch.softmax(t, dim=-1)),
        ("softmax 4096x1000 f16", softmax, (4096, 1000), np.float16, lambda t: torch.softmax(t, dim=-1)),
        ("softmax 32768x512 f16", softmax, (32768, 512), np.float16, lambda t: torch.softmax(t, dim=-1)),
        ("sum(-1) 3000x3001 f32", rowsum, (3000, 3001), np.float32, lambda t: torch.sum(t, dim=-1)),
    ]
    sync = cp.cuda.get_current_stream().synchronize
    for name, fn, shape, dt, ref in cases:
        x = cp.asarray(rng.standard_normal(shape).astype(dt))
        t = torch.as_tensor(x, device="cuda")
        jf = aicf.jit(target="cuda")(fn)
        jf(x)
        exe = jf.executable(x)
        prog = exe._program
        exe(x)
        plan = prog._plan
        single, direct = (plan[4], plan[5]) if plan else (None, None)
        d = single[-1] if single is not None else direct
        kind = ("single" if single is not None else "few" if direct is not None else "cupy") + (
            f", direct ready={d.ready()}" if d is not None else ", no direct")
        steps = [st[0] for st in plan[1]] if plan else None
        print(f"== {name}: plan {kind}, steps {steps}, fast call {prog._fast is not None}", flush=True)
        rows = {
            "jit f(x)": (lambda: jf(x), sync),
            "exe(x)": (lambda: exe(x), sync),
            "program(x)": (lambda: prog(x), sync),
            "torch": (lambda: ref(t), torch.cuda.synchronize),
        }
        for k, (f, s) in rows.items():
            h = host_us(f, s, calls=2000, reps=5)
            w = bench(f, 20) * 1e3
            print(f"  {k:12s} host {h:6.2f} us   wall {w:6.2f} us", flush=True)
        # the bar: wall per call against torch's, interleaved in rounds so that the
        # lent host's drift (30-50% between minutes) falls on both alike
        rounds = []
        for _ in range(9):
            a = bench(lambda: exe(x), 20)
            r = bench(lambda: ref(t), 20)
            rounds.append(r / a)
        rounds.sort()
        print(f"  torch/aicf wall, 9 interleaved rounds: median {rounds[4]:.3f} "
              f"(min {rounds[0]:.3f}, max {rounds[-1]:.3f})", flush=True)
        if args.profile:
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(20000):
                exe(x)
            pr.disable()
            sync()
            out = io.StringIO()
            pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(12)
            print(out.getvalue()[-2500:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
