"""The flash kernel (gpu.flash_attention, forced: on Hopper the wgmma one) against
torch's scaled_dot_product_attention, f16, in one run: CUDA events around
back-to-back calls, medians, fresh random inputs (bench/run.py's bench). Issue 11's
bars: 0.7x SDPA at head dim 128, 0.6x at 64, 0.6x at sequences 1000 and 4097.

    python3 bench/flash_attention.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

import aicf

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402

SHAPES = [(8, 16, 4096, 128), (8, 16, 4096, 64), (8, 16, 1000, 128), (8, 16, 4097, 128), (8, 12, 1024, 64),
          (1, 12, 1024, 64)]


def program(b, h, s, d, causal):
    t = f"tensor<{b}x{h}x{s}x{d}xf16>"
    flag = " causal" if causal else ""
    return (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = aicf_tensor.attention %q, %k, %v scale = {1 / math.sqrt(d)!r}{flag} : ({t}, {t}, {t}) -> {t}\n"
            f"  func.return %o : {t}\n}}\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--shapes", type=int, nargs="*", help="indices into SHAPES (default: all)")
    args = ap.parse_args()
    import cupy as cp
    import torch
    import torch.nn.functional as F

    rows = []
    for b, h, s, d in [SHAPES[i] for i in args.shapes] if args.shapes else SHAPES:
        for causal in (False, True):
            src = program(b, h, s, d, causal)
            t0 = time.perf_counter()
            flash = aicf.compile(src, target="cuda", force="gpu.flash_attention")
            print(f"{b}x{h}x{s}x{d} causal={causal}: compiled in {time.perf_counter() - t0:.1f} s", flush=True)
            q, k, v = (cp.asarray(np.random.default_rng(i).standard_normal((b, h, s, d)).astype(np.float16))
                       for i in range(3))
            tq, tk, tv = (torch.as_tensor(x, device="cuda") for x in (q, k, v))
            ref = F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
            got = torch.as_tensor(flash(q, k, v), device="cuda")
            err = float((got.float() - ref.float()).norm() / ref.float().norm())
            t = {"flash": bench(lambda: flash(q, k, v), 15, warmup=5, inner=10),
                 "torch sdpa": bench(lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal),
                                     15, warmup=5, inner=10)}
            flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
            kernel = "wgmma" if "mma=wgmma" in flash.explain() else "mma_sync"
            row = {"shape": [b, h, s, d], "causal": causal, "kernel": kernel, "rel_err_vs_sdpa": err,
                   **{f"{k}_ms": v for k, v in t.items()},
                   **{f"{k}_tflops": flops / (v * 1e-3) / 1e12 for k, v in t.items()},
                   "flash_vs_sdpa": t["torch sdpa"] / t["flash"]}
            rows.append(row)
            print(f"{b}x{h}x{s}x{d} causal={causal}: flash ({kernel}) {t['flash']:.3f} ms ({row['flash_tflops']:.0f} TFLOP/s), "
                  f"sdpa {t['torch sdpa']:.3f} ms "
                  f"({row['torch sdpa_tflops']:.0f}); flash/sdpa speed {row['flash_vs_sdpa']:.2f}x; "
                  f"rel err {err:.1e}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
