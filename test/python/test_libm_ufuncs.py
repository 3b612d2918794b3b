"""NumPy's float ufuncs past exp/log/sin/cos/tanh/sqrt (log1p, expm1, the inverse and
hyperbolic trigonometry, cbrt, the roundings, arctan2, copysign) and the compositions
over them (sign, isnan/isinf/isfinite, signbit, logaddexp, hypot, fmax, heaviside, ...)
on both targets, against NumPy on the same inputs: special values (signed zeros,
infinities, NaN, ties for the roundings, huge and tiny), each float dtype, and the
float NumPy picks for an integer input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gpu_support import cp, gpu

import aicf

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.5, 1e-8, -1e-8, 1e-30, 100.0,
                    -100.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 0.9999, 1.0001, 89.0, -89.0,
                    0.1, 7.0, -3.7])  # fmt: skip
UNARY = ["log1p", "expm1", "log2", "log10", "exp2", "tan", "arcsin", "arccos", "arctan", "sinh",
         "cosh", "arcsinh", "arccosh", "arctanh", "cbrt", "rint", "floor", "ceil", "trunc",
         "sign", "isnan", "isinf", "isfinite", "signbit", "reciprocal", "deg2rad", "rad2deg",
         "fabs", "exp", "log", "sqrt"]  # fmt: skip
BINARY = ["arctan2", "copysign", "logaddexp", "logaddexp2", "hypot", "fmax", "fmin", "heaviside",
          "float_power"]  # fmt: skip
# relative error allowed (libm's and CUDA's functions are within a few ulp; f16 and
# bf16 compute in f32 and round once)
TOL = {np.float16: 1e-3, np.float32: 2e-6, np.float64: 1e-13}


def _assert_matches(name, out, ref):
    out, ref = np.asarray(out), np.asarray(ref)
    assert out.dtype == ref.dtype and out.shape == ref.shape, (name, out.dtype, ref.dtype)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(out, ref, err_msg=name)
        return
    o, r = out.astype(np.float64), ref.astype(np.float64)
    tiny = np.finfo(ref.dtype).tiny
    np.testing.assert_array_equal(np.isnan(o), np.isnan(r), err_msg=f"{name}: NaN")
    inf = np.isinf(o) | np.isinf(r)
    np.testing.assert_array_equal(o[inf], r[inf], err_msg=f"{name}: infinities")
    fin = ~inf & ~np.isnan(r)
    err = np.abs(o[fin] - r[fin])
    ok = (err <= TOL[ref.dtype.type] * np.abs(r[fin])) | (err <= 4 * tiny)
    assert ok.all(), f"{name}: {o[fin][~ok]} where NumPy gives {r[fin][~ok]}"
    zero = fin & (r == 0) & (o == 0)
    np.testing.assert_array_equal(np.signbit(o[zero]), np.signbit(r[zero]), err_msg=f"{name}: sign of 0")


def _run(fn, args, target):
    if target == "cpu":
        return aicf.jit(fn)(*args)
    out = aicf.jit(fn, target="cuda")(*[cp.asarray(a) for a in args])
    return cp.asnumpy(out)


TARGETS = ["cpu", pytest.param("cuda", marks=gpu)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_float(name, dtype, target):
    f = getattr(np, name)
    x = SPECIAL.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = f(x)
    _assert_matches(name, _run(lambda a: f(a), [x], target), ref)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("name", BINARY)
def test_binary_float(name, dtype, target):
    f = getattr(np, name)
    x = SPECIAL.astype(dtype)
    y = np.roll(SPECIAL, 3).astype(dtype)  # every pairing of kinds of special values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = f(x, y)
    _assert_matches(name, _run(lambda a, b: f(a, b), [x, y], target), ref)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("reciprocal",)])
def test_unary_of_integers_takes_numpys_float(name, dtype, target):
    """np.sin of an int32 is float64 in NumPy (of a bool f16); floor of an int is the
    int. Before, every float ufunc refused integer inputs."""
    f = getattr(np, name)
    x = np.array([0, 1, -1, 5, -7, 100, 2, -2, 3], dtype) if dtype != np.bool_ else np.array([0, 1, 1, 0], bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = f(x)
        except TypeError:  # NumPy has no loop for it (sign of a bool)
            with pytest.raises(aicf.CompileError, match=r"test_libm_ufuncs.py:\d+: error:"):
                _run(lambda a: f(a), [x], target)
            return
    _assert_matches(name, _run(lambda a: f(a), [x], target), ref)


def test_round_half_even_and_decimals():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.005, 123.456, -0.0, np.nan, np.inf], np.float32)
    for decimals in (0, 1, 2, -1):
        out = aicf.jit(lambda a: np.round(a, decimals))(x)
        np.testing.assert_array_equal(out, np.round(x, decimals))


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "deg2rad", "rad2deg", "hypot"])
def test_half_compositions_round_once(name, dtype):
    """The ufuncs aicf composes of several operations, on f16/bf16, are computed in f32
    and rounded once, as NumPy's half loops: each step rounded to the half type left
    about a third of the results an ulp or more off (rad2deg of f16 1.673 was 95.8125,
    NumPy 95.875)."""
    if dtype == "bfloat16":
        dt = np.dtype(pytest.importorskip("ml_dtypes").bfloat16)  # NumPy's reference for bf16
    else:
        dt = np.dtype(dtype)
    rng = np.random.default_rng(3)
    x, y = ((rng.standard_normal(2000) * 4).astype(dt) for _ in range(2))
    f = getattr(np, name)
    args = [x, y] if name in ("logaddexp", "logaddexp2", "hypot") else [x]
    ref = f(*args).astype(np.float64)
    out = aicf.jit(lambda *a: f(*a))(*args)
    out = (out.view(dt) if out.dtype == np.uint16 else out).astype(np.float64)
    differ = out != ref
    # hypot: libm's hypotf and the scaled formula in f32 may round apart, rarely
    assert differ.sum() <= (len(ref) // 200 if name == "hypot" else 0), (out[differ][:4], ref[differ][:4])


@pytest.mark.parametrize("name, x, y", [
    ("logaddexp", np.array([False, True, True]), np.array([0.0, 1.0, 3.0], np.float32)),
    ("logaddexp2", np.array([False, True, True]), np.array([0.0, 1.0, 3.0], np.float32)),
    ("heaviside", np.array([-1.0, 0.0, 2.0], np.float32), np.array([1, 2, 3], np.int32)),
    ("heaviside", np.array([False, True, False]), np.array([True, False, False])),
])  # fmt: skip
def test_mixed_operands_in_the_common_float(name, x, y):
    """logaddexp(bool, f32) of equal values added log 2 in the bool's f16 (0.69336 for
    log 2); heaviside's h0 kept its bool/int dtype (f32 where NumPy gives f16 / f64)."""
    f = getattr(np, name)
    _assert_matches(name, aicf.jit(lambda a, b: f(a, b))(x, y), f(x, y))
