"""Element types at the API boundary: the NumPy/CuPy dtype of each MLIR element type.

bf16 has no NumPy dtype: it is `ml_dtypes.bfloat16` when that package is installed,
else a uint16 array holding the bf16 bits (both targets agree on this).
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
    try:
        import ml_dtypes  # type: ignore[import-not-found]

        return np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        return np.dtype(np.uint16)


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
