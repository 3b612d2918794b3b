"""The wgmma epilogue's two ways to store C (issue 8, GPT-2's logits in issue 11):
`store = "fragment"` (each thread's accumulators where they lie: column pairs where C's
rows allow them, single elements scattered over 8 rows a warp where they do not) and
`store = "smem"` (staged through shared memory, rows stored by whole warps), on the
same tile configuration, beside the cost model's prediction and cuBLAS through torch
on the same inputs, in one run.

    python3 bench/wgmma_store.py [--json OUT.json]

Times: CUDA-event medians (bench/run.py's `bench`); fresh standard-normal inputs per
shape. The first row of each output is checked against float64 NumPy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402

# (label, m, n, k, B stored N x K)
SHAPES = [
    ("4096^3", 4096, 4096, 4096, False),
    ("GPT-2 logits 8192x50257x768", 8192, 50257, 768, True),
    ("8192x50264x768 (N padded)", 8192, 50264, 768, True),
    ("GPT-2 MLP up 8192x3072x768", 8192, 3072, 768, True),
    ("4096x4096x64", 4096, 4096, 64, False),
]


def program(m: int, n: int, k: int, b_t: bool, params: str) -> str:
    bt = f"memref<{n}x{k}xf16>" if b_t else f"memref<{k}x{n}xf16>"
    bmap = "(dn, dk)" if b_t else "(dk, dn)"
    return f"""
func.func @main(%a: memref<{m}x{k}xf16>, %b: {bt}, %c: memref<{m}x{n}xf16>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{m}, {n}, {k}] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<{m}x{k}xf16>, {bt}) outs(%c : memref<{m}x{n}xf16>)
      maps = [(dm, dn, dk) -> (dm, dk), (dm, dn, dk) -> {bmap}, (dm, dn, dk) -> (dm, dn)] combiners = [add]
      attrs = {{aicf.schedule = {{kind = "gpu.wgmma", {params}}}}} {{
    ^bb0(%x: f16, %w: f16):
      %xf = arith.extf %x : f16 to f32
      %wf = arith.extf %w : f16 to f32
      %p = arith.mulf %xf, %wf : f32
      aicf_loop.yield %p : f32
  }}
  func.return
}}"""


def main() -> int:
    import cupy as cp
    import torch

    from aicf.backend.cuda.program import compile_cuda
    from aicf.context import make_context
    from aicf.cost.tensor_core import estimate
    from aicf.diagnostics import parse_module
    from aicf.lowering.gpu_schedules.wgmma_space import TmaOperand, WgmmaConfig, WgmmaProblem
    from aicf.target import H100

    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for label, m, n, k, b_t in SHAPES:
        a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((n, k) if b_t else (k, n), dtype=cp.float32).astype(cp.float16)
        ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
        mm = (lambda: ta @ tb.T) if b_t else (lambda: ta @ tb)
        row = {"case": label, "gpu": gpu, "torch_ms": bench(mm, reps=15)}
        bop = TmaOperand("k", (1, 0), (2, 1)) if b_t else TmaOperand("mn", (1, 0), (1, 2))
        prob = WgmmaProblem((), (), m, n, k, "f16", TmaOperand("k", (1, 0), (2, 0)), bop)
        scalar = n % 2 == 1
        ref_row = a[:1].get().astype(np.float64) @ (b.get().astype(np.float64).T if b_t else b.get().astype(np.float64))
        for store in ("fragment", "smem"):
            for grid in (None, H100.num_sms):
                c = WgmmaConfig(128, 256, 64, 4, store=store)
                tiles = c.tiles(prob)
                if grid and grid >= tiles:
                    continue
                est = estimate(c, prob, H100, 2, persistent=bool(grid), scalar_stores=scalar)
                params = f'bm = 128, bn = 256, bk = 64, stages = 4, store = "{store}"' + (f", grid = {grid}" if grid else "")
                prog = compile_cuda(parse_module(make_context(), program(m, n, k, b_t, params), "<store>"), "main",
                                    sync="none")
                out = prog(a, b)
                cp.cuda.Device().synchronize()
                got = out[:1].get().astype(np.float64)
                err = float(np.linalg.norm(got - ref_row) / np.linalg.norm(ref_row))
                ms = bench(lambda: prog(a, b, out), reps=15)
                key = f"{store}{'_persistent' if grid else ''}"
                row[f"{key}_ms"] = ms
                row[f"{key}_predicted_ms"] = round(est.total * 1e3, 4)
                row[f"{key}_rel_err"] = err
                row[f"{key}_vs_torch"] = round(row["torch_ms"] / ms, 3)
                del out
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
