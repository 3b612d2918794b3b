"""The one C-style scalar printer (backend/cstyle.py) on both targets: hand-written
loop-level bodies that compute in f16 and bf16 (rounded once per op, like NumPy on
those dtypes), zero-extending and unsigned conversions, floor division, IEEE compares
on bf16, checked against NumPy on the cpu target; on cuda the same body compiles with
nvcc here and runs on the GPU machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.dtypes import f32_to_bf16_bits  # noqa: E402
from aicf.reference import bf16_bits_to_f64  # noqa: E402

from gpu_support import cp, gpu  # noqa: E402

N = 64
OPS = f"""
func.func @ops(%x: memref<{N}xbf16>, %h: memref<{N}xf16>, %i: memref<{N}xi32>, %j: memref<{N}xi32>,
               %o1: memref<{N}xbf16>, %o2: memref<{N}xf16>, %o3: memref<{N}xi64>, %o4: memref<{N}xf32>,
               %o5: memref<{N}xi32>, %o6: memref<{N}xi32>, %o7: memref<{N}xf16>) attributes {{aicf.num_outputs = 7 : i64}} {{
  aicf_loop.nest domain = [{N}] iterators = [parallel]
      ins(%x, %h, %i, %j : memref<{N}xbf16>, memref<{N}xf16>, memref<{N}xi32>, memref<{N}xi32>)
      outs(%o1, %o2, %o3, %o4, %o5, %o6, %o7 : memref<{N}xbf16>, memref<{N}xf16>, memref<{N}xi64>, memref<{N}xf32>, memref<{N}xi32>, memref<{N}xi32>, memref<{N}xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0),
              (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: bf16, %b: f16, %c: i32, %d: i32):
    %s = arith.mulf %a, %a : bf16
    %t = arith.addf %s, %a : bf16
    %u = math.sin %b : f16
    %v = arith.extui %c : i32 to i64
    %w = arith.uitofp %c : i32 to f32
    %q = arith.floordivsi %c, %d : i32
    %k = arith.cmpf olt, %a, %t : bf16
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %kk = arith.select %k, %one, %zero : i32
    %r = math.rsqrt %b : f16
    aicf_loop.yield %t, %u, %v, %w, %q, %kk, %r : bf16, f16, i64, f32, i32, i32, f16
  }}
  func.return
}}
"""


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = f32_to_bf16_bits(rng.standard_normal(N).astype(np.float32) * 3)
    h = (rng.random(N) * 8 + 0.01).astype(np.float16)
    i = rng.integers(-(2**31), 2**31, N, dtype=np.int64).astype(np.int32)
    i[:4] = [-1, -7, 7, np.iinfo(np.int32).min]
    j = rng.integers(-9, 10, N).astype(np.int32)
    j[:4] = [2, 2, -2, 3]
    return x, h, i, j


def _bf16(v: np.ndarray) -> np.ndarray:
    """float64 values rounded to bf16 (through f32, as exact as the op's f32 result)."""
    return bf16_bits_to_f64(f32_to_bf16_bits(v.astype(np.float32)))


def _check(outs, x, h, i, j):
    o1, o2, o3, o4, o5, o6, o7 = (np.asarray(o) for o in outs)
    a = bf16_bits_to_f64(x)
    s = _bf16(a * a)
    t = _bf16(s + a)
    np.testing.assert_array_equal(bf16_bits_to_f64(o1), t)
    hf = h.astype(np.float64)
    ulp = np.spacing(np.abs(np.sin(hf)).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(o2.astype(np.float64) - np.sin(hf)) <= ulp), "sin on f16 beyond 1 ulp"
    np.testing.assert_array_equal(o3, i.view(np.uint32).astype(np.int64))
    np.testing.assert_array_equal(o4, i.view(np.uint32).astype(np.float32))
    with np.errstate(divide="ignore", over="ignore"):
        expect = np.where(j == 0, 0, np.floor_divide(i, np.where(j == 0, 1, j)))
    np.testing.assert_array_equal(o5, expect.astype(np.int32))
    np.testing.assert_array_equal(o6, (a < t).astype(np.int32))
    rs = 1 / np.sqrt(hf)
    ulp = np.spacing(rs.astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(o7.astype(np.float64) - rs) <= ulp)


def test_cpu_body_in_halves_and_unsigned_conversions():
    exe = aicf.compile(OPS, target="cpu")
    args = _inputs()
    _check(exe(*args), *args)


def _cuda_source() -> str:
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), OPS, "ops.mlir")
    run_pipeline(module, ["aicf-plan{target=h100}", "aicf-lower-to-gpu{target=h100}"])
    return emit_cuda(module)


def test_cuda_spells_halves_through_f32():
    src = _cuda_source()
    assert "sinf(aicf_h2f(" in src  # f16 math computes in f32 ...
    assert "aicf_f2h((float)(sinf(" in src  # ... and rounds once
    assert "aicf_floordivsi32(" in src
    assert "(long long)(unsigned)" in src  # extui zero-extends


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_body_compiles(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text(_cuda_source())
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", str(cu), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


@gpu
def test_cuda_body_in_halves_and_unsigned_conversions():
    exe = aicf.compile(OPS, target="cuda")
    args = _inputs(1)
    outs = exe(*(cp.asarray(a) for a in args))
    _check([cp.asnumpy(o) for o in outs], *args)


FPOWI = """
func.func @fpowi(%x: memref<8x{t}>, %n: memref<8xi32>, %y: memref<8x{t}>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%x, %n : memref<8x{t}>, memref<8xi32>) outs(%y : memref<8x{t}>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: {t}, %b: i32):
    %r = math.fpowi %a, %b : {t}, i32
    aicf_loop.yield %r : {t}
  }}
  func.return
}}
"""


@pytest.mark.parametrize("t", ["f32", "f64", "f16"])
def test_fpowi_keeps_the_parity_of_the_exponent(t):
    # the exponent was converted to a float of the base's type: (float)(2^31 - 1) is
    # 2^31, even, and (-1) ** (2^31 - 1) came out 1
    dt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[t]
    x = np.array([-1.0, -1.0, 2.0, 0.0, -0.0, -2.0, np.nan, 1.5], dt)
    n = np.array([2**31 - 1, -(2**31 - 1), -2, -1, -1, 3, 0, 2], np.int32)
    want = np.power(x.astype(np.float64), n.astype(np.float64))  # exact exponents in f64
    got = aicf.compile(FPOWI.format(t=t), target="cpu")(x, n)
    np.testing.assert_array_equal(got, want.astype(dt))
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_fpowi_compiles(tmp_path):
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    module = parse_module(make_context(), FPOWI.format(t="f32"), "fpowi.mlir")
    run_pipeline(module, ["aicf-plan{target=h100}", "aicf-lower-to-gpu{target=h100}"])
    src = emit_cuda(module)
    assert "aicf_fpowi(" in src
    cu = tmp_path / "k.cu"
    cu.write_text(src)
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", str(cu), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


SHIFT = """
func.func @shift(%x: memref<{n}x{t}>, %s: memref<{n}x{t}>, %y: memref<{n}x{t}>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{n}] iterators = [parallel]
      ins(%x, %s : memref<{n}x{t}>, memref<{n}x{t}>) outs(%y : memref<{n}x{t}>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: {t}, %b: {t}):
    %r = arith.{op} %a, %b : {t}
    aicf_loop.yield %r : {t}
  }}
  func.return
}}
"""


@pytest.mark.parametrize("n", [1, 64])
@pytest.mark.parametrize("t", ["i8", "i32", "i64"])
@pytest.mark.parametrize("op", ["shli", "shrsi", "shrui"])
def test_shift_by_the_width_or_more_is_numpys(op, t, n):
    # C leaves it undefined: x86 masks the count, so 1 << 40 was 256 (1 << 32 was 1) in a
    # scalar loop while the vectorised one gave 0
    dt = {"i8": np.int8, "i32": np.int32, "i64": np.int64}[t]
    bits = np.iinfo(dt).bits
    rng = np.random.default_rng(3)
    x = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
    s = rng.integers(-2, bits + 10, n).astype(dt)
    x[0], s[0] = -5, bits + 8
    udt = np.dtype(dt).newbyteorder("=").str.replace("i", "u")
    # NumPy's shifts (ints, exact): past the width 0, or the sign's fill for >>
    xs, ss = [int(v) for v in x], [int(v) for v in s]
    if op == "shrui":
        xs, ss = [v % 2**bits for v in xs], [v % 2**bits for v in ss]
    want = []
    for v, c in zip(xs, ss):
        if op == "shli":
            r = (v << c) if 0 <= c < bits else 0
        elif op == "shrsi":
            r = (v >> c) if 0 <= c < bits else (-1 if v < 0 else 0)
        else:
            r = (v >> c) if c < bits else 0
        want.append(r % 2**bits)
    want = np.array(want, dtype=np.uint64).astype(udt).view(dt)
    got = aicf.compile(SHIFT.format(n=n, t=t, op=op), target="cpu")(x, s)
    np.testing.assert_array_equal(got, want)
