"""Times variants of the per-output elementwise schedule (AICF_PER_OUTPUT_OVERRIDE)
on the issue-4 chain and on sin(1.7x+0.3), 2^28 f32, against torch.compile and the
copy floor, in one process (CUDA events, warm-up, median; bench/run.py's bench()).
Prints predicted (the cost model's estimate) vs measured per variant.

    python3 bench/elementwise_variants.py [--out DIR] [--no-torch-compile]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import CHAIN, bench, compile_text, sin_program, ulp_f32  # noqa: E402

VARIANTS = [
    "default",
    "unroll=1,block=256,grid=1056,minblocks=4",  # the schedule before this change
    "unroll=1,block=256,grid_kind=stride",
    "unroll=2,block=256,grid_kind=stride",
    "unroll=4,block=256,grid_kind=stride",
    "unroll=8,block=256,grid_kind=stride",
    "unroll=4,block=128,grid_kind=stride",
    "unroll=8,block=128,grid_kind=stride",
    "unroll=4,block=512,grid_kind=stride",
    "unroll=2,block=256,grid_kind=once",
    "unroll=4,block=256,grid_kind=once",
    "unroll=2,block=128,grid_kind=once",
]


def main() -> int:
    import cupy as cp

    import aicf

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-torch-compile", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = 2**28
    x = cp.asarray(rng.standard_normal(n, dtype=np.float32))
    y = cp.empty_like(x)
    res: dict = {"copy": bench(lambda: cp.copyto(y, x), args.reps)}
    print(f"copy floor {res['copy']:.4f} ms", flush=True)
    k = 1 << 22
    xh = cp.asnumpy(x[:k]).astype(np.float64)
    a32, b32 = float(np.float32(1.7)), float(np.float32(0.3))
    chain_ref = np.tanh(np.sin(a32 * xh + b32) * xh + 1.0) * 0.5
    xu = cp.asarray(rng.uniform(-100, 100, n).astype(np.float32))
    xuh = cp.asnumpy(xu[:k]).astype(np.float64)
    arg_fma = (a32 * xuh + b32).astype(np.float32).astype(np.float64)
    arg_sep = ((a32 * xuh).astype(np.float32).astype(np.float64) + b32).astype(np.float32).astype(np.float64)
    sin_refs = (np.sin(arg_fma), np.sin(arg_sep))

    def sched(src: str) -> tuple[str, float]:
        m = re.search(r"// \w+: (per-output [^\n]*?) est=([0-9.]+)us", src)
        return (m.group(1), float(m.group(2)) / 1e3) if m else ("?", float("nan"))

    rows = []
    for case in ("sin", "chain"):
        for ov in VARIANTS:
            if ov == "default":
                os.environ.pop("AICF_PER_OUTPUT_OVERRIDE", None)
            else:
                os.environ["AICF_PER_OUTPUT_OVERRIDE"] = ov
            try:
                if case == "sin":
                    prog = compile_text(sin_program(n) + f"\n// {ov}\n")
                    src = prog.source
                    out = cp.full(n, np.nan, dtype=np.float32)
                    prog(xu, out)
                    d = np.minimum(ulp_f32(cp.asnumpy(out[:k]), sin_refs[0]), ulp_f32(cp.asnumpy(out[:k]), sin_refs[1]))
                    check = {"max_ulp": int(d.max()), "unwritten": int(cp.isnan(out).sum())}
                    fn = lambda prog=prog, out=out: prog(x, out)  # noqa: E731
                else:
                    exe = aicf.compile(CHAIN.format(n=n) + f"\n// {ov}\n", target="cuda")
                    src = getattr(getattr(exe, "_program", exe), "source", "")
                    out = exe(x)
                    check = {"max_abs_err": float(np.abs(cp.asnumpy(out[:k]).astype(np.float64) - chain_ref).max()),
                             "unwritten": int(cp.isnan(out).sum())}
                    fn = lambda exe=exe: exe(x)  # noqa: E731
                ms = bench(fn, args.reps)
                desc, pred = sched(src)
                r = {"case": case, "variant": ov, "schedule": desc, "pred_ms": pred, "ms": ms, **check}
            except Exception as e:  # noqa: BLE001
                r = {"case": case, "variant": ov, "error": repr(e)[:300]}
            rows.append(r)
            print(json.dumps(r), flush=True)
            del out
        os.environ.pop("AICF_PER_OUTPUT_OVERRIDE", None)
    # the default again: the spread between two timings of one version
    prog = compile_text(sin_program(n))
    res["sin_default_again"] = bench(lambda: prog(x, y), args.reps)
    if not args.no_torch_compile:
        try:
            import torch

            tx = torch.as_tensor(x, device="cuda")
            f = torch.compile(lambda t: torch.sin(1.7 * t + 0.3))
            f(tx)
            res["torch_compile_sin"] = bench(lambda: f(tx), args.reps)
            g = torch.compile(lambda t: torch.tanh(torch.sin(1.7 * t + 0.3) * t + 1) * 0.5)
            g(tx)
            res["torch_compile_chain"] = bench(lambda: g(tx), args.reps)
        except Exception as e:  # noqa: BLE001
            print(f"torch.compile failed: {e}", flush=True)
    print(json.dumps(res), flush=True)
    print("\n| case | variant | schedule | predicted ms | measured ms | vs torch.compile | check |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if "error" in r:
            print(f"| {r['case']} | {r['variant']} | error: {r['error'][:80]} | | | | |")
            continue
        tc = res.get(f"torch_compile_{r['case']}")
        ratio = f"{tc / r['ms']:.3f}x" if tc else "-"
        chk = ", ".join(f"{k}={r[k]:.3g}" if isinstance(r[k], float) else f"{k}={r[k]}"
                        for k in ("max_ulp", "max_abs_err", "unwritten") if k in r)
        print(f"| {r['case']} | {r['variant']} | {r['schedule']} | {r['pred_ms']:.3f} | {r['ms']:.4f} | {ratio} | {chk} |")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "elementwise_variants.json").write_text(json.dumps({"refs": res, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
