"""Matmul on the tensor cores (issue 8's table): `gpu.wgmma` forced, the planner's
pick, and cuBLAS (cupy.matmul) on the same inputs, measured in one run.

    python3 bench/tensor_core.py [--out DIR] [--quick]

Times: CUDA-event medians (bench/run.py's `bench`: warm-up, back-to-back calls
between two events). Inputs: fresh standard-normal values per case. Accuracy: the
relative error (Frobenius) of our output against float64 NumPy on the rounded
inputs, over a sample of 64 rows.
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

CASES = [
    # (label, batch, m, n, k, dtype)
    ("4096^3 f16", 1, 4096, 4096, 4096, "f16"),
    ("4096^3 bf16", 1, 4096, 4096, 4096, "bf16"),
    ("8192^3 f16", 1, 8192, 8192, 8192, "f16"),
    ("8192^3 bf16", 1, 8192, 8192, 8192, "bf16"),
    ("1000^3 f16", 1, 1000, 1000, 1000, "f16"),
    ("4096x4096x64 f16", 1, 4096, 4096, 64, "f16"),
    ("64x64x65536 f16", 1, 64, 64, 65536, "f16"),
    ("32x512x512x512 f16", 32, 512, 512, 512, "f16"),
    ("4096^3 f32 as tf32", 1, 4096, 4096, 4096, "tf32"),
    ("8192^3 f32 as tf32", 1, 8192, 8192, 8192, "tf32"),
    ("GEMV 1x4096 @ 4096x4096 f16", 1, 1, 4096, 4096, "f16"),
]


def program(batch: int, m: int, n: int, k: int, dt: str) -> str:
    if dt == "tf32":  # f32 operands; the planner multiplies them in TF32 when allowed
        return program(batch, m, n, k, "f32").replace("%xf = arith.extf %x : f32 to f32\n      ", "").replace(
            "%wf = arith.extf %w : f32 to f32\n      ", "").replace("arith.mulf %xf, %wf", "arith.mulf %x, %w")
    b = [batch] if batch > 1 else []
    d = ["d0"] if b else []
    dims = ", ".join([*d, "dm", "dn", "dk"])

    def mt(shape):
        return "memref<" + "x".join([*map(str, shape), dt]) + ">"

    at, bt, ct = mt([*b, m, k]), mt([*b, k, n]), mt([*b, m, n])
    it = ", ".join(["parallel"] * (len(b) + 2) + ["reduction"])
    bd = ", ".join(d)
    pre = f"{bd}, " if b else ""
    return f"""
func.func @main(%a: {at}, %b: {bt}, %c: {ct}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, [*b, m, n, k]))}] iterators = [{it}]
      ins(%a, %b : {at}, {bt}) outs(%c : {ct})
      maps = [({dims}) -> ({pre}dm, dk), ({dims}) -> ({pre}dk, dn), ({dims}) -> ({pre}dm, dn)] combiners = [add] {{
    ^bb0(%x: {dt}, %w: {dt}):
      %xf = arith.extf %x : {dt} to f32
      %wf = arith.extf %w : {dt} to f32
      %p = arith.mulf %xf, %wf : f32
      aicf_loop.yield %p : f32
  }}
  func.return
}}"""


EPILOGUE = """
func.func @main(%x: tensor<{m}x{k}xf16>, %w: tensor<{k}x{n}xf16>, %b: tensor<{n}xf16>) -> tensor<{m}x{n}xf16> {{
  %y = aicf_tensor.matmul %x, %w : (tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16>
  %z = aicf_tensor.add %y, %b : (tensor<{m}x{n}xf16>, tensor<{n}xf16>) -> tensor<{m}x{n}xf16>
  %g = aicf_tensor.gelu %z{approx} : (tensor<{m}x{n}xf16>) -> tensor<{m}x{n}xf16>
  func.return %g : tensor<{m}x{n}xf16>
}}
"""


def epilogue_rows(quick: bool, mlp: bool = True) -> list[dict]:
    """matmul + bias + gelu (f16, erf and tanh forms): the fused kernel forced, the
    matmul alone (the wgmma kernel, so fused - alone is the epilogue's time), the
    planner's pick, and torch's cuBLAS addmm (bias in cuBLAS's epilogue) followed by its
    gelu kernel."""
    import cupy as cp
    import torch

    import aicf
    from aicf.profiling import profiler

    rows = []
    cases = [(4096, 4096, 4096, "none")] + ([] if quick else [
        (8192, 8192, 8192, "none"), (8192, 3072, 768, "none"), (4096, 4096, 4096, "tanh"), (8192, 3072, 768, "tanh")])
    for m, n, k, approx in cases:
        x = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16) / np.float16(np.sqrt(k))
        w = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((n,), dtype=cp.float32).astype(cp.float16)
        row = {"case": f"{m}x{n}x{k} matmul+bias+gelu{'(tanh)' if approx == 'tanh' else ''} f16"}
        alone = compile_text(program(1, m, n, k, "f16"), "gpu.wgmma")
        c = alone(x, w)
        row["matmul_alone_ms"] = bench(lambda: alone(x, w, c), reps=15)
        text = EPILOGUE.format(m=m, n=n, k=k, approx=' approximate = "tanh"' if approx == "tanh" else "")
        for name, force in (("fused", "gpu.wgmma_epilogue"), ("pick", "")):
            exe = aicf.compile(text, target="cuda", force=force)
            out = exe(x, w, b)
            with profiler() as prof:
                exe(x, w, b)
            cp.cuda.Device().synchronize()
            row[f"{name}_kernels"] = len(prof.records)
            row[f"{name}_ms"] = bench(lambda: exe(x, w, b), reps=15)
            if name == "fused":
                tx, tw, tb = (torch.from_dlpack(a) for a in (x, w, b))
                ref = torch.nn.functional.gelu(tx.double() @ tw.double() + tb.double(), approximate=approx)
                got = torch.from_dlpack(out).double()
                row["rel_err"] = float((got - ref).norm() / ref.norm())
        tx, tw, tb = (torch.from_dlpack(a) for a in (x, w, b))
        row["torch_ms"] = bench(lambda: torch.nn.functional.gelu(torch.addmm(tb, tx, tw), approximate=approx),
                                reps=15)
        row["fused_vs_torch"] = round(row["torch_ms"] / row["fused_ms"], 3)
        row["pick_vs_torch"] = round(row["torch_ms"] / row["pick_ms"], 3)
        print(json.dumps(row), flush=True)
        rows.append(row)

    if not mlp:
        return rows

    # issue 8's MLP, in f16 through aicf.jit, against torch eager on the same arrays
    @aicf.jit(target="cuda")
    def mlp(x, w1, b1, w2, b2):
        return aicf.ops.relu(x @ w1 + b1) @ w2 + b2

    shapes = [(4096, 1024), (1024, 4096), (4096,), (4096, 1024), (1024,)]
    dev = [(cp.random.standard_normal(sh, dtype=cp.float32) / np.float32(np.sqrt(sh[0] if len(sh) == 2 else 1)))
           .astype(cp.float16) for sh in shapes]
    out = mlp(*dev)
    exe = mlp.executable(*dev)
    with profiler() as prof:
        exe(*dev)
    cp.cuda.Device().synchronize()
    tt = [torch.from_dlpack(d) for d in dev]
    ref = torch.relu(tt[0].double() @ tt[1].double() + tt[2].double()) @ tt[3].double() + tt[4].double()
    row = {"case": "aicf.jit MLP relu(x@W1+b1)@W2+b2 4096x1024x4096x1024 f16",
           "fused_kernels": len(prof.records), "fused_ms": bench(lambda: exe(*dev), reps=15),
           "rel_err": float((torch.from_dlpack(out).double() - ref).norm() / ref.norm())}
    row["pick_kernels"], row["pick_ms"] = row["fused_kernels"], row["fused_ms"]
    row["torch_ms"] = bench(lambda: torch.relu(tt[0] @ tt[1] + tt[2]) @ tt[3] + tt[4], reps=15)
    row["fused_vs_torch"] = row["pick_vs_torch"] = round(row["torch_ms"] / row["fused_ms"], 3)
    print(json.dumps(row), flush=True)
    rows.append(row)
    return rows


def sweep(out: Path) -> int:
    """Every (bn, stages, persistent) with bm = 128 on 4096^3 f16, against the cost
    model's prediction: what TILE_EFFICIENCY in aicf/cost/tensor_core.py comes from."""
    import cupy as cp

    from aicf.cost.tensor_core import estimate
    from aicf.lowering.gpu_schedules.wgmma_space import TmaOperand, WgmmaConfig, WgmmaProblem
    from aicf.target import H100
    from aicf.backend.cuda.program import compile_cuda
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    m = n = k = 4096
    a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
    b = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
    res = []
    base = program(1, m, n, k, "f16")
    for bm, bn in ((128, 256), (128, 192), (128, 128), (64, 256)):
        for stages in (3, 4, 5):
            for pers in (False, True):
                c = WgmmaConfig(bm, bn, 64, stages)
                prob = WgmmaProblem((), (), m, n, k, "f16", TmaOperand("k", (1, 0), (2, 0)),
                                    TmaOperand("mn", (1, 0), (1, 2)))
                e = estimate(c, prob, H100, 2, pers)
                if not e.feasible:
                    continue
                grid = f", grid = {H100.num_sms}" if pers else ""
                attrs = (f' attrs = {{aicf.schedule = {{kind = "gpu.wgmma", bm = {bm}, bn = {bn}, bk = 64, '
                         f'stages = {stages}{grid}}}}}')
                text = base.replace("combiners = [add] {", "combiners = [add]" + attrs + " {")
                prog = compile_cuda(parse_module(make_context(), text, "<sweep>"), "main", sync="none")
                c_out = prog(a, b)
                ms = bench(lambda: prog(a, b, c_out), reps=15)
                r = {"bm": bm, "bn": bn, "stages": stages, "persistent": pers, "ms": ms,
                     "tflops": round(2 * m * n * k / ms / 1e9, 1), "predicted_ms": round(e.total * 1e3, 4)}
                print(json.dumps(r), flush=True)
                res.append(r)
    res.append({"cublas_ms": bench(lambda: cp.matmul(a, b), reps=15)})
    print(json.dumps(res[-1]))
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{time.strftime('%Y-%m-%d')}-tensor-core-sweep.json").write_text(json.dumps(res, indent=1))
    return 0


def _f64(x, dt: str) -> np.ndarray:
    import cupy as cp

    if dt == "bf16":
        return (cp.asnumpy(x).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dt == "tf32":
        return cp.asnumpy(x).astype(np.float64)
    return cp.asnumpy(x).astype(np.float64)


def main(argv=None) -> int:
    import cupy as cp

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="time tile configurations of 4096^3 f16 (calibration)")
    ap.add_argument("--epilogue", action="store_true", help="only the fused-epilogue rows")
    args = ap.parse_args(argv)
    if args.sweep:
        return sweep(Path(args.out))
    if args.epilogue:
        epilogue_rows(quick=False, mlp=False)
        return 0
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for label, batch, m, n, k, dt in CASES[:3] if args.quick else CASES:
        shape_a, shape_b = ((batch,) if batch > 1 else ()) + (m, k), ((batch,) if batch > 1 else ()) + (k, n)
        a32 = cp.random.standard_normal(shape_a, dtype=cp.float32)
        b32 = cp.random.standard_normal(shape_b, dtype=cp.float32)
        if dt == "tf32":
            a, b = a32, b32
        elif dt == "f16":
            a, b = a32.astype(cp.float16), b32.astype(cp.float16)
        else:  # bf16 travels as its bits (aicf/dtypes.py): truncate f32 (exact bf16 values)
            a = (a32.view(cp.uint32) >> 16).astype(cp.uint16)
            b = (b32.view(cp.uint32) >> 16).astype(cp.uint16)
        text = program(batch, m, n, k, dt)
        row = {"case": label}
        flops = 2 * batch * m * n * k
        for name, force in (("wgmma", "gpu.wgmma"), ("pick", "")):
            t0 = time.perf_counter()
            prog = compile_text(text, force, "high" if dt == "tf32" else "")
            row[f"{name}_compile_s"] = round(time.perf_counter() - t0, 2)
            row[f"{name}_kinds"] = sorted(set(__import__("re").findall(r"// \w+: (gpu\.\w+)", prog.source))) or ["library"]
            c = prog(a, b)
            cp.cuda.Device().synchronize()
            row[f"{name}_ms"] = bench(lambda: prog(a, b, c), reps=15 if flops > 1e11 else 30)
            if name == "wgmma":
                rs = slice(0, min(m, 64))
                a64, b64, out = (_f64(x, dt) for x in (a, b, c))
                ref = np.matmul(a64[..., rs, :], b64)
                out = out[..., rs, :]
                row["rel_err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
        if dt == "tf32":  # cuBLAS in TF32 mode, through torch
            import torch
            torch.backends.cuda.matmul.allow_tf32 = True
            ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
            row["cublas_ms"] = bench(lambda: torch.matmul(ta, tb), reps=15)
        elif dt == "f16":
            row["cublas_ms"] = bench(lambda: cp.matmul(a, b), reps=15 if flops > 1e11 else 30)
        else:  # CuPy has no bf16: cuBLAS through torch on the same bits
            import torch
            ta, tb = (torch.from_dlpack(x).view(torch.bfloat16) for x in (a, b))
            row["cublas_ms"] = bench(lambda: torch.matmul(ta, tb), reps=15 if flops > 1e11 else 30)
        for name in ("wgmma", "pick", "cublas"):
            row[f"{name}_tflops"] = round(flops / (row[f"{name}_ms"] * 1e-3) / 1e12, 1)
        row["wgmma_vs_cublas"] = round(row["cublas_ms"] / row["wgmma_ms"], 3)
        row["pick_vs_cublas"] = round(row["cublas_ms"] / row["pick_ms"], 3)
        # bytes the matmul must move, against the GPU's copy bandwidth (GEMV is bound by it)
        nbytes = (a.nbytes + b.nbytes + batch * m * n * a.itemsize)
        row["gbps"] = round(nbytes / (row["wgmma_ms"] * 1e-3) / 1e9, 1)
        print(json.dumps(row), flush=True)
        rows.append(row)
    ep = epilogue_rows(args.quick)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d")
    tag = gpu.replace(" ", "-")
    (out / f"{stamp}-tensor-core-{tag}.json").write_text(json.dumps({"gpu": gpu, "rows": rows, "epilogue": ep}, indent=1))
    lines = [f"# Tensor-core matmul, {gpu}, {stamp}", "", "`python3 bench/tensor_core.py` (one run; CUDA-event medians; "
             "ratios = cuBLAS time / ours)", "",
             "| case | gpu.wgmma ms | TFLOP/s | GB/s | planner's pick (kind) ms | cuBLAS ms | TFLOP/s | wgmma/cuBLAS | pick/cuBLAS | rel err |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['wgmma_ms']:.3f} | {r['wgmma_tflops']} | {r['gbps']} | {r['pick_ms']:.3f} ({', '.join(r['pick_kinds'])}) | "
                     f"{r['cublas_ms']:.3f} | {r['cublas_tflops']} | {r['wgmma_vs_cublas']} | {r['pick_vs_cublas']} | {r['rel_err']:.1e} |")
    lines += ["", "Fused epilogue (torch: `F.gelu(torch.addmm(b, x, w))`, cuBLAS with the bias in its epilogue, then "
              "a gelu kernel):", "",
              "| case | fused ms (kernels) | planner's pick ms (kernels) | torch ms | fused/torch | pick/torch | rel err |",
              "|---|---|---|---|---|---|---|"]
    for r in ep:
        lines.append(f"| {r['case']} | {r['fused_ms']:.3f} ({r['fused_kernels']}) | {r['pick_ms']:.3f} ({r['pick_kernels']}) | "
                     f"{r['torch_ms']:.3f} | {r['fused_vs_torch']} | {r['pick_vs_torch']} | {r['rel_err']:.1e} |")
    (out / f"{stamp}-tensor-core-{tag}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
