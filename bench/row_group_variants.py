"""Times variants of the row-group schedule (AICF_ROW_GROUP_OVERRIDE) on softmax
8192x8192 and layer norm 16384x4096 f32, against torch.compile and the copy floor, in
one process (CUDA events, warm-up, median: bench/run.py's bench()). Prints predicted
(the cost model's estimate) vs measured per variant, the rel err against float64 and
the count of unwritten (NaN-poisoned) outputs.

    python3 bench/row_group_variants.py [--out DIR] [--no-torch-compile]
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
from run import LAYERNORM, SOFTMAX, bench  # noqa: E402

# the schedules before pipelining (the last bench/run.py), first and last: their spread
OLD = {"softmax": "mode=block,block=256,launch=stride,pipeline=0",
       "layernorm": "mode=block,block=128,launch=stride,pipeline=0"}
VARIANTS = [
    "old",
    "default",
    "mode=block,block=256,pipeline=1",
    "mode=block,block=1024,pipeline=1",
    "mode=block,block=512,pipeline=1",
    "mode=block,block=256,launch=once",
    "mode=block,block=128,launch=once",
    "mode=block,block=512,launch=once",
    "mode=block,block=512,launch=stride,pipeline=0",
    "old",
]


def main() -> int:
    import cupy as cp

    import aicf

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--no-torch-compile", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = 2**27
    a = cp.asarray(rng.standard_normal(n, dtype=np.float32))
    b = cp.empty_like(a)
    res: dict = {"copy_512MiB": bench(lambda: cp.copyto(b, a), args.reps)}
    print(f"copy floor (512 MiB moved) {res['copy_512MiB']:.4f} ms", flush=True)
    del a, b

    def softmax64(x):
        e = cp.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm64(x):
        mu = x.mean(axis=-1, keepdims=True)
        return (x - mu) / cp.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5)

    cases = [("softmax", SOFTMAX, 8192, 8192, softmax64),
             ("layernorm", LAYERNORM, 16384, 4096, layernorm64)]
    rows = []
    for case, text, R, C, ref64 in cases:
        xs = cp.asarray((rng.standard_normal((R, C), dtype=np.float32) * 3 + 0.5).astype(np.float32))
        ref = ref64(xs.astype(cp.float64))
        for ov in VARIANTS:
            want = OLD[case] if ov == "old" else ov
            if ov == "default":
                os.environ.pop("AICF_ROW_GROUP_OVERRIDE", None)
            else:
                os.environ["AICF_ROW_GROUP_OVERRIDE"] = want
            try:
                src_text = text.format(R=R, C=C) + f"\n// {want} {len(rows)}\n"
                chk = aicf.compile(src_text, target="cuda", debug=True)  # NaN-poisoned outputs
                out = chk(xs)
                unwritten = int(cp.isnan(out).sum())
                err = float(cp.linalg.norm(out.astype(cp.float64) - ref) / cp.linalg.norm(ref))
                del out, chk
                exe = aicf.compile(src_text, target="cuda")
                src = getattr(getattr(exe, "_program", exe), "source", "")
                m = re.search(r"// \w+: (row-group [^\n]*?) est=([0-9.]+)us", src)
                desc, pred = (m.group(1), float(m.group(2)) / 1e3) if m else ("?", float("nan"))
                ms = bench(lambda exe=exe: exe(xs), args.reps)
                r = {"case": case, "variant": ov, "schedule": desc, "pred_ms": pred, "ms": ms,
                     "rel_err": err, "unwritten": unwritten}
            except Exception as e:  # noqa: BLE001
                r = {"case": case, "variant": ov, "error": repr(e)[:300]}
            rows.append(r)
            print(json.dumps(r), flush=True)
        os.environ.pop("AICF_ROW_GROUP_OVERRIDE", None)
        if not args.no_torch_compile:
            try:
                import torch

                tx = torch.as_tensor(xs, device="cuda")
                fn = (lambda t: torch.softmax(t, dim=-1)) if case == "softmax" else (
                    lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=1e-5))
                f = torch.compile(fn)
                f(tx)
                res[f"torch_compile_{case}"] = bench(lambda: f(tx), args.reps)
                res[f"torch_{case}"] = bench(lambda: fn(tx), args.reps)
                del tx
            except Exception as e:  # noqa: BLE001
                print(f"torch.compile failed: {e}", flush=True)
        del xs, ref
    print(json.dumps(res), flush=True)
    print("\n| case | variant | schedule | predicted ms | measured ms | vs torch.compile | rel err | unwritten |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if "error" in r:
            print(f"| {r['case']} | {r['variant']} | error: {r['error'][:100]} | | | | | |")
            continue
        tc = res.get(f"torch_compile_{r['case']}")
        ratio = f"{tc / r['ms']:.3f}x" if tc else "-"
        print(f"| {r['case']} | {r['variant']} | {r['schedule'][10:]} | {r['pred_ms']:.4f} | {r['ms']:.4f} | {ratio} "
              f"| {r['rel_err']:.2e} | {r['unwritten']} |")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "row_group_variants.json").write_text(json.dumps({"refs": res, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
