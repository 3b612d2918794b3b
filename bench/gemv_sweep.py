"""GEMV (1xK @ KxN): the per_output schedule (each thread `vec` adjacent outputs; the
k loop shared by `slices` threads of a block folding through shared memory, and/or
split `split` ways over blocks with a combine pass) and the wgmma kernel with split-K,
swept over their parameters, against cuBLAS, the planner's pick and the copy floor,
in one run.

    python3 bench/gemv_sweep.py [--dtype f16] [--shapes 4096x4096,768x3072] [--top 8]

Each shape is K x N. Prints, per shape: the read floor (half a device-to-device copy
of W, the one array a GEMV must read), cuBLAS, the planner's pick with its predicted
time, then the best measured points of each sweep with their predicted times (the
model prices every point of the per_output space, so the two can be compared).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from calibrate import case_op  # noqa: E402
from run import bench  # noqa: E402


def main() -> None:
    import cupy as cp

    import aicf
    from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule

    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="f16")
    ap.add_argument("--shapes", default="4096x4096,768x3072,3072x768")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--wgmma", action="store_true", help="also sweep the wgmma kernel's split")
    ap.add_argument("--split", action="store_true", help="also sweep the two-kernel split of per_output")
    a = ap.parse_args()
    dt = a.dtype
    npdt = {"f16": np.float16, "f32": np.float32, "bf16": None}[dt]
    for shape in a.shapes.split(","):
        k, n = (int(v) for v in shape.split("x"))
        text = (f"func.func @main(%a: tensor<1x{k}x{dt}>, %b: tensor<{k}x{n}x{dt}>) -> tensor<1x{n}x{dt}> {{\n"
                f"  %c = aicf_tensor.matmul %a, %b : (tensor<1x{k}x{dt}>, tensor<{k}x{n}x{dt}>) -> tensor<1x{n}x{dt}>\n"
                f"  func.return %c : tensor<1x{n}x{dt}>\n}}")
        base, fn, op = case_op(text)
        idx = [*fn.walk()].index(op)
        rng = np.random.default_rng(0)
        x = cp.asarray(rng.standard_normal((1, k)).astype(npdt))
        w = cp.asarray(rng.standard_normal((k, n)).astype(npdt))
        ref = cp.asnumpy(x).astype(np.float64) @ cp.asnumpy(w).astype(np.float64)
        nbytes = k * n * np.dtype(npdt).itemsize
        y = cp.empty_like(w)
        floor = bench(lambda: cp.copyto(y, w), 15) / 2  # the copy reads and writes; GEMV reads W once
        cublas = bench(lambda: x @ w, 15)
        pick = aicf.compile(text, target="cuda")
        pick(x, w)
        pick_ms = bench(lambda: pick(x, w), 15)
        print(f"GEMV 1x{k} @ {k}x{n} {dt}: read floor {floor * 1e3:.1f} us, cuBLAS {cublas * 1e3:.1f} us, "
              f"pick {pick_ms * 1e3:.1f} us ({floor / pick_ms:.2f} of floor)", flush=True)
        for line in pick.explain().splitlines()[:3]:
            print("   ", line)

        def timed(sched: Schedule):
            mod = base.clone()
            mop = [*next(o for o in mod.ops if o.name == "func.func").walk()][idx]
            mop.attributes[SCHEDULE_ATTR] = sched.to_attr()
            try:
                exe = aicf.compile(mod, target="cuda")
                out = exe(x, w)
                err = float(np.abs(cp.asnumpy(out).astype(np.float64) - ref).max() / np.abs(ref).max())
                exes[sched.describe(False)] = exe
                return bench(lambda: exe(x, w), 15), err
            except Exception as e:
                print(f"  {sched.describe(False)}: failed: {str(e).splitlines()[0][:150]}", flush=True)
                return None

        rows = []
        exes: dict = {}
        comb = {"vec": 4, "block": 256, "grid": max(1, n // 1024), "split": 1, "unroll": 4, "minblocks": 4}
        for vec, block, slices, split, unroll in itertools.product((2, 4, 8), (128, 256, 512), (8, 16, 32, 64),
                                                                   (1,), (4, 8)):
            gb = block // slices
            if n % vec or (n // vec) % gb:
                continue
            params = {"vec": vec, "block": block, "grid": (n // vec) // gb, "split": split, "unroll": unroll,
                      "minblocks": 2048 // block // 2, "slices": slices}
            if split > 1:
                params["combine"] = Schedule("gpu.per_output", comb)
            sched = Schedule("gpu.per_output", params)
            r = timed(sched)
            if r:
                rows.append((r[0], sched.describe(False), r[1]))
        for vec, block, split, unroll in itertools.product((2, 4), (128, 256), (16, 32, 64), (4, 8)) if a.split else ():
            if n % vec or (n // vec) < block // 4:
                continue
            grid = max(1, n // (vec * block))
            sched = Schedule("gpu.per_output", {"vec": vec, "block": block, "grid": grid, "split": split,
                                                "unroll": unroll, "minblocks": 4,
                                                "combine": Schedule("gpu.per_output", comb)})
            r = timed(sched)
            if r:
                rows.append((r[0], sched.describe(False), r[1]))
        if a.wgmma:
            for split in (2, 4, 8, 16, 32):
                comb = {"vec": 4, "block": 256, "grid": max(1, n // 1024), "split": 1, "unroll": 4, "minblocks": 4}
                sched = Schedule("gpu.wgmma", {"bm": 64, "bn": 64, "bk": 64, "stages": 4, "group_m": 8,
                                               "producer_regs": 40, "consumer_regs": 232, "split": split,
                                               "combine": Schedule("gpu.per_output", comb)})
                r = timed(sched)
                if r:
                    rows.append((r[0], sched.describe(False), r[1]))
        rows.sort(key=lambda r: r[0])
        try:
            from kernel_times import kernel_us
        except ImportError:  # no torch: wall times only
            kernel_us = None
        for i, (ms, d, err) in enumerate(rows[:a.top]):
            kern = ""
            if kernel_us is not None and i < 5:
                exe = exes[d]
                kern = f"  kernels {sum(kernel_us(lambda: exe(x, w), 100).values()):5.1f} us"
            print(f"  {ms * 1e3:7.1f} us  {nbytes / ms / 1e6:6.0f} GB/s  {floor / ms:5.2f} of floor  err {err:.1e}{kern}  {d}",
                  flush=True)
        if kernel_us is not None:
            print(f"  kernels: pick {sum(kernel_us(lambda: pick(x, w), 100).values()):.1f} us, "
                  f"cuBLAS {sum(kernel_us(lambda: x @ w, 100).values()):.1f} us", flush=True)


if __name__ == "__main__":
    main()
