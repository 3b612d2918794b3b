"""Comparisons, select, iota, erf, gelu's tanh form, reduce_var and i1 casts on the cpu
target against NumPy float64 references, fused and unfused; and the front end's
comparison operators, np.where, np.tril/triu and causal masks.

Bounds as test_cpu_numerics: f32 elementwise within 4 ulp for the composite ops (erf,
gelu), f16 within 1 f16 ulp; comparisons, selects, iota and casts to/from bool exact;
reduce_var relative error < 1e-5 (f32).
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
from test_cpu_numerics import ttype  # noqa: E402

RNG = np.random.default_rng(4321)
NP_DT = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64}
ERF = np.vectorize(math.erf, otypes=[np.float64])
COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}  # fmt: skip


def values(shape, dt, special=True):
    """Random values with ties and, for floats, NaN, infinities and signed zeros."""
    if dt.startswith("i"):
        return RNG.integers(-3, 4, size=shape).astype(NP_DT[dt])
    x = np.round(RNG.standard_normal(shape) * 2, 1).astype(NP_DT[dt])
    if special and x.size >= 6:
        flat = x.reshape(-1)
        flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    return x


def compiled(text, fuse):
    return aicf.compile(text, target="cpu", fuse=fuse)


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("dt", ["f32", "f16", "i32"])
@pytest.mark.parametrize("pred", sorted(COMPARE))
def test_comparison(pred, dt, fuse):
    a_shape, b_shape = (3, 1, 8), (5, 8)
    out = ttype((3, 5, 8), "i1")
    text = f"""func.func @f(%a: {ttype(a_shape, dt)}, %b: {ttype(b_shape, dt)}) -> {out} {{
      %0 = aicf_tensor.{pred} %a, %b : ({ttype(a_shape, dt)}, {ttype(b_shape, dt)}) -> {out}
      func.return %0 : {out}
    }}"""
    a, b = values(a_shape, dt), values(b_shape, dt)
    b.reshape(-1)[:8] = a.reshape(-1)[:8]  # ties, NaN against NaN
    got = compiled(text, fuse)(a, b)
    assert got.dtype == np.bool_
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got, COMPARE[pred](a.astype(np.float64), b.astype(np.float64)))


def test_comparison_of_mixed_types_promotes_first():
    """i32 against f16 compares in f16's compute type, f32, where 2049 is exact: no
    rounding to f16 makes 2049 == 2048 (NumPy compares in float64: the same answer)."""
    text = """func.func @f(%a: tensor<2xi32>, %b: tensor<2xf16>) -> tensor<2xi1> {
      %0 = aicf_tensor.eq %a, %b : (tensor<2xi32>, tensor<2xf16>) -> tensor<2xi1>
      func.return %0 : tensor<2xi1>
    }"""
    got = compiled(text, True)(np.array([2049, 4], np.int32), np.array([2048, 4.0], np.float16))
    np.testing.assert_array_equal(got, [False, True])


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("dt", ["f32", "f16", "i64"])
def test_select_broadcasts_all_operands(dt, fuse):
    c_t, x_t, y_t, o_t = ttype((4, 1), "i1"), ttype((4, 6), dt), ttype((6,), dt), ttype((4, 6), dt)
    text = f"""func.func @f(%c: {c_t}, %x: {x_t}, %y: {y_t}) -> {o_t} {{
      %0 = aicf_tensor.select %c, %x, %y : ({c_t}, {x_t}, {y_t}) -> {o_t}
      func.return %0 : {o_t}
    }}"""
    c = np.array([[True], [False], [True], [False]])
    x, y = values((4, 6), dt), values((6,), dt)
    got = compiled(text, fuse)(c, x, y)
    np.testing.assert_array_equal(got, np.where(c, x, y))


@pytest.mark.parametrize("fuse", [True, False])
def test_select_of_comparison_is_a_causal_mask(fuse):
    """scores where row >= col else -1e10, with the indices from iota: the mask built
    inside the program, exact."""
    text = """func.func @f(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %r = aicf_tensor.iota dim = 0 : tensor<8x8xi32>
      %c = aicf_tensor.iota dim = 1 : tensor<8x8xi32>
      %m = aicf_tensor.ge %r, %c : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
      %n = aicf_tensor.constant dense<-1.0e10> : tensor<f32>
      %0 = aicf_tensor.select %m, %s, %n : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
      func.return %0 : tensor<8x8xf32>
    }"""
    s = values((8, 8), "f32", special=False)
    got = compiled(text, fuse)(s)
    np.testing.assert_array_equal(got, np.where(np.tri(8, dtype=bool), s, np.float32(-1e10)))


@pytest.mark.parametrize("dt", ["i32", "i64", "f32", "f16"])
def test_iota(dt):
    t = ttype((3, 4, 5), dt)
    text = f"""func.func @f() -> ({t}, {t}) {{
      %0 = aicf_tensor.iota dim = 0 : {t}
      %1 = aicf_tensor.iota dim = 2 : {t}
      func.return %0, %1 : {t}, {t}
    }}"""
    a, b = compiled(text, True)()
    assert a.dtype == NP_DT[dt]
    np.testing.assert_array_equal(a, np.indices((3, 4, 5))[0])
    np.testing.assert_array_equal(b, np.indices((3, 4, 5))[2])


def gelu_ref(x, form):
    if form == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + ERF(x / math.sqrt(2)))


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("op", ["erf", "gelu_tanh", "gelu"])
def test_erf_and_gelu_forms(op, dt, fuse):
    t = ttype((4, 100), dt)
    name, attr = ("gelu", ' approximate = "tanh"') if op == "gelu_tanh" else (op, "")
    text = f"""func.func @f(%x: {t}) -> {t} {{
      %0 = aicf_tensor.{name} %x{attr} : ({t}) -> {t}
      func.return %0 : {t}
    }}"""
    x = (RNG.standard_normal((4, 100)) * 3).astype(NP_DT[dt])
    x.reshape(-1)[:2] = [np.nan, np.inf]
    x64 = x.astype(np.float64)
    ref = ERF(x64) if op == "erf" else gelu_ref(x64, "tanh" if op == "gelu_tanh" else "none")
    got = compiled(text, fuse)(x)
    if op == "erf":
        assert_close(got, ref, ulps=4 if dt == "f32" else 1)
    else:
        # x * (1 + erf(x / sqrt 2)) cancels for x << 0: the error is relative to |x|
        eps = float(np.finfo(NP_DT[dt]).eps)
        np.testing.assert_allclose(got, ref, rtol=4 * eps, atol=2 * eps * np.nanmax(np.abs(x64[np.isfinite(x64)])))


def test_gelu_forms_differ():
    """The tanh form is an approximation, not the erf form: they differ by ~1e-4 near
    |x| = 2, which tells a wrong dispatch apart."""
    text = """func.func @f(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
      %0 = aicf_tensor.gelu %x : (tensor<64xf32>) -> tensor<64xf32>
      %1 = aicf_tensor.gelu %x approximate = "tanh" : (tensor<64xf32>) -> tensor<64xf32>
      func.return %0, %1 : tensor<64xf32>, tensor<64xf32>
    }"""
    x = np.linspace(-4, 4, 64, dtype=np.float32)
    exact, approx = compiled(text, True)(x)
    assert np.abs(exact - gelu_ref(x.astype(np.float64), "none")).max() < 1e-6
    assert np.abs(approx - gelu_ref(x.astype(np.float64), "tanh")).max() < 1e-6
    assert np.abs(exact - approx).max() > 1e-4


@pytest.mark.parametrize(
    "shape, axes, keepdims, ddof",
    [((6, 50), [-1], False, 0), ((6, 50), [0], True, 1), ((3, 4, 5), [0, 2], False, 1),
     ((7,), [0], False, 0), ((2, 1), [1], False, 1)],
)  # fmt: skip
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_reduce_var(shape, axes, keepdims, ddof, dt):
    x = (RNG.standard_normal(shape) * 3 + 100).astype(NP_DT[dt])  # a large mean
    ref = np.var(x.astype(np.float64), axis=tuple(axes), keepdims=keepdims, ddof=ddof)
    out = ttype(ref.shape, dt)
    flags = (f" ddof = {ddof}" if ddof else "") + (" keepdims" if keepdims else "")
    text = f"""func.func @f(%x: {ttype(shape, dt)}) -> {out} {{
      %0 = aicf_tensor.reduce_var %x axes = {axes}{flags} : ({ttype(shape, dt)}) -> {out}
      func.return %0 : {out}
    }}"""
    with np.errstate(divide="ignore", invalid="ignore"):
        got = compiled(text, True)(x)
    assert got.shape == ref.shape
    if not np.isfinite(ref).all():  # n == ddof: NumPy's inf or NaN
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        return
    if dt == "f32":
        assert_close(got, ref, reduction=True, rtol=1e-5)
    else:
        assert_close(got, ref, ulps=1)


@pytest.mark.parametrize("dt", ["f32", "f16", "i32"])
def test_casts_to_and_from_bool(dt):
    """astype(bool) is `!= 0` (NaN is true); true converts to 1, never -1."""
    t, b = ttype((16,), dt), ttype((16,), "i1")
    text = f"""func.func @f(%x: {t}) -> ({b}, {t}) {{
      %0 = aicf_tensor.cast %x : ({t}) -> {b}
      %1 = aicf_tensor.cast %0 : ({b}) -> {t}
      func.return %0, %1 : {b}, {t}
    }}"""
    x = values((16,), dt)
    x[-1] = 0
    m, back = compiled(text, True)(x)
    np.testing.assert_array_equal(m, x.astype(bool))
    np.testing.assert_array_equal(back, x.astype(bool).astype(x.dtype))


# --- the front end ----------------------------------------------------------------------------

N = 6


def mask_where(s):
    return np.where(np.tri(N) == 1, s, -1e10)


def mask_arith(s):
    return s + (1 - np.tri(N)) * -1e10


def mask_tril(s):
    return np.tril(s) + np.triu(s, 2)


def operators(s):
    return (s > 0, s <= 0.5, s == s, s != 1.0, np.greater_equal(s, 0.25), 0 < s)


def where_forms(s):
    m = s > 0
    return np.where(m, aicf.ops.gelu(s, approximate="tanh"), aicf.ops.erf(s)), np.where(s, 1.0, s)


@pytest.mark.parametrize("fn", [mask_where, mask_arith, mask_tril, operators, where_forms])
def test_front_end_masks_trace_and_run(fn):
    s = values((N, N), "f32", special=False)
    s[0, 0] = 0.0
    got = aicf.jit(fn, target="cpu")(s)
    s64 = s.astype(np.float64)
    if fn is where_forms:
        ref = (np.where(s64 > 0, gelu_ref(s64, "tanh"), ERF(s64)), np.where(s64, 1.0, s64))
    else:
        ref = fn(s64)
    got, ref = (got, ref) if isinstance(ref, tuple) else ((got,), (ref,))
    for g, r in zip(got, ref):
        assert g.dtype == (np.bool_ if r.dtype == np.bool_ else np.float32)
        np.testing.assert_allclose(g, r.astype(g.dtype), rtol=1e-6, atol=1e-7)


def test_front_end_reduce_var_and_iota():
    def f(x):
        return aicf.ops.reduce_var(x, -1, ddof=1), aicf.ops.iota([3, 4], 1, "int64")

    x = values((5, 7), "f32", special=False)
    v, i = aicf.jit(f, target="cpu")(x)
    assert_close(v, np.var(x.astype(np.float64), -1, ddof=1), reduction=True, rtol=1e-6)
    assert i.dtype == np.int64
    np.testing.assert_array_equal(i, np.indices((3, 4))[1])


# --- slices, concatenate, split; views read in place -------------------------------------------


def slicing(x, y):
    a = x[1:, ::-2]
    b = x[..., 3]
    c = x[None, 2, 1:7:3]
    parts = np.split(x, 2, axis=1)
    q, k, v = np.array_split(y, 3, axis=-1)
    return (np.exp(a) + 1, b, c, np.concatenate([parts[1], parts[0]], 1), np.stack([k, v], 1), q,
            np.hstack([x, x]), np.vstack([x[0], x[1]]), np.sin(x.T[::-1]) * 2, x[3:1])  # fmt: skip


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_front_end_slices_concatenate_split(dt):
    x = values((4, 8), dt, special=False)
    y = values((3, 10), dt, special=False)
    got = aicf.jit(slicing, target="cpu")(x, y)
    ref = slicing(x.astype(np.float64), y.astype(np.float64))
    for g, r in zip(got, ref):
        assert g.shape == r.shape and g.dtype == x.dtype
        assert_close(g, r, ulps=2)


@pytest.mark.parametrize("fuse", [True, False])
def test_views_of_intermediates_are_read_in_place(fuse):
    """exp, then a reversed strided slice, a transpose and a reshape, then sin: the three
    view copies fold into the sin nest (two nests in all), and the values are NumPy's."""
    text = """func.func @f(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
      %e = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %0 = aicf_tensor.slice %e start = [0, 7] stop = [4, -1] step = [2, -1] : (tensor<4x8xf32>) -> tensor<2x8xf32>
      %t = aicf_tensor.transpose %0 perm = [1, 0] : (tensor<2x8xf32>) -> tensor<8x2xf32>
      %r = aicf_tensor.reshape %t shape = [2, 8] : (tensor<8x2xf32>) -> tensor<2x8xf32>
      %s = aicf_tensor.sin %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
      func.return %s : tensor<2x8xf32>
    }"""
    exe = compiled(text, fuse)
    from aicf.dialects.loop import NestOp

    assert sum(isinstance(o, NestOp) for o in exe.module.walk()) == 2
    x = values((4, 8), "f32", special=False)
    e = np.exp(x.astype(np.float64)).astype(np.float32).astype(np.float64)  # f32 intermediate
    view = e[0:4:2, 7::-1].T.reshape(2, 8)
    ref = np.sin(view)
    # a 1-ulp difference in exp moves sin by up to |exp| ulps of 1: bound the error so
    bound = 4 * np.spacing(np.abs(ref).astype(np.float32)) + 2 * np.spacing(np.float32(1)) * view
    assert np.all(np.abs(exe(x) - ref) <= bound)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dt", ["f32", "i64", "i1"])
def test_concatenate(axis, dt):
    shapes = [(3, 4), (3, 4), (3, 4)]
    shapes = [tuple(n + 2 * k if i == axis % 2 else n for i, n in enumerate(s)) for k, s in enumerate(shapes)]
    out_shape = np.concatenate([np.zeros(s) for s in shapes], axis).shape
    args = ", ".join(f"%a{k}: {ttype(s, dt)}" for k, s in enumerate(shapes))
    names = ", ".join(f"%a{k}" for k in range(3))
    types = ", ".join(ttype(s, dt) for s in shapes)
    text = f"""func.func @f({args}) -> {ttype(out_shape, dt)} {{
      %0 = aicf_tensor.concatenate {names} axis = {axis} : ({types}) -> {ttype(out_shape, dt)}
      func.return %0 : {ttype(out_shape, dt)}
    }}"""
    xs = [values(s, dt) if dt != "i1" else RNG.random(s) < 0.5 for s in shapes]
    got = compiled(text, True)(*xs)
    np.testing.assert_array_equal(got, np.concatenate(xs, axis))


@pytest.mark.parametrize(
    "index, words",
    [
        ((slice(None), 8), "index 8 is out of bounds for axis 1 with size 8"),
        ((0, 0, 0), "too many indices for a tensor of rank 2"),
        ((np.array([True, False, True, True]),), "indexing a traced tensor with a boolean mask is not supported yet"),
        ((np.array([0.5]),), "an index array must hold integers, got float64"),
        ((1.5,), "an index must be an integer"),
    ],
)
def test_front_end_index_errors(index, words):
    def f(x):
        return x[index]

    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(f, aicf.TensorSpec((4, 8)))
    assert __file__ in str(err.value) and words in str(err.value), str(err.value)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda x: np.split(x, 3, axis=1), "3 sections do not divide axis 1 of extent 8 equally"),
        (lambda x: np.concatenate([x, x.T]), "shapes 4x8, 8x4 differ off the axis"),
        (lambda x: np.concatenate([x, x], axis=2), "axis 2 is out of range for rank 2"),
        (lambda x: np.concatenate([x, x.astype(np.float16)]), "different element types"),
        # iterated as split indices, each raised a raw TypeError
        (lambda x: np.split(x, None), "the number of sections must be an integer, got NoneType"),
        (lambda x: np.split(x, 2.5), "the number of sections must be an integer, got float 2.5"),
        (lambda x: np.split(x, "2"), "the number of sections must be an integer, got str"),
    ],
)
def test_front_end_split_concat_errors(fn, words):
    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(fn, aicf.TensorSpec((4, 8)))
    assert words in str(err.value), str(err.value)


@pytest.mark.parametrize("sections", [np.array(2), 2.0, np.float64(4.0), np.int8(2)])
def test_front_end_split_sections_as_numpy_takes_them(sections):
    """A 0-d array or an integer-valued float is a number of sections to NumPy (len()
    fails); iterating it as split indices raised a raw TypeError."""
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    for split in (np.split, np.array_split):
        got = aicf.jit(lambda a: split(a, sections, axis=1))(x)
        want = split(x, sections, axis=1)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


# --- argmax / argmin ------------------------------------------------------------------------------


def arg_extremes(x, i):
    return (np.argmax(x, axis=1), np.argmin(x, axis=0, keepdims=True), np.argmax(x),
            np.argmin(i, 1), np.argmax(i, 0), np.argmax(x, keepdims=True),
            np.argmin(i, keepdims=True))  # fmt: skip


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_argmax_argmin_first_index_and_nan(dt):
    """Ties (values rounded to one decimal) give the first index, a NaN wins (the first
    one), integers at INT_MIN / INT_MAX do not overflow; results are i64 as NumPy's,
    and keepdims over all axes keeps every axis (shape (1, 1))."""
    x = np.round(RNG.standard_normal((6, 9)), 0).astype(NP_DT[dt])
    x[2, 3] = x[2, 7] = np.nan
    i = RNG.integers(-3, 3, (6, 9)).astype(np.int32)
    i[0, 0], i[1, :] = -(2**31), 2**31 - 1
    got = aicf.jit(arg_extremes, target="cpu")(x, i)
    for g, r in zip(got, arg_extremes(x, i)):
        assert g.dtype == np.int64 and g.shape == r.shape
        np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda x: np.argmax(x, axis=2), "axis 2 is out of range for rank 2"),
        (lambda x: np.argmin(x[:, 4:4], axis=1), "of an empty axis"),
        (lambda x: np.argmax(x, out=x), "numpy.argmax: out="),
    ],
)
def test_argmax_errors(fn, words):
    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(fn, aicf.TensorSpec((4, 8)))
    assert words in str(err.value), str(err.value)


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("shape, axes, ddof, view", [
    ((4, 1), [1], 0, None), ((4, 1), [1], 1, None), ((4, 8), [], 0, None), ((), [], 0, None),
    ((4,), [1], 1, (4, 1)), ((3, 1, 5), [1, 2], 1, None),
])  # fmt: skip
def test_reduce_var_over_unit_or_no_axes_is_not_its_input(shape, axes, ddof, view, fuse):
    """A sum, max or mean over unit dims is its operand; a variance there is 0 (NaN
    where n <= ddof): the reshape cleanup and the pipelines must not take the former
    rule for the latter (a hostile attack found them returning x)."""
    src = ttype(shape, "f32")
    vt = ttype(view, "f32") if view else src
    red = tuple(d for i, d in enumerate(view or shape) if i not in axes)
    out = ttype(red, "f32")
    reshape = f"%r = aicf_tensor.reshape %x : ({src}) -> {vt}\n      " if view else ""
    operand = "%r" if view else "%x"
    flags = f" ddof = {ddof}" if ddof else ""
    text = f"""func.func @f(%x: {src}) -> {out} {{
      {reshape}%0 = aicf_tensor.reduce_var {operand} axes = {axes}{flags} : ({vt}) -> {out}
      func.return %0 : {out}
    }}"""
    x = (RNG.standard_normal(shape) * 3 + 1).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = np.var(x.reshape(view or shape).astype(np.float64), axis=tuple(axes), ddof=ddof)
        got = aicf.compile(text, target="cpu", fuse=fuse)(x)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_front_end_array_split_past_the_extent_builds_one_empty_part():
    """np.array_split(x, 10**6) of an axis of 4 traced a slice per section (~12
    minutes, bounded only at 2**20 sections); the empty sections are one tensor."""
    import time

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    start = time.perf_counter()
    seen = []
    aicf.trace(lambda a: (seen.append(np.array_split(a, 20000)), a)[1], x)
    assert time.perf_counter() - start < 5  # ~14 s before
    parts = seen[0]
    assert len(parts) == 20000 and [p.shape for p in parts[:5]] == [(1, 6)] * 4 + [(0, 6)]
    assert len({id(p) for p in parts}) == 5
