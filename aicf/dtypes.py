"""Element types at the API boundary: the NumPy/CuPy dtype of each MLIR element type.

bf16 has no NumPy/CuPy dtype: a bf16 tensor crosses the API as a uint16 array holding
the bf16 bits, on both targets. An `ml_dtypes.bfloat16` array is accepted as input too
(it is read as its bits, without a copy); outputs are uint16 bits.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
)
from xdsl.ir import Attribute

from aicf.errors import CompileError


def bf16_dtype() -> np.dtype:
    return np.dtype(np.uint16)


def f32_to_bf16_bits(x) -> np.ndarray:
    """Float values (f16, f32, f64 or Python floats) rounded once to bf16 (nearest
    even; NaN stays a quiet NaN), as bits."""
    a = np.asarray(x)
    if a.dtype.kind in "iu":
        f = _int_to_f32_odd(a)
    else:
        with np.errstate(over="ignore"):  # past f32's range is inf, as in bf16
            f = a.astype(np.float32)
    bits = np.ascontiguousarray(f).view(np.uint32).reshape(f.shape)  # 0-d stays 0-d
    if a.dtype.kind not in "iuf" or (a.dtype.kind == "f" and a.dtype.itemsize > 4):
        # f64 -> f32 rounds to nearest and f32 -> bf16 again: a value just past a bf16
        # midpoint can land on it and then tie to even the wrong way. Rounding to odd
        # into f32 (truncate, set the last bit if inexact) keeps the sticky bit, and f32
        # has 16 bits more than bf16, so the second rounding is the only one.
        with np.errstate(invalid="ignore", over="ignore"):
            wide = a.astype(np.float64)
            back = f.astype(np.float64)
            inexact = (back != wide) & ~np.isnan(wide)
            bits = np.where(inexact & (np.abs(back) > np.abs(wide)), bits - np.uint32(1), bits)
            bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), rounded)


def _int_to_f32_odd(a: np.ndarray) -> np.ndarray:
    """Integers rounded to odd into f32 (truncated to 24 bits, the last one set if any
    dropped bit was nonzero), so that rounding to bf16 is their only rounding. Through
    float64 an int64 past 2^53 rounds first and can land on a bf16 midpoint."""
    neg = a < 0
    u = a.astype(np.uint64)  # two's complement: 0 - u is the magnitude of a negative
    u = np.where(neg, np.uint64(0) - u, u)
    # bits past 24 (one more where the float64 rounded up to a power of two: 23 kept)
    s = np.maximum(np.frexp(u.astype(np.float64))[1] - 24, 0).astype(np.uint64)
    sticky = (u & ((np.uint64(1) << s) - np.uint64(1))) != 0
    m = (u >> s) | sticky.astype(np.uint64)
    f = np.ldexp(m.astype(np.float64), s.astype(np.int32)).astype(np.float32)  # exact
    return np.where(neg, -f, f)


def as_bf16_bits(a):
    """An ml_dtypes.bfloat16 array as its uint16 bits (a view); anything else as is."""
    if getattr(a, "dtype", None) is not None and a.dtype.name == "bfloat16":
        return a.view(np.uint16)
    return a


def numpy_dtype(t: Attribute) -> np.dtype:
    """The array dtype of an element type."""
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, BFloat16Type):
        return bf16_dtype()
    if isinstance(t, IntegerType):
        w = t.width.data
        return np.dtype(np.bool_) if w == 1 else np.dtype(f"int{w}")
    raise CompileError(f"no array dtype for the element type {t}")
