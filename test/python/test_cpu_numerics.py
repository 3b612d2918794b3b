"""Every tensor op of DESIGN.md on the cpu target against NumPy (float64 references).

Bounds (DESIGN.md): f32 elementwise within 2 ulp of the float64 result for the basic
arithmetic and sin/cos/tanh/exp/log/sqrt; the composite ops (gelu, sigmoid, rsqrt, pow)
within 4 ulp, as documented in backend/c/emit.py; f16 within 1 f16 ulp; f32 reductions
relative error < 1e-5, matmul < 1e-4.

Each group of cases is one module with one function per case, compiled once (later
entries of the same module hit the build cache). Comparisons go through
aicf.testing.assert_close: `ulps=` for elementwise results, `reduction=True` for sums,
means and matmuls.
"""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.testing import assert_close  # noqa: E402

RNG = np.random.default_rng(1234)
NP_DT = {"f32": np.float32, "f16": np.float16}


def ttype(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def compile_cases(cases):
    """cases: list of (signature text, body text); returns a list of Executables."""
    funcs = []
    for i, (sig, body) in enumerate(cases):
        funcs.append(f"func.func @k{i}{sig} {{\n{body}\n}}")
    text = "\n".join(funcs)
    return [aicf.compile(text, target="cpu", entry=f"k{i}") for i in range(len(cases))]


def rand(shape, dt, positive=False):
    x = RNG.standard_normal(shape) * 2
    if positive:
        x = np.abs(x) + 0.05
    return x.astype(dt)


# --- unary -----------------------------------------------------------------------------

_erf = np.frompyfunc(math.erf, 1, 1)
UNARY = {
    "neg": (np.negative, 0.5, False),
    "abs": (np.abs, 0.5, False),
    "relu": (lambda x: np.maximum(x, 0), 0.5, False),
    "exp": (np.exp, 2, False),
    "log": (np.log, 2, True),
    "sin": (np.sin, 2, False),
    "cos": (np.cos, 2, False),
    "tanh": (np.tanh, 2, False),
    "sqrt": (np.sqrt, 2, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 4, True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), 4, False),
    "gelu": (lambda x: x * 0.5 * (1 + np.asarray(_erf(x / math.sqrt(2)), np.float64)), 4, False),
}
UNARY_SHAPES = [(0, 5), (1, 7), (3, 1, 4), (), (37, 129)]


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_unary(dt):
    cases, meta = [], []
    for name in UNARY:
        for shape in UNARY_SHAPES:
            t = ttype(shape, dt)
            cases.append((f"(%x: {t}) -> tensor<*x{dt}>",
                          f"  %0 = aicf_tensor.{name} %x : ({t}) -> tensor<*x{dt}>\n"
                          f"  func.return %0 : tensor<*x{dt}>"))  # fmt: skip
            meta.append((name, shape))
    for exe, (name, shape) in zip(compile_cases(cases), meta):
        fn, bound, positive = UNARY[name]
        x = rand(shape, NP_DT[dt], positive)
        out = exe(x)
        assert out.shape == shape and out.dtype == NP_DT[dt]
        ref = np.asarray(fn(x.astype(np.float64)), np.float64)
        bound = bound if dt == "f32" else 1.0
        if name == "gelu":
            # the lowering's 0.5x(1+erf(x/sqrt2)) cancels for x << 0: bound the error
            # by ulps of max(|ref|, 1) until it uses erfc
            assert_close(out, ref, ulps=0, atol=bound * np.spacing(NP_DT[dt](1)), msg=name)
        else:
            assert_close(out, ref, ulps=bound, msg=f"{name} {shape}")


def test_vector_sin_cos_tanh_accuracy_many_inputs():
    """The libmvec vector variants over a wide range of arguments (f32, 2 ulp)."""
    n = 1 << 18
    x = np.concatenate([RNG.uniform(-1e4, 1e4, n), RNG.standard_normal(n) * 3]).astype(np.float32)
    t = ttype(x.shape, "f32")
    cases = [(f"(%x: {t}) -> tensor<*xf32>", f"  %0 = aicf_tensor.{f} %x : ({t}) -> tensor<*xf32>\n"
              f"  func.return %0 : tensor<*xf32>") for f in ("sin", "cos", "tanh", "exp", "log")]
    exes = compile_cases(cases)
    for exe, f in zip(exes, (np.sin, np.cos, np.tanh, np.exp, np.log)):
        xin = np.abs(x) + 1e-3 if f is np.log else (np.clip(x, -80, 80) if f is np.exp else x)
        xin = xin.astype(np.float32)
        assert_close(exe(xin), f(xin.astype(np.float64)), ulps=2, msg=f.__name__)


# --- binary ----------------------------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum, "pow": np.power,
}  # fmt: skip
BINARY_SHAPES = [((4, 1, 3), (5, 1)), ((), (3, 4)), ((0, 3), (1, 3)), ((2, 0, 4), (4,)),
                 ((7, 9), (7, 9)), ((1,), (6, 1))]  # fmt: skip


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_binary_broadcasting(dt):
    cases, meta = [], []
    for name in BINARY:
        for sa, sb in BINARY_SHAPES:
            ta, tb = ttype(sa, dt), ttype(sb, dt)
            cases.append((f"(%a: {ta}, %b: {tb}) -> tensor<*x{dt}>",
                          f"  %0 = aicf_tensor.{name} %a, %b : ({ta}, {tb}) -> tensor<*x{dt}>\n"
                          f"  func.return %0 : tensor<*x{dt}>"))  # fmt: skip
            meta.append((name, sa, sb))
    for exe, (name, sa, sb) in zip(compile_cases(cases), meta):
        a = rand(sa, NP_DT[dt], positive=name == "pow")
        b = rand(sb, NP_DT[dt])
        out = exe(a, b)
        ref = BINARY[name](a.astype(np.float64), b.astype(np.float64))
        assert_close(out, ref, ulps=2 if dt == "f32" else 1, msg=f"{name} {sa} {sb}")


def test_max_min_propagate_nan():
    t = ttype((4,), "f32")
    cases = [(f"(%a: {t}, %b: {t}) -> tensor<*xf32>",
              f"  %0 = aicf_tensor.{n} %a, %b : ({t}, {t}) -> tensor<*xf32>\n"
              f"  func.return %0 : tensor<*xf32>") for n in ("max", "min")]  # fmt: skip
    a = np.array([np.nan, 1, 2, np.nan], np.float32)
    b = np.array([0, np.nan, 3, np.nan], np.float32)
    for exe, f in zip(compile_cases(cases), (np.maximum, np.minimum)):
        np.testing.assert_array_equal(exe(a, b), f(a, b))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_products_are_rounded_before_they_are_added(dt):
    """a * b - c * d with each product rounded, as NumPy and torch compute it: contracted
    into fma(a, b, -(c * d)) (GCC's default for gnu11) the result was the rounding error
    of c * d: with c * d == a * b (the real part of a complex product) it came out
    1e-8 instead of 0, and a * 3 + d was an ulp off at 3% of the elements."""
    a = RNG.standard_normal(4096).astype(dt)
    b = RNG.standard_normal(4096).astype(dt)
    f = aicf.jit(lambda a, b, c, d: (a * b - c * d, a * 3 + d))
    diff, affine = f(a, b, b.copy(), a.copy())
    np.testing.assert_array_equal(np.asarray(diff), np.zeros_like(a))
    np.testing.assert_array_equal(np.asarray(affine), a * dt(3) + a)


# --- reductions --------------------------------------------------------------------------

REDUCE_CASES = [((5, 7), [-1], False), ((5, 7), [0], True), ((3, 4, 5), [1], False),
                ((3, 4, 5), [0, 2], True), ((3, 4, 5), [-3, -2, -1], False), ((1, 6), [0], False),
                ((4, 0), [0], False), ((2, 1, 3), [1], True), ((300, 257), [-1], False),
                ((257, 300), [0], False)]  # fmt: skip


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_reductions(dt):
    ops = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_mean": np.mean}
    cases, meta = [], []
    for name in ops:
        for shape, axes, keep in REDUCE_CASES:
            if name != "reduce_sum" and 0 in shape:
                continue  # NumPy: max of nothing raises, mean of nothing is NaN
            t = ttype(shape, dt)
            kd = " keepdims" if keep else ""
            cases.append((f"(%x: {t}) -> tensor<*x{dt}>",
                          f"  %0 = aicf_tensor.{name} %x axes = {axes}{kd} : ({t}) -> tensor<*x{dt}>\n"
                          f"  func.return %0 : tensor<*x{dt}>"))  # fmt: skip
            meta.append((name, shape, axes, keep))
    for exe, (name, shape, axes, keep) in zip(compile_cases(cases), meta):
        x = rand(shape, NP_DT[dt])
        out = exe(x)
        ref = ops[name](x.astype(np.float64), axis=tuple(axes), keepdims=keep)
        where = f"{name} {shape} axes={axes} keepdims={keep}"
        if name == "reduce_max":
            assert_close(out, ref, ulps=0, msg=where)
        else:
            assert_close(out, ref, reduction=True, rtol=1e-5 if dt == "f32" else 2e-3, msg=where)


# --- matmul, layout, cast ----------------------------------------------------------------

MATMUL_SHAPES = [((8, 16), (16, 5)), ((3, 8, 16), (16, 5)), ((2, 1, 4, 6), (3, 6, 2)),
                 ((16,), (16, 5)), ((8, 16), (16,)), ((1, 1), (1, 1)), ((4, 0), (0, 3))]  # fmt: skip


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_matmul(dt):
    cases = []
    for sa, sb in MATMUL_SHAPES:
        ta, tb = ttype(sa, dt), ttype(sb, dt)
        cases.append((f"(%a: {ta}, %b: {tb}) -> tensor<*x{dt}>",
                      f"  %0 = aicf_tensor.matmul %a, %b : ({ta}, {tb}) -> tensor<*x{dt}>\n"
                      f"  func.return %0 : tensor<*x{dt}>"))  # fmt: skip
    for exe, (sa, sb) in zip(compile_cases(cases), MATMUL_SHAPES):
        a, b = rand(sa, NP_DT[dt]), rand(sb, NP_DT[dt])
        out = exe(a, b)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        assert_close(out, ref, reduction=True, rtol=1e-4 if dt == "f32" else 2e-3, msg=f"{sa} {sb}")


def test_layout_and_cast():
    cases = [
        ("(%x: tensor<4x6xf32>) -> tensor<*xf32>",
         "  %0 = aicf_tensor.reshape %x shape = [3, -1] : (tensor<4x6xf32>) -> tensor<*xf32>\n"
         "  func.return %0 : tensor<*xf32>"),
        ("(%x: tensor<2x3x4xf32>) -> tensor<*xf32>",
         "  %0 = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<*xf32>\n"
         "  func.return %0 : tensor<*xf32>"),
        ("(%x: tensor<3x1xf32>) -> tensor<*xf32>",
         "  %0 = aicf_tensor.broadcast_to %x shape = [2, 3, 5] : (tensor<3x1xf32>) -> tensor<*xf32>\n"
         "  func.return %0 : tensor<*xf32>"),
        ("(%x: tensor<5x3xf32>) -> tensor<5x3xf16>",
         "  %0 = aicf_tensor.cast %x : (tensor<5x3xf32>) -> tensor<5x3xf16>\n"
         "  func.return %0 : tensor<5x3xf16>"),
        ("(%x: tensor<5x3xf16>) -> tensor<5x3xf32>",
         "  %0 = aicf_tensor.cast %x : (tensor<5x3xf16>) -> tensor<5x3xf32>\n"
         "  func.return %0 : tensor<5x3xf32>"),
        ("(%x: tensor<4x6xf32>) -> tensor<*xf32>",
         "  %c = aicf_tensor.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>\n"
         "  %0 = aicf_tensor.reshape %x shape = [6, 4] : (tensor<4x6xf32>) -> tensor<*xf32>\n"
         "  %1 = aicf_tensor.transpose %0 perm = [1, 0] : (tensor<*xf32>) -> tensor<*xf32>\n"
         "  %2 = aicf_tensor.mul %1, %c : (tensor<*xf32>, tensor<6xf32>) -> tensor<*xf32>\n"
         "  func.return %2 : tensor<*xf32>"),
    ]
    x46 = rand((4, 6), np.float32)
    refs = [
        (x46, x46.reshape(3, -1)),
        (rand((2, 3, 4), np.float32), None),
        (rand((3, 1), np.float32), None),
        (rand((5, 3), np.float32), None),
        (rand((5, 3), np.float16), None),
        (x46, x46.reshape(6, 4).T * np.arange(1, 7, dtype=np.float32)),
    ]
    exes = compile_cases(cases)
    np.testing.assert_array_equal(exes[0](x46), x46.reshape(3, 8))
    x = refs[1][0]
    np.testing.assert_array_equal(exes[1](x), x.transpose(2, 0, 1))
    x = refs[2][0]
    np.testing.assert_array_equal(exes[2](x), np.broadcast_to(x, (2, 3, 5)))
    x = refs[3][0]
    np.testing.assert_array_equal(exes[3](x), x.astype(np.float16))
    x = refs[4][0]
    np.testing.assert_array_equal(exes[4](x), x.astype(np.float32))
    np.testing.assert_array_equal(exes[5](x46), refs[5][1])


# --- strided inputs and argument errors --------------------------------------------------


@pytest.fixture(scope="module")
def addsum():
    text = """
    func.func @f(%a: tensor<6x8xf32>, %b: tensor<8xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
      %0 = aicf_tensor.add %a, %b : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<*xf32>
      %1 = aicf_tensor.reduce_sum %0 axes = [0] : (tensor<*xf32>) -> tensor<*xf32>
      func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
    }"""
    return aicf.compile(text, target="cpu")


def test_strided_and_offset_inputs(addsum):
    base = rand((20, 30), np.float32)
    bvec = rand((40,), np.float32)
    views = [
        (base[2:8, 3:11], bvec[:8]),                 # offset, row stride 30
        (base[::3, ::-2][:6, :8], bvec[::5]),        # steps, a negative stride
        (base[:8, :6].T, bvec[10:18]),               # transposed
        (np.broadcast_to(bvec[:8], (6, 8)), bvec[1:9]),  # zero stride
        (np.ascontiguousarray(base[:6, :8]), bvec[:8]),
    ]
    for a, b in views:
        s, t = addsum(a, b)
        ref = a.astype(np.float64) + b
        assert_close(s, ref, ulps=0.5)
        assert_close(t, (a + b).astype(np.float64).sum(0), reduction=True, rtol=1e-6)
    assert not np.shares_memory(s, base)


def test_wrong_arguments(addsum):
    a, b = rand((6, 8), np.float32), rand((8,), np.float32)
    with pytest.raises(aicf.ArgumentError, match=r"takes 2 argument"):
        addsum(a)
    with pytest.raises(aicf.ArgumentError,
                       match=r"argument #1 \('%b'\) of @f: expected float32 array of shape "
                             r"\(8,\), got float64 \(8,\)"):  # fmt: skip
        addsum(a, b.astype(np.float64))
    with pytest.raises(aicf.ArgumentError, match=r"argument #0 \('%a'\).*got float32 \(8, 6\)"):
        addsum(a.T.copy(), b)
    with pytest.raises(aicf.ArgumentError, match=r"argument #0"):
        addsum([1.0] * 48, b)


def test_debug_poisons_outputs_and_results_are_written():
    text = """
    func.func @f(%a: tensor<3x5xf32>) -> tensor<*xf32> {
      %0 = aicf_tensor.reduce_max %a axes = [1] : (tensor<3x5xf32>) -> tensor<*xf32>
      func.return %0 : tensor<*xf32>
    }"""
    exe = aicf.compile(text, target="cpu", debug=True)
    a = rand((3, 5), np.float32)
    np.testing.assert_array_equal(exe(a), a.max(1))
