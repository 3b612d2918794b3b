"""Calibration: how well the planner's cost model ranks the points of each schedule
kind's space, measured on the GPU.

For each case (elementwise, row and column reductions with odd widths, row groups,
transposes, matmul) the program is lowered to loops, the planner's space for its main
nest or group is enumerated (`passes/loop/candidates.gpu_space`), a spread of points
is sampled (the model's pick, its worst, and evenly in between), each point is
written on the op as its schedule attribute and compiled, and timed with CUDA events
(median of repeats, fresh random inputs, after warm-up: bench/run.py's `bench`).

Reported per case: Spearman's rank correlation between predicted and measured times,
and the measured time of the model's pick over the measured best (1.00: the pick is
the best). Pooled over all configurations: the Spearman correlation the issue's bar
is stated in.

    python3 bench/calibrate.py [--out DIR] [--points N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402

DATE = time.strftime("%Y-%m-%d")

CASES: list[tuple[str, str, list[tuple[tuple[int, ...], str]]]] = [
    ("elementwise sin(1.7x+0.3) 2^26 f32",
     "func.func @main(%x: tensor<67108864xf32>) -> tensor<67108864xf32> {\n"
     "  %a = aicf_tensor.constant dense<1.7> : tensor<f32>\n"
     "  %b = aicf_tensor.constant dense<0.3> : tensor<f32>\n"
     "  %m = aicf_tensor.mul %x, %a : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>\n"
     "  %s = aicf_tensor.add %m, %b : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>\n"
     "  %y = aicf_tensor.sin %s : (tensor<67108864xf32>) -> tensor<67108864xf32>\n"
     "  func.return %y : tensor<67108864xf32>\n}", [((1 << 26,), "f32")]),
    ("elementwise chain 2^26 f16",
     "func.func @main(%x: tensor<67108864xf16>) -> tensor<67108864xf16> {\n"
     "  %t = aicf_tensor.tanh %x : (tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %s = aicf_tensor.sin %t : (tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %y = aicf_tensor.mul %s, %x : (tensor<67108864xf16>, tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  func.return %y : tensor<67108864xf16>\n}", [((1 << 26,), "f16")]),
    ("elementwise 6-op chain 2^26 f16 (math = approx)",
     "func.func @main(%x: tensor<67108864xf16>) -> tensor<67108864xf16> {\n"
     "  %a = aicf_tensor.constant dense<1.7> : tensor<f16>\n"
     "  %b = aicf_tensor.constant dense<0.3> : tensor<f16>\n"
     "  %one = aicf_tensor.constant dense<1.0> : tensor<f16>\n"
     "  %h = aicf_tensor.constant dense<0.5> : tensor<f16>\n"
     "  %0 = aicf_tensor.mul %a, %x : (tensor<f16>, tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %1 = aicf_tensor.add %0, %b : (tensor<67108864xf16>, tensor<f16>) -> tensor<67108864xf16>\n"
     "  %2 = aicf_tensor.sin %1 : (tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %3 = aicf_tensor.mul %2, %x : (tensor<67108864xf16>, tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %4 = aicf_tensor.add %3, %one : (tensor<67108864xf16>, tensor<f16>) -> tensor<67108864xf16>\n"
     "  %5 = aicf_tensor.tanh %4 : (tensor<67108864xf16>) -> tensor<67108864xf16>\n"
     "  %6 = aicf_tensor.mul %5, %h : (tensor<67108864xf16>, tensor<f16>) -> tensor<67108864xf16>\n"
     "  func.return %6 : tensor<67108864xf16>\n}", [((1 << 26,), "f16")]),
    ("transpose 8192x8192 f32",
     "func.func @main(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {\n"
     "  %y = aicf_tensor.transpose %x perm = [1, 0] : (tensor<8192x8192xf32>) -> tensor<8192x8192xf32>\n"
     "  %z = aicf_tensor.neg %y : (tensor<8192x8192xf32>) -> tensor<8192x8192xf32>\n"
     "  func.return %z : tensor<8192x8192xf32>\n}", [((8192, 8192), "f32")]),
    ("transpose batched 32x1024x1024 f16 [0,2,1]",
     "func.func @main(%x: tensor<32x1024x1024xf16>) -> tensor<32x1024x1024xf16> {\n"
     "  %y = aicf_tensor.transpose %x perm = [0, 2, 1] : (tensor<32x1024x1024xf16>) -> tensor<32x1024x1024xf16>\n"
     "  func.return %y : tensor<32x1024x1024xf16>\n}", [((32, 1024, 1024), "f16")]),
    ("transpose 4097x1000 f32",
     "func.func @main(%x: tensor<4097x1000xf32>) -> tensor<1000x4097xf32> {\n"
     "  %y = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4097x1000xf32>) -> tensor<1000x4097xf32>\n"
     "  func.return %y : tensor<1000x4097xf32>\n}", [((4097, 1000), "f32")]),
]


def _sum_case(m: int, n: int, axis: int) -> tuple[str, str, list]:
    out = m if axis == 1 else n
    return (f"sum(axis={axis}) {m}x{n} f32",
            f"func.func @main(%x: tensor<{m}x{n}xf32>) -> tensor<{out}xf32> {{\n"
            f"  %y = aicf_tensor.reduce_sum %x axes = [{axis}] : (tensor<{m}x{n}xf32>) -> tensor<{out}xf32>\n"
            f"  func.return %y : tensor<{out}xf32>\n}}", [((m, n), "f32")])


def _softmax_case(m: int, n: int, dt: str = "f32") -> tuple[str, str, list]:
    t = f"tensor<{m}x{n}x{dt}>"
    r = f"tensor<{m}x1x{dt}>"
    return (f"softmax {m}x{n} {dt}",
            f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %mx = aicf_tensor.reduce_max %x axes = [1] keepdims : ({t}) -> {r}\n"
            f"  %d = aicf_tensor.sub %x, %mx : ({t}, {r}) -> {t}\n"
            f"  %e = aicf_tensor.exp %d : ({t}) -> {t}\n"
            f"  %s = aicf_tensor.reduce_sum %e axes = [1] keepdims : ({t}) -> {r}\n"
            f"  %y = aicf_tensor.div %e, %s : ({t}, {r}) -> {t}\n"
            f"  func.return %y : {t}\n}}", [((m, n), dt)])


def _matmul_case(m: int, k: int, n: int, dt: str = "f32") -> tuple[str, str, list]:
    return (f"matmul {m}x{k}x{n} {dt}",
            f"func.func @main(%a: tensor<{m}x{k}x{dt}>, %b: tensor<{k}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}> {{\n"
            f"  %c = aicf_tensor.matmul %a, %b : (tensor<{m}x{k}x{dt}>, tensor<{k}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}>\n"
            f"  func.return %c : tensor<{m}x{n}x{dt}>\n}}", [((m, k), dt), ((k, n), dt)])


CASES += [
    _sum_case(8192, 8192, 1), _sum_case(3000, 3001, 1), _sum_case(1024, 65536, 1),
    _sum_case(262144, 128, 1), _sum_case(8192, 8192, 0), _sum_case(4096, 1000, 0),
    _softmax_case(4096, 1000), _softmax_case(8192, 8192),
    _softmax_case(4096, 1000, "f16"), _softmax_case(32768, 512, "f16"),
    _matmul_case(1024, 1024, 1024), _matmul_case(4096, 4096, 4096),
    _matmul_case(1, 4096, 4096), _matmul_case(1, 4096, 4096, "f16"),  # GEMV
]


def spearman(a, b) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    if len(a) < 2 or ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def sample(points: list, n: int) -> list:
    """The model's pick, its worst, and evenly spaced ranks in between."""
    pts = sorted(points, key=lambda p: p[1])
    if len(pts) <= n:
        return pts
    idx = sorted({0, len(pts) - 1, *np.linspace(0, len(pts) - 1, n).round().astype(int).tolist()})
    return [pts[i] for i in idx]


def case_op(text: str):
    """The case's function (tensor pipeline run) and its biggest nest or group, the one
    the case is about."""
    from aicf.compiler import TENSOR_PIPELINE, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.loop import GroupOp, NestOp

    base = parse_module(make_context(), text, "<calibrate>")
    run_pipeline(base, TENSOR_PIPELINE)
    fn = next(o for o in base.ops if o.name == "func.func")
    ops = [o for o in fn.walk() if isinstance(o, GroupOp)] or [o for o in fn.walk() if isinstance(o, NestOp)]
    op = max(ops, key=lambda o: max(n.num_points() for n in o.nests) if isinstance(o, GroupOp) else o.num_points())
    return base, fn, op


def _first_pass(desc: str) -> str:
    """A schedule's description without its nested second pass (which the planner
    re-derives: the point is the first pass's parameters)."""
    at = desc.find(" combine=(")
    if at < 0:
        return desc
    depth, end = 0, at + len(" combine=")
    for end in range(at + len(" combine="), len(desc)):
        depth += {"(": 1, ")": -1}.get(desc[end], 0)
        if depth == 0:
            break
    return desc[:at] + desc[end + 1 :]


def replay(path: str) -> int:
    """Re-price the configurations of a calibration result with the model as it is now
    (no GPU): per case, the Spearman of the recorded predictions and of today's against
    the measured times, and the measured time of today's pick among them. Points the
    space no longer holds (a schedule parameter added since) are counted as missing."""
    from aicf.passes.loop.candidates import gpu_space
    from aicf.target import H100

    rec = json.loads(Path(path).read_text())
    texts = {name: text for name, text, _ in CASES}
    print("| case | kind | points | Spearman then | now | pick/best then | now |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rec["rows"]:
        if r["case"] not in texts:
            continue
        _, fn, op = case_op(texts[r["case"]])
        now = {_first_pass(s.describe(False)): c * 1e3 for s, c in gpu_space(fn, op, H100).get(r["kind"], [])}
        cfg = [c for c in r["configs"] if _first_pass(c["schedule"]) in now]
        meas = [c["measured_ms"] for c in cfg]
        if len(cfg) < 2:
            print(f"| {r['case']} | {r['kind']} | 0/{len(r['configs'])} | {r['spearman']:.2f} | - | "
                  f"{r['pick_over_best']:.3f} | - |")
            continue
        pred = [now[_first_pass(c["schedule"])] for c in cfg]
        then = [c["predicted_ms"] for c in cfg]
        pick = meas[int(np.argmin(pred))] / min(meas)
        pick0 = meas[int(np.argmin(then))] / min(meas)
        print(f"| {r['case']} | {r['kind']} | {len(cfg)}/{len(r['configs'])} | {spearman(then, meas):.2f} | "
              f"{spearman(pred, meas):.2f} | {pick0:.3f} | {pick:.3f} |")
    return 0


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 2 and sys.argv[1] == "--replay":
        return replay(sys.argv[2])
    import cupy as cp

    import aicf
    from aicf.compiler import TENSOR_PIPELINE, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.loop import GroupOp, NestOp
    from aicf.dialects.schedule import SCHEDULE_ATTR
    from aicf.passes.loop.candidates import gpu_space
    from aicf.target import GpuTarget

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--points", type=int, default=6, help="points sampled per case and kind")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", default=None, help="regex over case names")
    args = ap.parse_args(argv)
    target = GpuTarget.from_device()
    rng = np.random.default_rng(0)
    rows, pooled_pred, pooled_meas = [], [], []
    for name, text, inputs in CASES:
        if args.only and not re.search(args.only, name):
            continue
        base, fn, op = case_op(text)
        idx = [*fn.walk()].index(op)
        xs = [cp.asarray(rng.standard_normal(s, dtype=np.float32).astype(dt.replace("f", "float"))) for s, dt in inputs]
        for kind, points in gpu_space(fn, op, target).items():
            pred, meas, descs = [], [], []
            for sched, cost in sample(points, args.points):
                mod = base.clone()
                mop = [*next(o for o in mod.ops if o.name == "func.func").walk()][idx]
                mop.attributes[SCHEDULE_ATTR] = sched.to_attr()
                try:
                    exe = aicf.compile(mod, target="cuda")
                    ms = bench(lambda: exe(*xs), args.reps)
                except Exception as e:  # a point the model admits but the hardware refuses
                    print(f"  {kind} {sched.describe(False)}: failed: {str(e).splitlines()[0]}", flush=True)
                    continue
                pred.append(cost * 1e3)
                meas.append(ms)
                descs.append(sched.describe(False))
            if not meas:
                continue
            rho = spearman(pred, meas)
            pick = int(np.argmin(pred))
            r = {"case": name, "kind": kind, "points": len(meas), "spearman": rho,
                 "pick_over_best": meas[pick] / min(meas),
                 "configs": [{"schedule": d, "predicted_ms": p, "measured_ms": m}
                             for d, p, m in zip(descs, pred, meas)]}
            rows.append(r)
            pooled_pred += pred
            pooled_meas += meas
            print(f"{name:<36} {kind:<18} n={len(meas):2d} spearman={rho:5.2f} pick/best={r['pick_over_best']:.3f}",
                  flush=True)
    pooled = spearman(pooled_pred, pooled_meas)
    within = sum(1 for r in rows if r["pick_over_best"] <= 1.10)
    lines = [f"# Cost-model calibration, {DATE}, {target.name}", "",
             f"{len(pooled_meas)} configurations over {len(rows)} (case, kind) spaces; "
             f"pooled Spearman {pooled:.3f}; model pick within 10% of the measured best in "
             f"{within}/{len(rows)}.", "",
             "| case | kind | points | Spearman | pick / best |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {r['case']} | {r['kind']} | {r['points']} | {r['spearman']:.2f} | {r['pick_over_best']:.3f} |"
              for r in rows]
    md = "\n".join(lines) + "\n"
    print(md)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", target.name).strip("-")
    dests = [Path(__file__).parent / "results"] + ([Path(args.out)] if args.out else [])
    for d in dests:
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{DATE}-calibration-{slug}.md").write_text(md)
        (d / f"{DATE}-calibration-{slug}.json").write_text(json.dumps(
            {"date": DATE, "gpu": target.name, "pooled_spearman": pooled, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
