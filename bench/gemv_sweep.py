"""GEMV 1xK @ KxN on the CUDA cores: the per_output schedule (each thread `vec`
adjacent outputs, the k loop split `split` ways, a combine pass) swept over its
parameters, against cuBLAS and the copy floor, in one run.

    python3 bench/gemv_sweep.py [--dtype f16] [--k 4096] [--n 4096]
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
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    a = ap.parse_args()
    dt, k, n = a.dtype, a.k, a.n
    npdt = {"f16": np.float16, "f32": np.float32}[dt]
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
    copy = bench(lambda: cp.copyto(y, w), 15)
    floor = copy / 2  # the copy reads and writes; GEMV reads W once
    cublas = bench(lambda: x @ w, 15)
    print(f"GEMV 1x{k} @ {k}x{n} {dt}: read floor {floor * 1e3:.1f} us, cuBLAS {cublas * 1e3:.1f} us", flush=True)
    rows = []
    for vec, block, split, unroll in itertools.product((2, 4), (128, 256), (16, 32, 64, 128), (4, 8)):
        if n % (vec * block) and (n // vec) < block:
            continue
        grid = max(1, n // (vec * block))
        comb = {"vec": 4, "block": 256, "grid": max(1, n // 1024), "split": 1, "unroll": 4, "minblocks": 4}
        sched = Schedule("gpu.per_output", {"vec": vec, "block": block, "grid": grid, "split": split,
                                            "unroll": unroll, "minblocks": 4,
                                            "combine": Schedule("gpu.per_output", comb)})
        mod = base.clone()
        mop = [*next(o for o in mod.ops if o.name == "func.func").walk()][idx]
        mop.attributes[SCHEDULE_ATTR] = sched.to_attr()
        try:
            exe = aicf.compile(mod, target="cuda")
            out = exe(x, w)
            err = float(np.abs(cp.asnumpy(out).astype(np.float64) - ref).max() / np.abs(ref).max())
            ms = bench(lambda: exe(x, w), 15)
        except Exception as e:
            print(f"  {sched.describe(False)}: failed: {str(e).splitlines()[0][:150]}", flush=True)
            continue
        rows.append((ms, sched.describe(False), err))
    rows.sort()
    for ms, d, err in rows[:8]:
        print(f"  {ms * 1e3:7.1f} us  {nbytes / ms / 1e6:6.0f} GB/s  {floor / ms:5.2f} of floor  err {err:.1e}  {d}")


if __name__ == "__main__":
    main()
