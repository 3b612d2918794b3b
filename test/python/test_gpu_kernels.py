"""The three vertical-slice kernels on the GPU, over random cases against NumPy.

Programs are written at the loop level (the input of `compile_cuda`), so these tests
exercise the GPU lowering, the emitter and the runtime on their own:
- elementwise y = sin(a*x + b) with broadcast a/b, strided/offset/transposed x,
  odd and 0-size dims, f32/f16/bf16;
- reductions (sum/max) over any axis or axes, incl. few-long rows (split) and
  outer axes (split + second pass), strided inputs;
- a small matmul (the fallback schedule).
Outputs are poisoned (NaN) before each run; NaN never passes.
Run on the GPU machine: `python3 -m pytest -m gpu test/python/test_gpu_kernels.py`.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from gpu_support import cp, gpu

MLIR_T = {"f32": "f32", "f16": "f16", "bf16": "bf16"}
NP_T = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}


# --- bf16 helpers (bf16 travels as uint16 bits) ----------------------------------------
def to_bf16(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    u = np.ascontiguousarray(x).reshape(x.shape).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16).reshape(x.shape)


def from_bf16(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def to_dtype(x: np.ndarray, dt: str) -> np.ndarray:
    return to_bf16(x) if dt == "bf16" else x.astype(NP_T[dt])


def as_f64(x: np.ndarray, dt: str) -> np.ndarray:
    return (from_bf16(x) if dt == "bf16" else x).astype(np.float64)


def mt(shape, dt, strided=False) -> str:
    dims = "x".join(str(s) for s in shape)
    body = f"{dims}x{MLIR_T[dt]}" if shape else MLIR_T[dt]
    if strided and shape:
        lay = ", strided<[" + ", ".join("?" for _ in shape) + "], offset: ?>"
        return f"memref<{body}{lay}>"
    return f"memref<{body}>"


def amap(n: int, results: list[str]) -> str:
    ds = ", ".join(f"d{i}" for i in range(n))
    return f"({ds}) -> ({', '.join(results)})"


# --- program builders --------------------------------------------------------------------
def elementwise_program(shape, a_shape, b_shape, dt, x_strided) -> str:
    n = len(shape)

    def bmap(bs):
        res = []
        off = n - len(bs)
        for j, e in enumerate(bs):
            res.append("0" if (e == 1 and shape[off + j] != 1) else f"d{off + j}")
        return amap(n, res)

    ins = [("x", shape, x_strided), ("a", a_shape, False), ("b", b_shape, False)]
    types = [mt(s, dt, st) for _, s, st in ins]
    yt = mt(shape, dt)
    ext = dt != "f32"
    body = []
    names = []
    for nm in ("x", "a", "b"):
        if ext:
            body.append(f"%{nm}f = arith.extf %{nm}v : {MLIR_T[dt]} to f32")
            names.append(f"%{nm}f")
        else:
            names.append(f"%{nm}v")
    body.append(f"%m = arith.mulf {names[1]}, {names[0]} : f32")
    body.append(f"%s = arith.addf %m, {names[2]} : f32")
    body.append("%r = math.sin %s : f32")
    res = "%r"
    if ext:
        body.append(f"%rt = arith.truncf %r : f32 to {MLIR_T[dt]}")
        res = "%rt"
    body.append(f"aicf_loop.yield {res} : {MLIR_T[dt]}")
    maps = [amap(n, [f"d{i}" for i in range(n)]), bmap(a_shape), bmap(b_shape), amap(n, [f"d{i}" for i in range(n)])]
    args = ", ".join(f"%{nm}: {t}" for (nm, _, _), t in zip(ins, types))
    lines = "\n      ".join(body)
    return f"""
func.func @main({args}, %y: {yt}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, shape))}] iterators = [{', '.join(['parallel'] * n)}]
      ins(%x, %a, %b : {', '.join(types)}) outs(%y : {yt})
      maps = [{', '.join(maps)}] {{
    ^bb0(%xv: {MLIR_T[dt]}, %av: {MLIR_T[dt]}, %bv: {MLIR_T[dt]}):
      {lines}
  }}
  func.return
}}"""


def reduction_program(shape, axes, kind, dt, x_strided) -> str:
    n = len(shape)
    out_shape = [e for i, e in enumerate(shape) if i not in axes]
    xt, yt = mt(shape, dt, x_strided), mt(out_shape, dt)
    iters = ", ".join("reduction" if i in axes else "parallel" for i in range(n))
    maps = [amap(n, [f"d{i}" for i in range(n)]), amap(n, [f"d{i}" for i in range(n) if i not in axes])]
    if dt == "f32":
        body = "aicf_loop.yield %xv : f32"
    else:
        body = f"%e = arith.extf %xv : {MLIR_T[dt]} to f32\n      aicf_loop.yield %e : f32"
    return f"""
func.func @main(%x: {xt}, %y: {yt}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{', '.join(map(str, shape))}] iterators = [{iters}]
      ins(%x : {xt}) outs(%y : {yt})
      maps = [{', '.join(maps)}] combiners = [{kind}] {{
    ^bb0(%xv: {MLIR_T[dt]}):
      {body}
  }}
  func.return
}}"""


def matmul_program(m, k, n) -> str:
    return f"""
func.func @main(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<{m}x{n}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{m}, {n}, {k}] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%c : memref<{m}x{n}xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {{
    ^bb0(%x: f32, %w: f32):
      %p = arith.mulf %x, %w : f32
      aicf_loop.yield %p : f32
  }}
  func.return
}}"""


def random_shape(rng, rank) -> list[int]:
    pool = [0, 1, 1, 2, 3, 5, 7, 8, 13, 16, 31, 33, 64, 100, 127, 128, 255, 1000, 1024, 4097]
    shape = [int(rng.choice(pool)) for _ in range(rank)]
    while math.prod(shape) > 2_000_000:
        shape[int(rng.integers(rank))] //= 4
    return shape


def elementwise_cases(count=70, seed=1):
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        rank = int(rng.integers(1, 4))
        shape = random_shape(rng, rank)
        if i % 7 == 0:
            shape = [int(rng.integers(1, 300_000))]  # long 1-D with a tail
        def bshape():
            k = int(rng.integers(0, rank + 1))
            return [1 if rng.random() < 0.3 else e for e in shape[rank - k :]]
        dt = ["f32", "f32", "f16", "bf16"][i % 4]
        cases.append((shape, bshape(), bshape(), dt, bool(rng.random() < 0.4)))
    return cases


def reduction_cases(count=50, seed=2):
    rng = np.random.default_rng(seed)
    cases = []
    fixed = [([3, 300_001], [1]), ([2, 1_000_000], [1]), ([4097, 33], [0]), ([200_000, 7], [1]),
             ([64, 64, 65], [0, 2]), ([5, 0, 7], [1]), ([0, 9], [1]), ([1025, 1024], [0])]
    for shape, axes in fixed:
        cases.append((shape, axes, "add", "f32", False))
    for i in range(count - len(fixed)):
        rank = int(rng.integers(1, 4))
        shape = random_shape(rng, rank)
        k = int(rng.integers(1, rank + 1))
        axes = sorted(int(a) for a in rng.choice(rank, size=k, replace=False))
        kind = "add" if rng.random() < 0.7 else "max"
        if kind == "max" and any(shape[a] == 0 for a in axes):
            kind = "add"
        dt = ["f32", "f32", "f16", "bf16"][i % 4]
        cases.append((shape, axes, kind, dt, bool(rng.random() < 0.35)))
    # rows the vector width does not divide (peeled: scalar head, vectors, scalar tail)
    cases += [([3000, 3001], [1], "add", "f32", False), ([257, 1001], [1], "max", "f32", False),
              ([33, 4099], [1], "add", "f16", False), ([7, 100_003], [1], "add", "bf16", False)]
    return cases


def all_programs():
    """Every test program's MLIR text (the nvcc CI test compiles their kernels)."""
    progs = [elementwise_program(*c) for c in elementwise_cases()]
    progs += [reduction_program(*c) for c in reduction_cases()]
    progs += [matmul_program(64, 96, 80), matmul_program(33, 17, 5)]
    return progs


# --- running -----------------------------------------------------------------------------
def compile_text(text: str):
    from aicf.backend.cuda.program import compile_cuda
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    return compile_cuda(parse_module(make_context(), text, "<test>"), "main", sync="full-sync")


def make_input(rng, shape, dt, strided):
    """A device array of `shape`; when strided, a view into a bigger buffer (offset,
    step 2 on the last dim, or a transposed view)."""
    if not strided or not shape:
        host = rng.uniform(-3, 3, size=shape).astype(np.float32)
        if len(shape) == 1 and rng.random() < 0.3:  # contiguous but misaligned
            big = cp.asarray(to_dtype(np.concatenate([host[:1], host]), dt))
            return big[1:], host
        return cp.asarray(to_dtype(host, dt)), host
    if len(shape) >= 2 and rng.random() < 0.5:
        big = rng.uniform(-3, 3, size=shape[::-1]).astype(np.float32)
        dev = cp.asarray(to_dtype(big, dt)).transpose(tuple(range(len(shape)))[::-1])
        host = big.transpose(tuple(range(len(shape)))[::-1])
        return dev, host
    big_shape = [e + 1 for e in shape[:-1]] + [2 * shape[-1] + 3]
    big = rng.uniform(-3, 3, size=big_shape).astype(np.float32)
    sl = tuple([slice(1, 1 + e) for e in shape[:-1]] + [slice(3, 3 + 2 * shape[-1], 2)])
    return cp.asarray(to_dtype(big, dt))[sl], big[sl]


def poisoned(shape, dt):
    if dt == "bf16" or dt == "f16":
        return cp.full(shape, 0xFFFF, dtype=np.uint16).view(NP_T[dt]) if dt == "f16" else cp.full(shape, 0xFFFF, dtype=np.uint16)
    return cp.full(shape, np.nan, dtype=NP_T[dt])


def ulp_diff_f32(out: np.ndarray, ref: np.ndarray) -> np.ndarray:
    o = out.astype(np.float32).view(np.int32).astype(np.int64)
    r = ref.astype(np.float32).view(np.int32).astype(np.int64)
    o = np.where(o < 0, -(o & 0x7FFFFFFF), o)
    r = np.where(r < 0, -(r & 0x7FFFFFFF), r)
    return np.abs(o - r)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", elementwise_cases(), ids=lambda c: f"{c[3]}-{'x'.join(map(str, c[0]))}")
def test_elementwise_sin(case):
    shape, a_shape, b_shape, dt, strided = case
    rng = np.random.default_rng(zlib.crc32(str(case).encode()))
    prog = compile_text(elementwise_program(*case))
    x, xh = make_input(rng, shape, dt, strided)
    a, ah = make_input(rng, a_shape, dt, False)
    b, bh = make_input(rng, b_shape, dt, False)
    y = poisoned(shape, dt)
    prog(x, a, b, y)
    cp.cuda.Device().synchronize()
    out = as_f64(cp.asnumpy(y), dt)
    xs, as_, bs = (as_f64(to_dtype(v, dt), dt) for v in (xh, ah, bh))
    assert not np.isnan(out).any(), "unwritten (poisoned) outputs"
    if dt == "f32":
        # 2 ulp of the float64 sine of the f32 argument (fused or separately rounded)
        arg_fma = (as_ * xs + bs).astype(np.float32)
        arg_sep = ((as_ * xs).astype(np.float32).astype(np.float64) + bs).astype(np.float32)
        d = np.minimum(ulp_diff_f32(out, np.sin(arg_fma.astype(np.float64))),
                       ulp_diff_f32(out, np.sin(arg_sep.astype(np.float64))))
        assert d.size == 0 or d.max() <= 2, f"max ulp error {d.max()}"
    else:
        ref = np.sin((as_ * xs).astype(np.float32).astype(np.float64) + bs)
        tol = 2.0 ** -8 if dt == "f16" else 2.0 ** -6
        assert np.allclose(out, ref, rtol=tol, atol=tol), np.abs(out - ref).max()


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", reduction_cases(), ids=lambda c: f"{c[2]}-{c[3]}-{'x'.join(map(str, c[0]))}-ax{c[1]}")
def test_reduction(case):
    shape, axes, kind, dt, strided = case
    rng = np.random.default_rng(zlib.crc32(str(case).encode()))
    prog = compile_text(reduction_program(*case))
    x, xh = make_input(rng, shape, dt, strided)
    out_shape = [e for i, e in enumerate(shape) if i not in axes]
    y = poisoned(out_shape, dt)
    prog(x, y)
    cp.cuda.Device().synchronize()
    out = as_f64(cp.asnumpy(y), dt)
    xs = as_f64(to_dtype(xh, dt), dt)
    ref = xs.sum(axis=tuple(axes)) if kind == "add" else xs.max(axis=tuple(axes))
    assert not np.isnan(out).any(), "unwritten (poisoned) outputs"
    if kind == "max":
        np.testing.assert_array_equal(out, ref)
    elif dt == "f32":
        # relative to the sum of magnitudes: a sum of centred inputs can cancel to ~0,
        # where no f32 order of summation is close relative to the result itself
        scale = np.abs(xs).sum(axis=tuple(axes))
        err = np.linalg.norm(out - ref) / max(np.linalg.norm(scale), 1e-30)
        assert err < 1e-5, err
    else:
        tol = 2.0 ** -8 if dt == "f16" else 2.0 ** -6
        assert np.allclose(out, ref, rtol=tol, atol=tol * max(1.0, np.abs(ref).max())), np.abs(out - ref).max()


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("mkn", [(64, 96, 80), (33, 17, 5)])
def test_matmul_fallback(mkn):
    m, k, n = mkn
    rng = np.random.default_rng(7)
    prog = compile_text(matmul_program(m, k, n))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = cp.full((m, n), np.nan, dtype=np.float32)
    prog(a, b, c)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    out = cp.asnumpy(c)
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-4


@gpu
@pytest.mark.gpu
def test_runtime_contract():
    """Allocated outputs, NumPy inputs, wrong dtype, overlap, cache, profiler."""
    import aicf.profiling as prof
    from aicf.backend.cuda import runtime as rt
    from aicf.errors import ArgumentError

    text = reduction_program([256, 1024], [1], "add", "f32", False)
    prog = compile_text(text)
    x = np.random.default_rng(0).standard_normal((256, 1024)).astype(np.float32)
    with prof.profiler() as p:
        y = prog(x)
    assert isinstance(y, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(y), x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-4)
    assert p.records and p.records[0].ms > 0 and "GB/s" in p.table()
    with pytest.raises(ArgumentError, match="dtype"):
        prog(x.astype(np.float64))
    buf = cp.zeros(256 * 1024 + 256, dtype=np.float32)
    with pytest.raises(ArgumentError, match="overlap"):
        prog(buf[: 256 * 1024].reshape(256, 1024), buf[:256])
    compiles = rt.STATS["compiles"]
    compile_text(text)(x)
    assert rt.STATS["compiles"] == compiles  # memory cache hit


PEELED = {
    "warp": 'mode = "warp", block = 256 : i64, grid = 64 : i64, split = 1 : i64',
    "block": 'mode = "block", block = 128 : i64, grid = 50 : i64, split = 1 : i64',
    "split": 'mode = "split", block = 128 : i64, grid = 301 : i64, split = 4 : i64, combine = {kind = "gpu.rows", '
             'vec = 4 : i64, mode = "warp", block = 256 : i64, grid = 8 : i64, split = 1 : i64, unroll = 4 : i64, '
             'minblocks = 4 : i64}',
}


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("mode", sorted(PEELED))
def test_peeled_rows_every_mode(mode):
    """A peeled row walk (rows of 3001: each row's head differs) in each mode, the
    schedule given in the IR, against NumPy float64."""
    text = reduction_program([301, 3001], [1], "add", "f32", False).replace(
        "combiners = [add] {",
        f'combiners = [add] attrs = {{aicf.schedule = {{kind = "gpu.rows", vec = 4 : i64, {PEELED[mode]}, '
        'unroll = 4 : i64, minblocks = 2 : i64, peel = 1 : i64}} {',
    )
    prog = compile_text(text)
    x = np.random.default_rng(3).uniform(-3, 3, size=(301, 3001)).astype(np.float32)
    y = poisoned([301], "f32")
    prog(cp.asarray(x), y)
    out = cp.asnumpy(y).astype(np.float64)
    ref = x.astype(np.float64).sum(axis=1)
    assert not np.isnan(out).any(), "unwritten (poisoned) outputs"
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-5
