"""Library kernels on the GPU machine: a matmul nest run by cuBLAS (`gpu.cublas_gemm`
schedule) against the same nest as a generated kernel and against cupy.matmul, and
a row reduction by CuPy (`gpu.cub_reduce`) against the generated one and cupy.sum;
each with the cost models' predictions, so the planner's choice can be checked.

    python3 bench/library_bench.py [--quick]

Times are whole program calls (the launch plan's fast path, outputs preallocated),
CUDA-event medians from bench/run.py's bench(), all measured in this run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from matmul_bench import program as mm_text  # noqa: E402
from run import bench  # noqa: E402

MATMULS = [  # (m, n, k, dt, batch_a, batch_b)
    (4096, 4096, 4096, "f32", (), ()),
    (4096, 4096, 4096, "f16", (), ()),
    (4096, 4096, 4096, "bf16", (), ()),
    (1024, 1024, 1024, "f32", (), ()),
    (256, 256, 256, "f32", (), ()),
    (64, 768, 768, "f32", (), ()),  # GPT-2 block, 64 tokens
    (1, 4096, 4096, "f32", (), ()),  # GEMV
    (512, 512, 64, "f16", (32,), (32,)),  # attention-like batched
]
REDUCTIONS = [(8192, 8192), (65536, 1024), (1024, 65536), (262144, 128), (3000, 3001), (4096, 1000)]


def main(argv=None) -> int:
    import cupy as cp

    from aicf import cost_model as cm
    from aicf.backend.cuda.program import compile_cuda
    from aicf.context import make_context
    from aicf.cost.library import library_candidates
    from aicf.diagnostics import parse_module
    from aicf.dialects.loop import NestOp
    from aicf.target import H100
    from xdsl.dialects.builtin import DictionaryAttr

    from aicf.lowering.gpu_schedules.library import to_attr

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    reps = 5 if args.quick else 15

    def compiled(text: str, library: bool):
        mod = parse_module(make_context(), text, "<bench>")
        nest = next(o for o in mod.walk() if isinstance(o, NestOp))
        cands = [c for c in library_candidates(nest, H100) if c.params is not None]
        if library:
            nest.attributes["aicf.schedule"] = DictionaryAttr({k: to_attr(v) for k, v in cands[0].schedule().items()})
        return compile_cuda(mod, "main"), nest, cands

    def rand(shape, dt):
        x = rng.standard_normal(shape, dtype=np.float32)
        if dt == "bf16":
            from aicf.dtypes import f32_to_bf16_bits

            return cp.asarray(f32_to_bf16_bits(x))
        return cp.asarray(x.astype(np.float16 if dt == "f16" else np.float32))

    print(f"{'matmul':34} {'cuBLAS ms':>10} {'pred':>8} {'generated':>10} {'pred':>8} {'cupy.matmul':>11}")
    for m, n, k, dt, ba, bb in MATMULS[:3] if args.quick else MATMULS:
        text, a_s, b_s, c_s = mm_text(m, n, k, dt, ba, bb)
        a, b = rand(a_s, dt), rand(b_s, dt)
        c = cp.empty(c_s, a.dtype)
        lib, nest, cands = compiled(text, True)
        gen, _, _ = compiled(text, False)
        t_lib = bench(lambda: lib(a, b, c), reps)
        t_gen = bench(lambda: gen(a, b, c), reps)
        t_ref = bench(lambda: cp.matmul(a, b, out=c), reps) if dt != "bf16" else float("nan")
        got = cm.nest_problem(nest, H100)
        est = cm.best(got[1], H100) if got else None
        p_gen = est.total * 1e3 if est is not None and est.feasible else float("nan")
        name = f"{'x'.join(map(str, ba))}{'x' if ba else ''}{m}x{n}x{k} {dt}"
        print(f"{name:34} {t_lib:10.4f} {cands[0].time * 1e3:8.4f} {t_gen:10.4f} {p_gen:8.4f} {t_ref:11.4f}")

    print(f"\n{'sum(axis=-1)':34} {'CuPy ms':>10} {'pred':>8} {'generated':>10} {'cupy.sum':>11}")
    for rows, cols in REDUCTIONS[:2] if args.quick else REDUCTIONS:
        text = f"""
func.func @main(%x: memref<{rows}x{cols}xf32>, %y: memref<{rows}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{rows}, {cols}] iterators = [parallel, reduction]
      ins(%x : memref<{rows}x{cols}xf32>) outs(%y : memref<{rows}xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {{
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }}
  func.return
}}"""
        x = rand((rows, cols), "f32")
        y = cp.empty((rows,), cp.float32)
        lib, _, cands = compiled(text, True)
        gen, _, _ = compiled(text, False)
        t_lib = bench(lambda: lib(x, y), reps)
        t_gen = bench(lambda: gen(x, y), reps)
        t_ref = bench(lambda: cp.sum(x, axis=-1, out=y), reps)
        print(f"{f'{rows}x{cols} f32':34} {t_lib:10.4f} {cands[0].time * 1e3:8.4f} {t_gen:10.4f} {t_ref:11.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
