"""The traced tensor: a proxy for an SSA value with NumPy's operators.

A `Tensor` only exists while a function is traced; its operators build `aicf_tensor`
ops through the tracer that owns it. `dtype` is MLIR's spelling (`"f32"`, `"bf16"`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.ir import SSAValue

from aicf.dialects.tensor import SUPPORTED_DTYPES, dtype_name, element_type, ranked_shape

if TYPE_CHECKING:
    from aicf.frontend.tracer import Tracer

_NUMPY_NAMES = {
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "int32": "i32",
    "bfloat16": "bf16",  # ml_dtypes / CuPy spelling
}


def dtype_of(dtype: Any) -> str:
    """MLIR's name of a dtype given as `"f32"`, `"float32"`, np.float32 or a np.dtype."""
    if isinstance(dtype, str) and dtype in SUPPORTED_DTYPES:
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    if name in _NUMPY_NAMES:
        return _NUMPY_NAMES[name]
    raise TypeError(
        f"unsupported dtype {dtype!r} (supported: f16, bf16, f32, f64, i32 and their "
        "NumPy names)"
    )


@dataclass(frozen=True)
class TensorSpec:
    """An example argument by shape and dtype only: `TensorSpec((4, 8), "f32")`.
    A None extent is dynamic (`?`)."""

    shape: tuple[int | None, ...]
    dtype: str

    def __init__(self, shape: Sequence[int | None], dtype: Any = "f32"):
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "dtype", dtype_of(dtype))


def spec_of(arg: Any) -> TensorSpec:
    """The TensorSpec of an example argument: a TensorSpec, or anything with
    `.shape` and `.dtype` (NumPy or CuPy arrays; nothing else is read)."""
    if isinstance(arg, TensorSpec):
        return arg
    if hasattr(arg, "shape") and hasattr(arg, "dtype"):
        return TensorSpec(tuple(int(d) for d in arg.shape), arg.dtype)
    raise TypeError(
        f"example arguments must be arrays or aicf.TensorSpec, got {type(arg).__name__}"
    )


class Tensor:
    """A traced tensor value. Supports `+ - * / @ **`, unary minus, and a few
    NumPy-style methods (`reshape`, `transpose`, `T`, `sum`, `mean`, `max`, `astype`)."""

    __array_ufunc__ = None  # so `ndarray + Tensor` comes to __radd__

    def __init__(self, value: SSAValue, tracer: Tracer):
        self.value = value
        self.tracer = tracer

    @property
    def shape(self) -> tuple[int | None, ...]:
        shape = ranked_shape(self.value.type)
        assert shape is not None
        return tuple(None if d < 0 else d for d in shape)

    @property
    def dtype(self) -> str:
        return dtype_name(element_type(self.value.type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape}, dtype={self.dtype})"

    def __bool__(self) -> bool:
        raise TypeError(
            "a traced aicf Tensor has no truth value (data-dependent control flow "
            "cannot be traced)"
        )

    # operators --------------------------------------------------------------------------

    def __add__(self, other):
        from aicf.frontend import ops

        return ops.add(self, other)

    def __radd__(self, other):
        from aicf.frontend import ops

        return ops.add(other, self)

    def __sub__(self, other):
        from aicf.frontend import ops

        return ops.sub(self, other)

    def __rsub__(self, other):
        from aicf.frontend import ops

        return ops.sub(other, self)

    def __mul__(self, other):
        from aicf.frontend import ops

        return ops.mul(self, other)

    def __rmul__(self, other):
        from aicf.frontend import ops

        return ops.mul(other, self)

    def __truediv__(self, other):
        from aicf.frontend import ops

        return ops.div(self, other)

    def __rtruediv__(self, other):
        from aicf.frontend import ops

        return ops.div(other, self)

    def __pow__(self, other):
        from aicf.frontend import ops

        return ops.pow(self, other)

    def __rpow__(self, other):
        from aicf.frontend import ops

        return ops.pow(other, self)

    def __matmul__(self, other):
        from aicf.frontend import ops

        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        from aicf.frontend import ops

        return ops.matmul(other, self)

    def __neg__(self):
        from aicf.frontend import ops

        return ops.neg(self)

    def __pos__(self):
        return self

    # NumPy-style methods ----------------------------------------------------------------------

    def reshape(self, *shape):
        from aicf.frontend import ops

        if len(shape) == 1 and isinstance(shape[0], Sequence):
            shape = tuple(shape[0])
        return ops.reshape(self, shape)

    def transpose(self, *axes):
        from aicf.frontend import ops

        if len(axes) == 1 and isinstance(axes[0], Sequence):
            axes = tuple(axes[0])
        return ops.transpose(self, axes or None)

    @property
    def T(self):
        return self.transpose()

    def sum(self, axis=None, keepdims=False):
        from aicf.frontend import ops

        return ops.reduce_sum(self, axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        from aicf.frontend import ops

        return ops.reduce_mean(self, axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        from aicf.frontend import ops

        return ops.reduce_max(self, axis, keepdims=keepdims)

    def astype(self, dtype):
        from aicf.frontend import ops

        return ops.cast(self, dtype)
