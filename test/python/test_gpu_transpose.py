"""The tiled transpose schedule (gpu.transpose_tiled) on the GPU against NumPy:
2-D and batched permutations, odd and empty sizes, f16, fused bodies around the
transpose (neg, + a same-shape operand, + a broadcast bias), a statically strided
input, and hand-pinned schedules (vectors, swizzled or padded tiles, small tiles).
Results are exact (a copy, a negation, one correctly rounded add), so they are
compared for equality with the float64 reference rounded to the output type.
Outputs are poisoned (NaN) before each run.
Run on the GPU machine: `python3 -m pytest -m gpu test/python/test_gpu_transpose.py`.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from gpu_support import cp, gpu
from test_gpu_kernels import MLIR_T, NP_T, amap, compile_text, poisoned

# (x's shape, perm, dtype, body, x layout or None, schedule or None); the output's
# dim perm[k] is x's dim k: y[i_0, ..] = x[i_perm[0], ..]
CASES = [
    ((8192, 8192), (1, 0), "f32", "copy", None, None),
    ((37, 1000), (1, 0), "f32", "neg", None, None),
    ((1000, 37), (1, 0), "f32", "copy", None, None),
    ((5, 1), (1, 0), "f32", "copy", None, None),
    ((1, 5), (1, 0), "f32", "copy", None, None),
    ((0, 7), (1, 0), "f32", "copy", None, None),
    ((3, 65, 100), (0, 2, 1), "f32", "add_y", None, None),
    ((17, 5, 33), (2, 1, 0), "f32", "neg", None, None),
    ((513, 260), (1, 0), "f16", "copy", None, None),
    ((300, 129), (1, 0), "f16", "add_y", None, None),
    ((200, 300), (1, 0), "f32", "add_bias", None, None),
    ((300, 200), (1, 0), "f32", "copy", "strided<[207, 1]>", None),
    ((256, 1000), (1, 0), "f32", "neg", None,
     dict(tile_i=64, tile_o=64, threads=256, vec_in=4, vec_out=4, smem="swizzle")),
    ((1000, 36), (1, 0), "f32", "add_y", None,
     dict(tile_i=64, tile_o=32, threads=128, vec_in=4, vec_out=2, smem="padded")),
    ((2, 100, 48), (0, 2, 1), "f16", "copy", None,
     dict(tile_i=32, tile_o=32, threads=256, vec_in=2, vec_out=1, smem="swizzle")),
]


def out_shape(xs, perm):
    o = [0] * len(xs)
    for k, p in enumerate(perm):
        o[p] = xs[k]
    return o


def transpose_program(xs, perm, dt, body, layout=None, sched=None) -> str:
    n, t = len(xs), MLIR_T[dt]
    ys = out_shape(xs, perm)
    dims = lambda s: "x".join(map(str, s))  # noqa: E731
    xt = f"memref<{dims(xs)}x{t}{', ' + layout if layout else ''}>"
    yt = f"memref<{dims(ys)}x{t}>"
    ins, types, maps = ["%x"], [xt], [amap(n, [f"d{p}" for p in perm])]
    args = [f"%xv: {t}"]
    if body == "add_y":
        ins, types, maps, args = ins + ["%b"], types + [yt], maps + [amap(n, [f"d{i}" for i in range(n)])], args + [f"%bv: {t}"]
    if body == "add_bias":
        bt = f"memref<{ys[-1]}x{t}>"
        ins, types, maps, args = ins + ["%b"], types + [bt], maps + [amap(n, [f"d{n - 1}"])], args + [f"%bv: {t}"]
    ops = {"copy": "aicf_loop.yield %xv", "neg": f"%r = arith.negf %xv : {t}\n      aicf_loop.yield %r",
           "add_y": f"%r = arith.addf %xv, %bv : {t}\n      aicf_loop.yield %r"}
    ops["add_bias"] = ops["add_y"]
    attrs = ""
    if sched:
        ps = ", ".join(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v} : i64" for k, v in sched.items())
        attrs = f' attrs = {{aicf.schedule = {{kind = "gpu.transpose_tiled", {ps}}}}}'
    return f"""
func.func @main({', '.join(f'{a}: {ty}' for a, ty in zip(ins, types))}, %y: {yt}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, ys))}] iterators = [{', '.join(['parallel'] * n)}]
      ins({', '.join(ins)} : {', '.join(types)}) outs(%y : {yt})
      maps = [{', '.join(maps + [amap(n, [f'd{i}' for i in range(n)])])}]{attrs} {{
    ^bb0({', '.join(args)}):
      {ops[body]} : {t}
  }}
  func.return
}}"""


def transpose_programs() -> list[str]:
    """Every program of this file (the nvcc CI test compiles their kernels)."""
    return [transpose_program(*c) for c in CASES if 0 not in c[0]]


def _x(rng, xs, dt, layout):
    host = rng.uniform(-3, 3, size=xs).astype(NP_T[dt])
    if layout is None:
        return cp.asarray(host), host
    big = cp.zeros((xs[0] + 1, 207), dtype=NP_T[dt])  # rows of 207: the case's strided<[207, 1]>
    big[: xs[0], : xs[1]] = cp.asarray(host)
    return big[: xs[0], : xs[1]], host


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[2]}-{'x'.join(map(str, c[0]))}-{c[3]}{'-pinned' if c[5] else ''}")
def test_transpose(case):
    xs, perm, dt, body, layout, sched = case
    rng = np.random.default_rng(zlib.crc32(str(case).encode()))
    prog = compile_text(transpose_program(*case))
    x, xh = _x(rng, xs, dt, layout)
    ys = out_shape(xs, perm)
    ref = np.transpose(xh.astype(np.float64), np.argsort(perm))
    args = [x]
    if body in ("add_y", "add_bias"):
        bh = rng.uniform(-3, 3, size=ys if body == "add_y" else ys[-1:]).astype(NP_T[dt])
        args.append(cp.asarray(bh))
        ref = ref + bh.astype(np.float64)
    if body == "neg":
        ref = -ref
    y = poisoned(ys, dt)
    prog(*args, y)
    cp.cuda.Device().synchronize()
    out = cp.asnumpy(y)
    assert not np.isnan(out).any(), "unwritten (poisoned) outputs"
    np.testing.assert_array_equal(out, ref.astype(NP_T[dt]))


TENSOR_PROGRAM = """
func.func @main(%x: tensor<3x700x300xf32>, %b: tensor<3x300x700xf32>) -> tensor<3x300x700xf32> {
  %t = aicf_tensor.transpose %x perm = [0, 2, 1] : (tensor<3x700x300xf32>) -> tensor<3x300x700xf32>
  %y = aicf_tensor.add %t, %b : (tensor<3x300x700xf32>, tensor<3x300x700xf32>) -> tensor<3x300x700xf32>
  func.return %y : tensor<3x300x700xf32>
}"""


@gpu
@pytest.mark.gpu
def test_tensor_level_transpose_takes_the_tiled_schedule():
    """x.T + y through aicf.compile: the planner picks the tiled transpose for the
    transposing nest and the result is exact."""
    import aicf

    exe = aicf.compile(TENSOR_PROGRAM, target="cuda")
    assert "-> gpu.transpose_tiled" in exe.explain()
    rng = np.random.default_rng(5)
    xh = rng.uniform(-3, 3, (3, 700, 300)).astype(np.float32)
    bh = rng.uniform(-3, 3, (3, 300, 700)).astype(np.float32)
    out = cp.asnumpy(exe(cp.asarray(xh), cp.asarray(bh)))
    ref = xh.astype(np.float64).transpose(0, 2, 1) + bh
    np.testing.assert_array_equal(out, ref.astype(np.float32))
