"""Testing programs compiled with aicf: `assert_close`, and the pytest plugin
(`aicf.pytest_plugin`: a `target` fixture over cpu and cuda, the `gpu` marker).

    from aicf.testing import assert_close

    def test_gelu(target):                       # runs on cpu, and on cuda with a GPU
        exe = aicf.compile(GELU, target=target)
        assert_close(exe(x), reference_gelu(x.astype(np.float64)))

The reference is computed in float64 (NumPy); `actual` is what aicf returned (NumPy
or CuPy array, any `__array__` or DLPack array; a bf16 result is uint16 bits: pass
`dtype="bf16"`).

Default tolerances follow the element type of `actual`, as torch.testing.assert_close
does, in two regimes:
- elementwise results (the default): each element within `ulps` units in the last
  place of the stored type at the expected value (plus `atol`, 0 by default). An elementwise op in
  f16/bf16 is computed in f32 and rounded once, so one ulp and a little; f32 libm
  functions and short chains of them are within a few ulps.
- reductions (`reduction=True`: sums, means, matmuls, norms): the error of a sum of n
  terms grows with n and with cancellation, so elements are compared relative to the
  largest expected magnitude: |actual - expected| <= atol + rtol * max|expected|
  (rtol as aicf-run's tolerances: f32 1e-5, f16 1e-2, bf16 5e-2, f64 1e-12; atol 0).
Giving `rtol` on an elementwise comparison uses torch's rule instead,
|actual - expected| <= atol + rtol * |expected|, with torch's default atol (1e-5 for
f32/f16/bf16, 1e-7 for f64). NaN equals NaN (equal_nan); an
infinity must match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Tolerance", "assert_close", "default_tolerance"]


@dataclass(frozen=True)
class Tolerance:
    ulps: float  # elementwise: units in the last place of the stored type
    atol: float  # with an explicit rtol only (torch's rule)
    rtol: float  # reductions: relative to the largest expected magnitude


# ulps a little above one rounding of the type; atol as torch.testing's.
_DEFAULTS = {
    "f64": Tolerance(ulps=16, atol=1e-7, rtol=1e-12),
    "f32": Tolerance(ulps=8, atol=1e-5, rtol=1e-5),
    "f16": Tolerance(ulps=2, atol=1e-5, rtol=1e-2),
    "bf16": Tolerance(ulps=2, atol=1e-5, rtol=5e-2),
}
_MANTISSA_BITS = {"f64": 52, "f32": 23, "f16": 10, "bf16": 7}
_MIN_EXPONENT = {"f64": -1022, "f32": -126, "f16": -14, "bf16": -126}
_NUMPY_NAMES = {"float64": "f64", "float32": "f32", "float16": "f16"}
_DTYPES = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1")  # for `dtype=`


def default_tolerance(dtype: str) -> Tolerance | None:
    """The default tolerance of a float type ("f32", "float16", "bf16", ...); None for
    integer and bool types, which must match exactly."""
    return _DEFAULTS.get(_NUMPY_NAMES.get(str(dtype), str(dtype)))


def _to_numpy(a: Any) -> tuple[np.ndarray, str | None]:
    """`a` as a NumPy array, and its element type when NumPy has no name for it (a
    torch bf16 tensor arrives as its f32 values, exactly)."""
    if hasattr(a, "get") and not isinstance(a, np.ndarray):  # CuPy
        a = a.get()
    if not isinstance(a, np.ndarray) and hasattr(a, "__dlpack__"):
        try:
            a = np.from_dlpack(a)
        except (BufferError, RuntimeError, TypeError):
            pass
    if hasattr(a, "detach"):  # a torch tensor that DLPack could not hand over
        a = a.detach().cpu()
        if str(a.dtype) == "torch.bfloat16":
            return a.float().numpy(), "bf16"
        a = a.numpy()
    return np.asarray(a), None


def _numeric(a: np.ndarray, what: str) -> np.ndarray:
    """`a`, if it holds real numbers (complex would lose its imaginary part to the
    float64 comparison, and pass where it should not)."""
    if a.dtype.kind not in "biuf":
        raise TypeError(f"assert_close compares arrays of real numbers; {what} has dtype {a.dtype}")
    return a


def _tolerance_arg(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) or not value >= 0:
        raise ValueError(f"assert_close: {name} must be a number >= 0, got {value!r}")
    return float(value)


def _ulp(expected: np.ndarray, kind: str) -> np.ndarray:
    """The spacing of `kind` at |expected| (the gap to the next representable value),
    never below that of the smallest normal number."""
    mag = np.abs(expected)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    exponent = np.maximum(np.where(np.isfinite(exponent), exponent, 0), _MIN_EXPONENT[kind])
    return np.exp2(exponent - _MANTISSA_BITS[kind])


def _index(flat: int, shape: tuple[int, ...]) -> str:
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if shape else "()"


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    ulps: float | None = None,
    reduction: bool = False,
    dtype: str | None = None,
    equal_nan: bool = True,
    msg: str | None = None,
) -> None:
    """Raise AssertionError, with the worst element and the count of mismatches,
    unless `actual` is close to `expected` (see the module docstring for the rules).
    `dtype` overrides the element type read from `actual` ("bf16" for bf16 bits)."""
    rtol, atol, ulps = (_tolerance_arg(v, n) for v, n in ((rtol, "rtol"), (atol, "atol"), (ulps, "ulps")))
    a, a_kind = _to_numpy(actual)
    a = _numeric(a, "actual")
    e = _numeric(_to_numpy(expected)[0], "expected").astype(np.float64)
    if dtype is not None:
        if not isinstance(dtype, str):  # np.float16, np.dtype("float16")
            try:
                dtype = np.dtype(dtype).name
            except TypeError:
                dtype = repr(dtype)
        dtype = _NUMPY_NAMES.get(dtype, dtype)  # "float16" is "f16" (its ulps)
        if dtype not in _DTYPES:
            raise ValueError(f"assert_close: dtype must be one of {', '.join(_DTYPES)} (or a NumPy "
                             f"float name), got {dtype!r}")
    kind = dtype or a_kind or _NUMPY_NAMES.get(a.dtype.name, a.dtype.name)
    if kind == "bf16":
        from aicf.reference import bf16_bits_to_f64

        a = bf16_bits_to_f64(a) if a.dtype == np.uint16 else a.astype(np.float64)
    prefix = f"{msg}: " if msg else ""
    if a.shape != e.shape:
        raise AssertionError(f"{prefix}shapes differ: actual {a.shape}, expected {e.shape}")
    a = a.astype(np.float64)
    tol = default_tolerance(kind)
    if tol is None:  # integers and bools: exact
        tol = Tolerance(ulps=0, atol=0, rtol=0)
        rule = "exact"
    if reduction or rtol is None:
        atol = 0.0 if atol is None else atol
    elif atol is None:
        atol = tol.atol
    if reduction:
        rtol = tol.rtol if rtol is None else rtol
        finite = np.abs(e[np.isfinite(e)])
        scale = float(finite.max()) if finite.size else 0.0
        allowed = atol + rtol * scale
        rule = f"reduction: |actual - expected| <= {atol:g} + {rtol:g} * max|expected| ({scale:.4g})"
    elif rtol is not None:
        allowed = atol + rtol * np.abs(e)
        rule = f"|actual - expected| <= {atol:g} + {rtol:g} * |expected|"
    else:
        n_ulps = tol.ulps if ulps is None else ulps
        allowed = atol + n_ulps * _ulp(e, kind) if kind in _MANTISSA_BITS else atol
        if kind in _MANTISSA_BITS:
            rule = f"elementwise: |actual - expected| <= {atol:g} + {n_ulps:g} ulp({kind})"

    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
        both_nan = np.isnan(a) & np.isnan(e) if equal_nan else np.zeros(a.shape, bool)
        same_inf = np.isinf(e) & (a == e)
        ok = both_nan | same_inf | (diff <= allowed)
    bad = ~ok
    count = int(np.count_nonzero(bad))
    if count == 0:
        return
    # the worst element: largest error beyond its allowance (NaN/inf mismatches first)
    excess = np.where(np.isfinite(diff), diff - allowed, np.inf)
    worst = int(np.argmax(np.where(bad, excess, -np.inf)))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(bad, diff / np.abs(e), 0.0)
    abs_at = int(np.argmax(np.where(bad, np.nan_to_num(diff, nan=np.inf), -1)))
    rel_at = int(np.argmax(np.where(bad, np.nan_to_num(rel, nan=np.inf), -1)))
    allowed_at = float(np.broadcast_to(allowed, a.shape).flat[worst])
    raise AssertionError(
        f"{prefix}arrays are not close ({kind}, {rule})\n"
        f"  mismatched elements: {count} / {a.size} ({100 * count / a.size:.3g}%)\n"
        f"  greatest absolute difference: {diff.flat[abs_at]:.6g} at index "
        f"{_index(abs_at, a.shape)}\n"
        f"  greatest relative difference: {rel.flat[rel_at]:.6g} at index "
        f"{_index(rel_at, a.shape)}\n"
        f"  worst element {_index(worst, a.shape)}: actual {a.flat[worst]:.9g}, expected "
        f"{e.flat[worst]:.9g}, allowed difference {allowed_at:.6g}"
    )
