"""`aicf.ops`: the tensor operations a traced function is written in, NumPy style.

Every op of DESIGN.md's tensor level is here; operands are traced `Tensor`s, NumPy
arrays (captured as constants) or Python scalars (a rank-0 constant of the other
operand's dtype). Keyword arguments follow NumPy: `axis`/`axes`, `keepdims`,
`perm`/`axes` for transpose, `shape`.

    def mlp(x, w1, b1, w2, b2):
        h = ops.gelu(x @ w1 + b1)
        return h @ w2 + b2
"""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType, UnitAttr, i64

from aicf.dialects import tensor as T
from aicf.frontend.tensor import Tensor, dtype_of
from aicf.frontend.tracer import Tracer, current_tracer, located_error

__all__ = [
    "neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "relu", "gelu",
    "sigmoid", "add", "sub", "mul", "div", "max", "min", "pow", "maximum", "minimum",
    "constant", "cast", "reduce_sum", "reduce_max", "reduce_mean", "matmul", "reshape",
    "transpose", "broadcast_to",
]  # fmt: skip


def _tracer_of(*values: Any) -> Tracer:
    for v in values:
        if isinstance(v, Tensor):
            return v.tracer
    return current_tracer()


def _array_constant(tracer: Tracer, value: Any) -> Tensor:
    array = np.asarray(value)
    elt = T.dtype_from_name(dtype_of(array.dtype))
    return tracer.constant(array, TensorType(elt, list(array.shape)))


def _scalar_constant(tracer: Tracer, value: numbers.Number, dtype: str, op_name: str) -> Tensor:
    if dtype in ("i32",) and not float(value).is_integer():
        raise located_error(
            op_name, f"scalar {value!r} cannot be an {dtype} constant; cast the tensor first"
        )
    return tracer.constant(np.asarray(value), TensorType(T.dtype_from_name(dtype), []))


def _as_tensor(value: Any, tracer: Tracer, like: Any, op_name: str) -> Tensor:
    if isinstance(value, Tensor):
        if value.tracer is not tracer:
            raise located_error(op_name, "operands come from different traces")
        return value
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.ndarray):
        dtype = like.dtype if isinstance(like, Tensor) else "f32"
        return _scalar_constant(tracer, value, dtype, op_name)
    if isinstance(value, np.ndarray | np.generic):
        return _array_constant(tracer, value)
    raise located_error(
        op_name, f"expected a tensor, an array or a scalar, got {type(value).__name__}"
    )


def _unary(cls: type[T.UnaryOp]):
    def op(x: Any) -> Tensor:
        tracer = _tracer_of(x)
        return tracer.emit(cls, [_as_tensor(x, tracer, None, cls.name)])

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"Elementwise `{cls.name}`."
    return op


def _binary(cls: type[T.BinaryOp]):
    def op(x: Any, y: Any) -> Tensor:
        tracer = _tracer_of(x, y)
        a = _as_tensor(x, tracer, y, cls.name)
        b = _as_tensor(y, tracer, x, cls.name)
        return tracer.emit(cls, [a, b])

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"Elementwise `{cls.name}` with NumPy broadcasting."
    return op


neg = _unary(T.NegOp)
exp = _unary(T.ExpOp)
log = _unary(T.LogOp)
sin = _unary(T.SinOp)
cos = _unary(T.CosOp)
tanh = _unary(T.TanhOp)
sqrt = _unary(T.SqrtOp)
rsqrt = _unary(T.RsqrtOp)
abs = _unary(T.AbsOp)
relu = _unary(T.ReluOp)
gelu = _unary(T.GeluOp)
sigmoid = _unary(T.SigmoidOp)

add = _binary(T.AddOp)
sub = _binary(T.SubOp)
mul = _binary(T.MulOp)
div = _binary(T.DivOp)
max = _binary(T.MaxOp)
min = _binary(T.MinOp)
pow = _binary(T.PowOp)
maximum = max
minimum = min


def constant(value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Tensor:
    """A constant tensor: `value` (array or scalar) as `dtype` (default: the array's,
    f32 for Python scalars), broadcast to `shape` if given (a splat)."""
    tracer = current_tracer()
    array = np.asarray(value)
    if dtype is None:
        dtype = "f32" if not isinstance(value, np.ndarray | np.generic) else dtype_of(array.dtype)
    target = tuple(shape) if shape is not None else array.shape
    try:
        array = np.broadcast_to(array, target)
    except ValueError:
        raise located_error(
            T.ConstantOp.name, f"cannot broadcast a value of shape {array.shape} to {target}"
        ) from None
    return tracer.constant(array, TensorType(T.dtype_from_name(dtype_of(dtype)), list(target)))


def cast(x: Tensor, dtype: Any) -> Tensor:
    """Elementwise conversion to `dtype` (NumPy astype rules)."""
    tracer = _tracer_of(x)
    try:
        elt = T.dtype_from_name(dtype_of(dtype))
    except TypeError as e:
        raise located_error(T.CastOp.name, str(e)) from None
    return tracer.emit(T.CastOp, [_as_tensor(x, tracer, None, T.CastOp.name)], result_element=elt)


def _axes(x: Tensor, axis: Any, axes: Any) -> list[int]:
    if axis is not None and axes is not None:
        raise TypeError("give `axis` or `axes`, not both")
    if axis is None:
        axis = axes
    if axis is None:
        return list(builtins.range(x.ndim))
    if isinstance(axis, int):
        return [axis]
    return [int(a) for a in axis]


def _reduce(cls: type[T.ReduceOp]):
    def op(x: Tensor, axis: Any = None, keepdims: bool = False, *, axes: Any = None) -> Tensor:
        tracer = _tracer_of(x)
        x = _as_tensor(x, tracer, None, cls.name)
        props: dict[str, Any] = {"axes": DenseArrayBase.from_list(i64, _axes(x, axis, axes))}
        if keepdims:
            props["keepdims"] = UnitAttr()
        return tracer.emit(cls, [x], props)

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"`{cls.name}` over `axis` (default: all axes), NumPy's keepdims."
    return op


reduce_sum = _reduce(T.ReduceSumOp)
reduce_max = _reduce(T.ReduceMaxOp)
reduce_mean = _reduce(T.ReduceMeanOp)


def matmul(x: Any, y: Any) -> Tensor:
    """numpy.matmul (2-D, 1-D and batched with broadcast batch dims)."""
    tracer = _tracer_of(x, y)
    a = _as_tensor(x, tracer, y, T.MatmulOp.name)
    b = _as_tensor(y, tracer, x, T.MatmulOp.name)
    return tracer.emit(T.MatmulOp, [a, b])


def _int_list(shape: Any) -> list[int]:
    if isinstance(shape, int):
        return [shape]
    return [int(d) for d in shape]


def reshape(x: Tensor, shape: Any) -> Tensor:
    """numpy.reshape (row-major); one extent may be -1."""
    tracer = _tracer_of(x)
    x = _as_tensor(x, tracer, None, T.ReshapeOp.name)
    return tracer.emit(T.ReshapeOp, [x], {"shape": DenseArrayBase.from_list(i64, _int_list(shape))})


def transpose(x: Tensor, perm: Sequence[int] | None = None, *, axes: Sequence[int] | None = None) -> Tensor:
    """numpy.transpose: result dim i is x's dim perm[i]; default reverses the dims."""
    tracer = _tracer_of(x)
    x = _as_tensor(x, tracer, None, T.TransposeOp.name)
    if perm is None:
        perm = axes
    if perm is None:
        perm = list(builtins.range(x.ndim))[::-1]
    return tracer.emit(T.TransposeOp, [x], {"perm": DenseArrayBase.from_list(i64, _int_list(perm))})


def broadcast_to(x: Any, shape: Any) -> Tensor:
    """numpy.broadcast_to."""
    tracer = _tracer_of(x)
    x = _as_tensor(x, tracer, None, T.BroadcastToOp.name)
    return tracer.emit(
        T.BroadcastToOp, [x], {"shape": DenseArrayBase.from_list(i64, _int_list(shape))}
    )
