"""The portable tensor-core matmul (`gpu.mma_sync`, issue 8) against `gpu.wgmma` and
cuBLAS (cupy.matmul), f16, on the GPU at hand (on Hopper, mma.sync runs at a lower
share of the peak than wgmma; on an A100 wgmma does not exist and its column says so).

    python3 bench/mma_sync.py [--out DIR] [--reps N]

Times: CUDA-event medians (bench/run.py's `bench`: warm-up, then `reps` samples of
10 back-to-back calls between two events). Inputs: fresh standard-normal values per
case. Accuracy: the relative error (Frobenius) of each of our outputs against float64
NumPy over a sample of 64 rows. The planner's own mma.sync point is timed, and the
best of the top 6 points of its space (what aicf-tune would keep).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import bench, compile_text  # noqa: E402
from tensor_core import program  # noqa: E402

CASES = [
    # (label, m, n, k)
    ("4096^3 f16", 4096, 4096, 4096),
    ("1000^3 f16", 1000, 1000, 1000),
    ("8192x3072x768 f16", 8192, 3072, 768),
]


def _space_top(text: str, top: int):
    """The `top` cheapest mma.sync schedules of the nest (aicf-tune's candidates)."""
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.loop import NestOp
    from aicf.passes.loop import candidates as cands
    from aicf.target import resolve_gpu_target

    mod = parse_module(make_context(), text, "<bench>")
    fn = next(o for o in mod.ops if o.name == "func.func")
    nest = next(o for o in fn.walk() if isinstance(o, NestOp))
    space = cands.gpu_space(fn, nest, resolve_gpu_target("gpu"), top_tier_only=False).get("gpu.mma_sync", [])
    return [s for s, _ in sorted(space, key=lambda x: x[1])[:top]]


def _with_schedule(text: str, s) -> str:
    attrs = ", ".join(f"{k} = {v}" for k, v in s.params.items() if k not in ("est_ns", "why"))
    return text.replace("combiners = [add] {", f'combiners = [add] attrs = {{aicf.schedule = {{kind = "{s.kind}", {attrs}}}}} {{')


def main(argv=None) -> int:
    import cupy as cp

    from aicf.backend.cuda.program import compile_cuda
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--top", type=int, default=6, help="mma.sync points of the space timed (0: the planner's only)")
    args = ap.parse_args(argv)
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for label, m, n, k in CASES:
        a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
        text = program(1, m, n, k, "f16")
        flops = 2 * m * n * k
        reps = args.reps if flops > 1e11 else 2 * args.reps
        row: dict = {"case": label}
        rs = slice(0, min(m, 64))
        ref = a[rs].astype(cp.float64).get() @ b.astype(cp.float64).get()

        def timed(prog):
            c = prog(a, b)
            cp.cuda.Device().synchronize()
            err = float(np.linalg.norm(c[rs].astype(cp.float64).get() - ref) / np.linalg.norm(ref))
            return bench(lambda: prog(a, b, c), reps=reps), err

        for name, force in (("mma_sync", "gpu.mma_sync"), ("wgmma", "gpu.wgmma")):
            try:
                prog = compile_text(text, force)
                if force.split(".")[1] not in prog.source:
                    raise RuntimeError(f"{force} does not apply here")
                row[f"{name}_ms"], row[f"{name}_rel_err"] = timed(prog)
                row[f"{name}_schedule"] = next(
                    (ln.split(": ", 1)[1] for ln in prog.source.splitlines() if ln.startswith("// ") and force in ln), "")
            except Exception as e:  # wgmma on an A100
                row[f"{name}_ms"], row[f"{name}_error"] = None, str(e).splitlines()[0][:200]
        best = None
        for s in _space_top(text, args.top):
            prog = compile_cuda(parse_module(make_context(), _with_schedule(text, s), "<bench>"), "main", sync="none")
            ms, err = timed(prog)
            if best is None or ms < best[0]:
                best = (ms, err, s.describe(with_estimate=False))
        if best is not None:
            row["mma_sync_best_ms"], row["mma_sync_best_rel_err"], row["mma_sync_best_schedule"] = best
        row["cublas_ms"] = bench(lambda: cp.matmul(a, b), reps=reps)
        for key in [k_ for k_ in list(row) if k_.endswith("_ms")]:
            if row[key]:
                row[key.replace("_ms", "_tflops")] = round(flops / (row[key] * 1e-3) / 1e12, 1)
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d")
    path = out / f"{stamp}-mma-sync-{gpu.replace(' ', '-')}.json"
    path.write_text(json.dumps({"gpu": gpu, "rows": rows}, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
