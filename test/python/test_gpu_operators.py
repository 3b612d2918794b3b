"""Comparisons, select, iota, erf, gelu's tanh form, reduce_var, reduce_prod/min, scans and bool casts on the
cuda target against NumPy float64, fused and unfused. Bool (i1) tensors are one byte
per element (CuPy's bool).

Run on the GPU machine: `python3 -m pytest -m gpu test/python/test_gpu_operators.py`.
`operator_programs()` (no GPU needed) gives the loop-level programs whose kernels
test_nvcc_kernels.py compiles with nvcc.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module

from gpu_support import cp, gpu
from test_gpu_fusion import FUSE_PIPELINE

ERF = np.vectorize(math.erf, otypes=[np.float64])

# (name, MLIR of @main, inputs from a generator, float64 reference of the outputs)
MASK = """func.func @main(%s: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %r = aicf_tensor.iota dim = 0 : tensor<{R}x{C}xi32>
  %c = aicf_tensor.iota dim = 1 : tensor<{R}x{C}xi32>
  %m = aicf_tensor.ge %r, %c : (tensor<{R}x{C}xi32>, tensor<{R}x{C}xi32>) -> tensor<{R}x{C}xi1>
  %n = aicf_tensor.constant dense<-1.0e10> : tensor<f32>
  %x = aicf_tensor.select %m, %s, %n : (tensor<{R}x{C}xi1>, tensor<{R}x{C}xf32>, tensor<f32>) -> tensor<{R}x{C}xf32>
  func.return %x : tensor<{R}x{C}xf32>
}}"""

ACTIVATIONS = """func.func @main(%s: tensor<{R}x{C}xf32>, %t: tensor<{R}x{C}xf16>) -> (tensor<{R}x{C}xi1>, tensor<{R}x{C}xf16>) {{
  %z = aicf_tensor.constant dense<0.0> : tensor<f32>
  %p = aicf_tensor.gt %s, %z : (tensor<{R}x{C}xf32>, tensor<f32>) -> tensor<{R}x{C}xi1>
  %g = aicf_tensor.gelu %t approximate = "tanh" : (tensor<{R}x{C}xf16>) -> tensor<{R}x{C}xf16>
  %e = aicf_tensor.erf %t : (tensor<{R}x{C}xf16>) -> tensor<{R}x{C}xf16>
  %y = aicf_tensor.select %p, %g, %e : (tensor<{R}x{C}xi1>, tensor<{R}x{C}xf16>, tensor<{R}x{C}xf16>) -> tensor<{R}x{C}xf16>
  func.return %p, %y : tensor<{R}x{C}xi1>, tensor<{R}x{C}xf16>
}}"""

VAR = """func.func @main(%x: tensor<{R}x{C}xf32>) -> (tensor<{R}xf32>, tensor<{C}xf32>) {{
  %0 = aicf_tensor.reduce_var %x axes = [1] ddof = 1 : (tensor<{R}x{C}xf32>) -> tensor<{R}xf32>
  %1 = aicf_tensor.reduce_var %x axes = [0] : (tensor<{R}x{C}xf32>) -> tensor<{C}xf32>
  func.return %0, %1 : tensor<{R}xf32>, tensor<{C}xf32>
}}"""

VIEWS = """func.func @main(%x: tensor<{R}x{C}xf32>, %y: tensor<{R}x3xf32>) -> (tensor<{C}x{H}xf32>, tensor<{R}x{C3}xf32>) {{
  %e = aicf_tensor.exp %x : (tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32>
  %s = aicf_tensor.slice %e start = [{R1}, 0] stop = [-1, {C}] step = [-2, 1] : (tensor<{R}x{C}xf32>) -> tensor<{H}x{C}xf32>
  %t = aicf_tensor.transpose %s perm = [1, 0] : (tensor<{H}x{C}xf32>) -> tensor<{C}x{H}xf32>
  %r = aicf_tensor.sin %t : (tensor<{C}x{H}xf32>) -> tensor<{C}x{H}xf32>
  %c = aicf_tensor.concatenate %y, %x axis = 1 : (tensor<{R}x3xf32>, tensor<{R}x{C}xf32>) -> tensor<{R}x{C3}xf32>
  func.return %r, %c : tensor<{C}x{H}xf32>, tensor<{R}x{C3}xf32>
}}"""

SHAPES = [(8, 8), (37, 129), (1024, 1000)]


def main(x):
    return np.argmax(x, axis=1), np.argmin(x, axis=0)


def argmax_text(r: int, c: int) -> str:
    """argmax along rows and argmin along columns, traced (entry @main)."""
    return str(aicf.trace(main, aicf.TensorSpec((r, c))))


def views_text(r: int, c: int) -> str:
    return VIEWS.format(R=r, C=c, R1=r - 1, H=len(range(r - 1, -1, -2)), C3=c + 3)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def operator_programs() -> list[str]:
    """Loop-level texts (entry @main) of this file's programs, for the nvcc CI test."""
    out = []
    for r, c in SHAPES:
        for text in (MASK.format(R=r, C=c), ACTIVATIONS.format(R=r, C=c), VAR.format(R=r, C=c), views_text(r, c),
                     argmax_text(r, c), PROD_MIN.format(R=r, C=c), SCANS.format(R=r, C=c)):
            module = parse_module(make_context(), text, "<operators>")
            run_pipeline(module, FUSE_PIPELINE)
            out.append(str(module))
    return out


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("shape", SHAPES)
def test_masks_and_activations(shape, fuse):
    r, c = shape
    rng = np.random.default_rng(r * c)
    s = (rng.standard_normal(shape) * 2).astype(np.float32)
    t = (rng.standard_normal(shape) * 2).astype(np.float16)
    s.reshape(-1)[:2] = [np.nan, 0.0]
    mask = aicf.compile(MASK.format(R=r, C=c), target="cuda", fuse=fuse)
    x = cp.asnumpy(mask(cp.asarray(s)))
    np.testing.assert_array_equal(x, np.where(np.tri(r, c, dtype=bool), s, np.float32(-1e10)))
    act = aicf.compile(ACTIVATIONS.format(R=r, C=c), target="cuda", fuse=fuse)
    p, y = (cp.asnumpy(o) for o in act(cp.asarray(s), cp.asarray(t)))
    s64, t64 = s.astype(np.float64), t.astype(np.float64)
    assert p.dtype == np.bool_
    np.testing.assert_array_equal(p, s64 > 0)
    ref = np.where(s64 > 0, gelu_tanh(t64), ERF(t64)).astype(np.float16)
    spacing = np.spacing(np.abs(ref)).astype(np.float64)
    assert np.all(np.abs(y.astype(np.float64) - ref) <= spacing)  # 1 f16 ulp


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES)
def test_reduce_var(shape):
    r, c = shape
    x = (np.random.default_rng(7).standard_normal(shape) * 3 + 50).astype(np.float32)
    exe = aicf.compile(VAR.format(R=r, C=c), target="cuda")
    rows, cols = (cp.asnumpy(o) for o in exe(cp.asarray(x)))
    x64 = x.astype(np.float64)
    for got, ref in ((rows, np.var(x64, 1, ddof=1)), (cols, np.var(x64, 0))):
        assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 1e-5


PROD_MIN = """func.func @main(%x: tensor<{R}x{C}xf32>, %h: tensor<{R}x{C}xf16>, %i: tensor<{R}x{C}xi32>) -> (tensor<{R}xf32>, tensor<{C}xf16>, tensor<{R}xi32>, tensor<{C}xi32>, tensor<{R}x{C}xf32>) {{
  %p = aicf_tensor.reduce_prod %x axes = [1] : (tensor<{R}x{C}xf32>) -> tensor<{R}xf32>
  %m = aicf_tensor.reduce_min %h axes = [0] : (tensor<{R}x{C}xf16>) -> tensor<{C}xf16>
  %q = aicf_tensor.reduce_prod %i axes = [1] : (tensor<{R}x{C}xi32>) -> tensor<{R}xi32>
  %n = aicf_tensor.reduce_min %i axes = [0] : (tensor<{R}x{C}xi32>) -> tensor<{C}xi32>
  %r = aicf_tensor.reduce_min %x axes = [1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<{R}x1xf32>
  %d = aicf_tensor.sub %x, %r : (tensor<{R}x{C}xf32>, tensor<{R}x1xf32>) -> tensor<{R}x{C}xf32>
  func.return %p, %m, %q, %n, %d : tensor<{R}xf32>, tensor<{C}xf16>, tensor<{R}xi32>, tensor<{C}xi32>, tensor<{R}x{C}xf32>
}}"""


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("shape", SHAPES)
def test_reduce_prod_and_min(shape, fuse):
    """The mul and min combiners through the row, column and row-group schedules
    (warp shuffles of products and minima): products of values near 1, integer
    products that wrap, minima with NaN and INT_MIN."""
    r, c = shape
    rng = np.random.default_rng(11)
    x = (1 + rng.standard_normal(shape) / (4 * c)).astype(np.float32)
    x[r // 2, c // 3] = np.nan
    h = (rng.standard_normal(shape) * 8).astype(np.float16)
    i = rng.integers(-3, 4, shape, dtype=np.int32)
    i[0, 0] = np.iinfo(np.int32).min
    exe = aicf.compile(PROD_MIN.format(R=r, C=c), target="cuda", fuse=fuse)
    p, m, q, n, d = (cp.asnumpy(o) for o in exe(*(cp.asarray(a) for a in (x, h, i))))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(p, np.prod(x64, 1), rtol=1e-5)
    np.testing.assert_array_equal(m, np.min(h, 0))
    np.testing.assert_array_equal(q, np.prod(i, 1, dtype=np.int32))  # wraps as NumPy's int32
    np.testing.assert_array_equal(n, np.min(i, 0))
    np.testing.assert_array_equal(d, x - np.min(x, 1, keepdims=True))


SCANS = """func.func @main(%x: tensor<{R}x{C}xf32>, %h: tensor<{R}x{C}xf16>, %i: tensor<{R}x{C}xi64>) -> (tensor<{R}x{C}xf32>, tensor<{R}x{C}xf16>, tensor<{R}x{C}xi64>, tensor<{R}x{C}xf32>) {{
  %a = aicf_tensor.cumsum %x axis = 1 : (tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32>
  %b = aicf_tensor.cumsum %h axis = 0 : (tensor<{R}x{C}xf16>) -> tensor<{R}x{C}xf16>
  %c = aicf_tensor.cumsum %i axis = -1 : (tensor<{R}x{C}xi64>) -> tensor<{R}x{C}xi64>
  %d = aicf_tensor.cumprod %x axis = 0 : (tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32>
  func.return %a, %b, %c, %d : tensor<{R}x{C}xf32>, tensor<{R}x{C}xf16>, tensor<{R}x{C}xi64>, tensor<{R}x{C}xf32>
}}"""


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES)
def test_cumsum_and_cumprod(shape):
    """Scans are guarded nests (a triangle of folds): the schedules that walk a guarded
    reduction dim, along rows and along columns."""
    r, c = shape
    rng = np.random.default_rng(13)
    x = (1 + rng.standard_normal(shape) / (4 * r)).astype(np.float32)
    h = rng.standard_normal(shape).astype(np.float16)
    i = rng.integers(-2**40, 2**40, shape)
    exe = aicf.compile(SCANS.format(R=r, C=c), target="cuda")
    a, b, k, d = (cp.asnumpy(o) for o in exe(*(cp.asarray(v) for v in (x, h, i))))
    x64, h64 = x.astype(np.float64), h.astype(np.float64)
    f32, f16 = np.finfo(np.float32).eps, np.finfo(np.float16).eps
    # within eps per summed magnitude of the exact running sums (f16 adds in f32)
    assert np.all(np.abs(a - np.cumsum(x64, 1)) <= 2 * f32 * np.cumsum(np.abs(x64), 1))
    assert np.all(np.abs(b - np.cumsum(h64, 0)) <= f16 * np.abs(np.cumsum(h64, 0)) + 2 * f32 * np.cumsum(np.abs(h64), 0))
    np.testing.assert_array_equal(k, np.cumsum(i, -1))
    np.testing.assert_allclose(d, np.cumprod(x64, 0), rtol=4 * f32 * r)


@gpu
@pytest.mark.gpu
def test_front_end_causal_masks():
    n = 64

    def by_where(s):
        return np.where(np.tri(n) == 1, s, -1e10)

    def by_arith(s):
        return s + (1 - np.tri(n)) * -1e10

    s = np.random.default_rng(3).standard_normal((n, n)).astype(np.float32)
    for fn in (by_where, by_arith):
        got = cp.asnumpy(aicf.jit(fn, target="cuda")(cp.asarray(s)))
        np.testing.assert_array_equal(got, fn(s.astype(np.float64)).astype(np.float32))


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES)
def test_views_and_concatenate(shape):
    """A reversed strided slice and a transpose of an intermediate, read in place by sin
    (aicf-fold-view-copies), and a concatenate."""
    r, c = shape
    rng = np.random.default_rng(r + c)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal((r, 3)).astype(np.float32)
    exe = aicf.compile(views_text(r, c), target="cuda")
    got, cat = (cp.asnumpy(o) for o in exe(cp.asarray(x), cp.asarray(y)))
    e = np.exp(x.astype(np.float64)).astype(np.float32).astype(np.float64)
    ref = np.sin(e[::-2].T)
    # a 1-ulp difference in exp moves sin by up to |exp| ulps of 1: bound the error so
    bound = 4 * np.spacing(np.abs(ref).astype(np.float32)) + 2 * np.spacing(np.float32(1)) * e[::-2].T
    assert np.all(np.abs(got - ref) <= bound)
    np.testing.assert_array_equal(cat, np.concatenate([y, x], 1))


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES)
def test_argmax_argmin(shape):
    """First index on ties and of the first NaN, as NumPy; i64 results."""
    r, c = shape
    x = np.round(np.random.default_rng(r).standard_normal(shape), 1).astype(np.float32)
    x[r // 2, :: max(1, c // 3)] = np.nan
    exe = aicf.compile(argmax_text(r, c), target="cuda")
    amax, amin = (cp.asnumpy(o) for o in exe(cp.asarray(x)))
    assert amax.dtype == np.int64
    np.testing.assert_array_equal(amax, np.argmax(x, 1))
    np.testing.assert_array_equal(amin, np.argmin(x, 0))
