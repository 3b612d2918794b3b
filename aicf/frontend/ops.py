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
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i64,
)

from aicf.dialects import tensor as T
from aicf.dialects.shape_rules import FLOAT_RANK, promote_dtypes, size_problem
from aicf.errors import AicfError
from aicf.frontend.tensor import I32_MAX, I32_MIN, Tensor, dtype_bits, dtype_of
from aicf.frontend.tracer import Tracer, current_tracer, located_error
from aicf.interop import redefined_numpy
from aicf.passes.tensor.fold import MAX_FOLD_ELEMENTS

__all__ = [
    "neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "relu", "gelu",
    "sigmoid", "add", "sub", "mul", "div", "true_divide", "max", "min", "pow", "maximum", "minimum",
    "constant", "cast", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "cumsum", "cumprod", "reduce_mean", "reduce_var", "matmul",
    "reshape", "transpose", "broadcast_to", "erf", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "where", "iota", "slice", "concatenate", "take", "argmax", "argmin",
    "attention", "floor_divide", "remainder", "divmod", "fmod", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
    "right_shift", "invert", "log1p", "expm1", "log2", "log10", "exp2", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "cbrt", "floor", "ceil", "trunc", "round",
    "atan2", "copysign", "take_along_axis",
]  # fmt: skip


def _tracer_of(*values: Any) -> Tracer:
    for v in values:
        if isinstance(v, Tensor):
            return v.tracer
    return current_tracer()


def _is_float(dtype: str) -> bool:
    return dtype in FLOAT_RANK


I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def _array_constant(tracer: Tracer, value: np.ndarray, like: Any, op_name: str) -> Tensor:
    """A closed-over NumPy array. Its dtype is kept (arrays are strongly typed, as in
    JAX), except NumPy's defaults, which are no choice of the user's: float64 becomes
    the float type of the tensor it meets (f32 beside a non-float), int64 becomes
    i32 where every value fits (else i64, as a Python int does beside an i64 tensor;
    an error only past i64's range)."""
    # np.asarray keeps the data alone: a closed-over masked array's mask was dropped
    # (x * m computed the masked elements), a matrix's product became elementwise
    redefined = redefined_numpy(value)
    if redefined is not None:
        raise located_error(op_name, f"a closed-over array: {redefined}")
    array = np.asarray(value)
    if array.dtype == np.float64:
        # a weak f64 is a Python float, whose type is f32 until a tensor says otherwise
        other = like.dtype if isinstance(like, Tensor) and not (like.weak and like.dtype == "f64") else "f32"
        dtype = other if _is_float(other) else "f32"
    elif array.dtype.kind in "iu" and array.dtype != np.int32:
        dtype = "i32"
        if array.size and not (I32_MIN <= array.min() and array.max() <= I32_MAX):
            # x + np.array([2**40, 1]) on an i64 x said the array "cannot be a constant"
            if not (I64_MIN <= array.min() and array.max() <= I64_MAX):
                raise located_error(
                    op_name, f"a {array.dtype} array with values out of i64 range cannot be a constant"
                )
            dtype = "i64"
    else:
        try:
            dtype = dtype_of(array.dtype)
        except TypeError as e:
            raise located_error(op_name, f"a constant array: {e}") from None
    if isinstance(value, np.ndarray):  # of a dtype aicf has (an object array's checksum raised)
        tracer.capture(value)
    elt = T.dtype_from_name(dtype)
    return tracer.constant(array, TensorType(elt, list(array.shape)))


_FLOAT_MAX = {
    "f16": float(np.finfo(np.float16).max),
    "bf16": 3.3895313892515355e38,  # (2 - 2**-7) * 2**127
    "f32": float(np.finfo(np.float32).max),
    "f64": float(np.finfo(np.float64).max),
}


def _scalar_constant(tracer: Tracer, value: Any, dtype: str, op_name: str) -> Tensor:
    if isinstance(value, complex | np.complexfloating):
        raise located_error(op_name, f"complex scalar {value!r}: aicf has no complex type")
    if not isinstance(value, numbers.Real | np.generic):
        # a decimal.Decimal (a Number, not a Real): NumPy refuses it beside float arrays
        # (float + Decimal is a TypeError) and keeps it exact beside integers; it was f32
        raise located_error(op_name, f"a {type(value).__name__} scalar {value!r:.40} has no aicf element type; "
                            "convert it with float() or int()")
    exact = isinstance(value, numbers.Integral | np.integer)
    if not _is_float(dtype) and not exact and not float(value).is_integer():
        raise located_error(
            op_name, f"scalar {value!r} cannot be an {dtype} constant; cast the tensor first"
        )
    # an int is exact: one past the integer type would wrap, one past a float type's
    # range become inf
    if _is_float(dtype):
        low, high = -_FLOAT_MAX[dtype], _FLOAT_MAX[dtype]
    elif dtype == "i64":
        low, high = -(2**63), 2**63 - 1
    elif dtype == "i1":
        low, high = 0, 1
    else:
        low, high = I32_MIN, I32_MAX
    if (exact or not _is_float(dtype)) and not low <= value <= high:
        text = repr(value)
        text = text if len(text) < 24 else f"{text[:12]}... ({len(text)} digits)"
        raise located_error(op_name, f"scalar {text} is out of {dtype} range")
    return Tensor(
        tracer.constant(np.asarray(value), TensorType(T.dtype_from_name(dtype), [])).value,
        tracer,
        weak=True,
    )


def _is_scalar(value: Any) -> bool:
    """Python and NumPy scalars (and 0-d arrays) of numbers: weakly typed. A NumPy
    datetime, string or void scalar is none (x + np.str_("1") added 1, x +
    np.datetime64(1, "s") added 1; NumPy raises)."""
    if isinstance(value, np.ndarray | np.generic):
        return value.ndim == 0 and value.dtype.kind in "biufc"
    return isinstance(value, numbers.Number)


def _scalar_dtype(value: Any) -> str:
    if isinstance(value, bool | np.bool_):  # where(c, True, False) is a bool tensor, as NumPy's
        return "i1"
    return "i32" if isinstance(value, numbers.Integral | np.integer) else "f32"


def _as_tensor(value: Any, tracer: Tracer, like: Any, op_name: str) -> Tensor:
    """`value` as a tensor of `tracer`, typed against `like` (the other operand): weak
    values (Python and NumPy scalars, weak tensors) take `like`'s dtype, so a float64
    scalar keeps an f32 program in f32 (README: weak typing)."""
    strong_like = isinstance(like, Tensor) and not like.weak
    if isinstance(value, Tensor):
        if value.tracer is not tracer:
            raise located_error(op_name, "operands come from different traces")
        if value.weak and strong_like and value.dtype != like.dtype and like.dtype != "i1":
            # a weak float beside an integer tensor stays float (a float beats an int); beside
            # a bool tensor only a bool stays bool (3 * mask is 3, not True)
            if _is_float(like.dtype) or not _is_float(value.dtype):
                return tracer.emit(T.CastOp, [value], result_element=T.dtype_from_name(like.dtype))
            if value.dtype == "f64":  # a Python float (aicf.jit's argument): f32 beside integers
                return tracer.emit(T.CastOp, [value], result_element=T.dtype_from_name("f32"))
        return value
    if _is_scalar(value):
        if isinstance(value, np.ndarray):
            value = value[()]
        dtype = _scalar_dtype(value)
        # beside a bool tensor only a bool stays bool: 2 == x compares 2 with 0 and 1
        if isinstance(like, Tensor) and like.dtype == "i1" and not isinstance(value, bool | np.bool_):
            pass
        elif isinstance(like, Tensor) and not (_is_float(dtype) and not _is_float(like.dtype)):
            # a float scalar beside an integer tensor stays float, whatever its value
            # (2.0 as well as 0.5): the op computes in float, as NumPy and JAX do
            dtype = like.dtype
        return _scalar_constant(tracer, value, dtype, op_name)
    if isinstance(value, np.ndarray):
        return _array_constant(tracer, value, like, op_name)
    raise located_error(
        op_name, f"expected a tensor, an array or a scalar, got {type(value).__name__}"
    )


def _weak_if(result: Tensor, *operands: Tensor) -> Tensor:
    """A result computed from weak values only stays weak (as in JAX)."""
    result.weak = all(o.weak for o in operands)
    return result


def _unary(cls: type[T.UnaryOp]):
    def op(x: Any) -> Tensor:
        tracer = _tracer_of(x)
        a = _as_tensor(x, tracer, None, cls.name)
        return _weak_if(tracer.emit(cls, [a]), a)

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"Elementwise `{cls.name}`."
    return op


def _binary(cls: type[T.BinaryOp]):
    def op(x: Any, y: Any) -> Tensor:
        tracer = _tracer_of(x, y)
        a = _as_tensor(x, tracer, y, cls.name)
        b = _as_tensor(y, tracer, a, cls.name)
        a = _as_tensor(a, tracer, b, cls.name)  # a weak x takes a strong y's dtype (y an array)
        return _weak_if(tracer.emit(cls, [a, b]), a, b)

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"Elementwise `{cls.name}` with NumPy broadcasting."
    return op


_neg = _unary(T.NegOp)


def neg(x: Any) -> Tensor:
    """Elementwise `aicf_tensor.neg`; a bool tensor is an error, as in NumPy."""
    if isinstance(x, Tensor) and x.dtype == "i1":
        raise located_error(None, "numpy.negative (-x) of a bool tensor is not defined (nor in "
                            "NumPy); use ~x or numpy.logical_not")
    return _neg(x)


exp = _unary(T.ExpOp)
log = _unary(T.LogOp)
sin = _unary(T.SinOp)
cos = _unary(T.CosOp)
tanh = _unary(T.TanhOp)
sqrt = _unary(T.SqrtOp)
rsqrt = _unary(T.RsqrtOp)
abs = _unary(T.AbsOp)
relu = _unary(T.ReluOp)
sigmoid = _unary(T.SigmoidOp)
erf = _unary(T.ErfOp)
log1p = _unary(T.Log1pOp)
expm1 = _unary(T.Expm1Op)
log2 = _unary(T.Log2Op)
log10 = _unary(T.Log10Op)
exp2 = _unary(T.Exp2Op)
tan = _unary(T.TanOp)
asin = _unary(T.AsinOp)
acos = _unary(T.AcosOp)
atan = _unary(T.AtanOp)
sinh = _unary(T.SinhOp)
cosh = _unary(T.CoshOp)
asinh = _unary(T.AsinhOp)
acosh = _unary(T.AcoshOp)
atanh = _unary(T.AtanhOp)
cbrt = _unary(T.CbrtOp)
floor = _unary(T.FloorOp)
ceil = _unary(T.CeilOp)
trunc = _unary(T.TruncOp)
round = _unary(T.RoundOp)


def gelu(x: Any, approximate: str = "none") -> Tensor:
    """GELU, exact (erf) or with `approximate="tanh"`, as torch.nn.functional.gelu."""
    tracer = _tracer_of(x)
    a = _as_tensor(x, tracer, None, T.GeluOp.name)
    if approximate not in T.GeluOp.APPROXIMATIONS:
        raise located_error(
            T.GeluOp.name, f"approximate must be 'none' or 'tanh', got {approximate!r}"
        )
    props = {"approximate": StringAttr(approximate)} if approximate != "none" else {}
    return _weak_if(tracer.emit(T.GeluOp, [a], props), a)


_add = _binary(T.AddOp)
sub = _binary(T.SubOp)
_mul = _binary(T.MulOp)
div = _binary(T.DivOp)
_max = _binary(T.MaxOp)
_min = _binary(T.MinOp)


def _or_on_bools(arith: Callable[[Any, Any], Tensor], logical: Callable[[Any, Any], Tensor],
                 meaning: str):
    """`arith`, which on two bools is NumPy's (and JAX's) logical `logical`: mask1 + mask2
    and mask1 * mask2 are bool tensors there; the verifier refused arithmetic on i1."""

    def op(x: Any, y: Any) -> Tensor:
        if _bool_operand(x) and _bool_operand(y):
            return logical(x, y)
        return arith(x, y)

    op.__name__ = arith.__name__
    op.__doc__ = f"{arith.__doc__[:-1]}; of bools, {meaning} (NumPy's)."
    return op


def _bool_operand(v: Any) -> bool:
    if isinstance(v, Tensor):
        return v.dtype == "i1"
    return isinstance(v, bool | np.bool_) or (isinstance(v, np.ndarray) and v.dtype == np.bool_)


add = _or_on_bools(_add, lambda x, y: logical_or(x, y), "logical or")
mul = _or_on_bools(_mul, lambda x, y: logical_and(x, y), "logical and")
max = _or_on_bools(_max, lambda x, y: logical_or(x, y), "logical or")
min = _or_on_bools(_min, lambda x, y: logical_and(x, y), "logical and")
_pow = _binary(T.PowOp)
atan2 = _binary(T.Atan2Op)
copysign = _binary(T.CopysignOp)


def pow(x: Any, y: Any) -> Tensor:
    """Elementwise `aicf_tensor.pow` with NumPy broadcasting; an integer tensor to a
    negative integer constant is an error, as in NumPy (to a traced negative exponent:
    the op's truncated value, see docs/ops)."""
    # a constant exponent is checked as NumPy checks it: a 0-d or n-d integer array too
    # (x ** np.array(-1) and x ** np.array([-1, 2]) gave 0 for 1 / 2, silently)
    constant = isinstance(y, numbers.Integral | np.integer) and not isinstance(y, bool) or (
        isinstance(y, np.ndarray) and y.dtype.kind in "iu" and y.size)
    if isinstance(x, Tensor) and not _is_float(x.dtype) and constant and np.min(y) < 0:
        raise located_error(T.PowOp.name, f"integers to negative integer powers are not allowed "
                            f"({x.dtype} ** {np.min(y)}); cast the tensor to a float type first")
    # a 0-d float array is NumPy's scalar exponent too (x ** np.array(0.5) was inf at -inf)
    scalar = isinstance(y, float | np.floating) or (isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind == "f")
    if isinstance(x, Tensor) and _is_float(x.dtype) and scalar and y == 0.5:
        return sqrt(x)  # NumPy's x ** 0.5 is sqrt: nan at -inf, where C's pow gives +inf
    return _pow(x, y)


def true_divide(x: Any, y: Any) -> Tensor:
    """numpy.true_divide, Python's `/`: integer (and bool) operands are divided as f32,
    JAX's promotion (`aicf_tensor.div` of integers truncates, as C's)."""

    def floating(v: Any) -> Any:
        if isinstance(v, Tensor) and not _is_float(v.dtype):
            f = v.tracer.emit(T.CastOp, [v], result_element=T.dtype_from_name("f32"))
            return _weak_if(f, v)
        if isinstance(v, np.ndarray | np.generic) and not np.issubdtype(v.dtype, np.floating):
            return np.asarray(v, np.float32)
        if isinstance(v, numbers.Integral) and not isinstance(v, Tensor):
            return float(v)
        return v

    return div(floating(x), floating(y))
maximum = max
minimum = min

equal = _binary(T.EqOp)
not_equal = _binary(T.NeOp)
less = _binary(T.LtOp)
less_equal = _binary(T.LeOp)
greater = _binary(T.GtOp)
greater_equal = _binary(T.GeOp)


def _operands(x: Any, y: Any, name: str) -> tuple[Tensor, Tensor, str]:
    """Both operands as tensors (weakly typed against each other) and the dtype
    NumPy's rules give their result."""
    tracer = _tracer_of(x, y)
    a = _as_tensor(x, tracer, y, name)
    b = _as_tensor(y, tracer, a, name)
    a = _as_tensor(a, tracer, b, name)  # a weak x takes a strong y's dtype (y an array)
    return a, b, promote_dtypes(a.dtype, b.dtype)


def _int_divmod(x: Any, y: Any, name: str) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(truncated quotient, truncated remainder, the rounding fix, y) of integer
    operands, composed of aicf_tensor.div (x / 0 is 0, MIN / -1 wraps to MIN). The
    remainder divides by 1 where y is 0 or -1 so that x - q * y never overflows (and
    is 0 there, NumPy's x % 0 and x % -1); the fix marks a nonzero remainder whose sign
    differs from y's, where the floored quotient is one less."""
    a, b, dtype = _operands(x, y, name)
    if dtype == "i1":
        raise located_error(None, f"{name} of bool tensors is not defined; cast them to an integer type first")
    safe = where(equal(b, 0), 1, where(equal(b, -1), 1, b))
    rem = sub(a, mul(div(a, safe), safe))
    fix = where(not_equal(rem, 0), not_equal(less(rem, 0), less(b, 0)), False)
    return div(a, b), rem, fix, b


_fmod = _binary(T.FmodOp)


def _float_divmod(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(a // b, a % b) of floats as NumPy's npy_divmod computes them, from the exact
    fmod (floor(a / b) is 10, not 9, for 1 // 0.1): the truncated quotient fixed where
    the remainder's sign differs from b's, a zero remainder with b's sign, a zero
    quotient with the sign of a / b, and a / b itself (inf or NaN) where b is 0."""
    mod = _fmod(a, b)
    quot = div(sub(a, mod), b)
    fix = where(not_equal(mod, 0), not_equal(less(b, 0), less(mod, 0)), False)
    mod = where(fix, add(mod, b), mod)
    quot = where(fix, sub(quot, 1.0), quot)
    mod = where(equal(mod, 0), copysign(0.0, b), mod)
    floored = floor(quot)
    floored = where(greater(sub(quot, floored), 0.5), add(floored, 1.0), floored)
    ratio = div(a, b)
    quot = where(not_equal(quot, 0), floored, copysign(0.0, ratio))
    return where(equal(b, 0), ratio, quot), mod


def _cast_to(t: Tensor, dtype: str) -> Tensor:
    return t if t.dtype == dtype else cast(t, dtype)


def floor_divide(x: Any, y: Any) -> Tensor:
    """numpy.floor_divide, Python's `//`: the quotient rounded toward -inf. Of integers
    x // 0 is 0 and MIN // -1 wraps to MIN; of floats NumPy's (exact, from fmod)."""
    name = "numpy.floor_divide (//)"
    a, b, dtype = _operands(x, y, name)
    if _is_float(dtype):
        return _float_divmod(_cast_to(a, dtype), _cast_to(b, dtype))[0]
    q, _, fix, _ = _int_divmod(a, b, name)
    return where(fix, sub(q, 1), q)


def remainder(x: Any, y: Any) -> Tensor:
    """numpy.remainder (numpy.mod), Python's `%`: the result has the sign of y. Of
    integers x % 0 is 0 (NumPy's); of floats x % 0 is NaN."""
    name = "numpy.remainder (%)"
    a, b, dtype = _operands(x, y, name)
    if _is_float(dtype):
        return _float_divmod(_cast_to(a, dtype), _cast_to(b, dtype))[1]
    _, rem, fix, b = _int_divmod(a, b, name)
    return where(fix, add(rem, b), rem)


def divmod(x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """numpy.divmod, Python's divmod(): (x // y, x % y)."""
    a, b, dtype = _operands(x, y, "numpy.divmod")
    if _is_float(dtype):
        return _float_divmod(_cast_to(a, dtype), _cast_to(b, dtype))
    return floor_divide(x, y), remainder(x, y)


def fmod(x: Any, y: Any) -> Tensor:
    """numpy.fmod: the remainder with the sign of x (C's % and fmod); of integers
    fmod(x, 0) is 0, of floats NaN (NumPy's)."""
    name = "numpy.fmod"
    a, b, dtype = _operands(x, y, name)
    if _is_float(dtype):
        return _fmod(_cast_to(a, dtype), _cast_to(b, dtype))
    return _int_divmod(a, b, name)[1]


def _truth(x: Any, name: str) -> Tensor:
    """`x` as a bool tensor: nonzero (and NaN) is true, as NumPy's astype(bool)."""
    tracer = _tracer_of(x)
    a = _as_tensor(x, tracer, None, name)
    if a.dtype == "i1":
        return a
    return _weak_if(tracer.emit(T.CastOp, [a], result_element=T.dtype_from_name("i1")), a)


def logical_and(x: Any, y: Any) -> Tensor:
    """numpy.logical_and: a bool tensor, true where both are nonzero."""
    return where(_truth(x, "numpy.logical_and"), _truth(y, "numpy.logical_and"), False)


def logical_or(x: Any, y: Any) -> Tensor:
    """numpy.logical_or: a bool tensor, true where either is nonzero."""
    return where(_truth(x, "numpy.logical_or"), True, _truth(y, "numpy.logical_or"))


def logical_xor(x: Any, y: Any) -> Tensor:
    """numpy.logical_xor: a bool tensor, true where exactly one is nonzero."""
    return not_equal(_truth(x, "numpy.logical_xor"), _truth(y, "numpy.logical_xor"))


def logical_not(x: Any) -> Tensor:
    """numpy.logical_not: a bool tensor, true where x is zero."""
    return equal(_truth(x, "numpy.logical_not"), False)


def _bitwise(symbol: str, ufunc: str, on_bools: Any):
    def op(x: Any, y: Any) -> Tensor:
        name = f"numpy.{ufunc} ({symbol})"
        a, b, dtype = _operands(x, y, name)
        if dtype == "i1" and on_bools is not None:
            return on_bools(a, b)
        if _is_float(dtype):
            raise located_error(None, f"{name} is not defined on {dtype} tensors (nor in NumPy)")
        raise located_error(None, f"{name} of {'bool' if dtype == 'i1' else dtype} tensors is not supported yet: aicf has "
                            "no bitwise integer operator yet")

    op.__name__ = ufunc
    op.__doc__ = f"numpy.{ufunc}, Python's `{symbol}`" + (
        ", on bool tensors (the logical operation); on integers an error until aicf has a "
        "bitwise operator." if on_bools else ": an error until aicf has a bitwise operator."
    )
    return op


bitwise_and = _bitwise("&", "bitwise_and", logical_and)
bitwise_or = _bitwise("|", "bitwise_or", logical_or)
bitwise_xor = _bitwise("^", "bitwise_xor", logical_xor)
left_shift = _bitwise("<<", "left_shift", None)
right_shift = _bitwise(">>", "right_shift", None)


def invert(x: Any) -> Tensor:
    """numpy.invert, Python's `~`: logical not of a bool tensor, -1 - x (two's
    complement, never overflowing) of an integer one."""
    tracer = _tracer_of(x)
    a = _as_tensor(x, tracer, None, "numpy.invert (~)")
    if a.dtype == "i1":
        return logical_not(a)
    if _is_float(a.dtype):
        raise located_error(None, f"numpy.invert (~) is not defined on {a.dtype} tensors (nor in NumPy)")
    return sub(-1, a)


def where(cond: Any, x: Any, y: Any) -> Tensor:
    """numpy.where(cond, x, y) with broadcasting; a non-bool `cond` is true where nonzero."""
    tracer = _tracer_of(cond, x, y)
    name = T.SelectOp.name
    c = _as_tensor(cond, tracer, None, name)
    if c.dtype != "i1":
        c = tracer.emit(T.CastOp, [c], result_element=T.dtype_from_name("i1"))
    a = _as_tensor(x, tracer, y, name)
    b = _as_tensor(y, tracer, a, name)
    a = _as_tensor(a, tracer, b, name)  # a weak x takes a strong y's dtype
    return _weak_if(tracer.emit(T.SelectOp, [c, a, b]), a, b)


def iota(shape: Any, dim: Any, dtype: Any = "i32") -> Tensor:
    """The index along `dim` at every element of `shape` (np.indices(shape)[dim])."""
    tracer = current_tracer()
    name = T.IotaOp.name
    extents = _int_list(shape, "an extent", name)
    try:
        elt = T.dtype_from_name(dtype_of(dtype))
    except TypeError as e:
        raise located_error(name, str(e)) from None
    dim = _index(dim, "dim", name)
    return tracer.emit_nullary(T.IotaOp(TensorType(elt, extents), dim))


def constant(value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Tensor:
    """A constant tensor: `value` (array or scalar) as `dtype` (default: the array's,
    f32 for Python scalars), broadcast to `shape` if given (a splat)."""
    tracer = current_tracer()
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as e:  # a ragged list, ...
        raise located_error(T.ConstantOp.name, f"the value is no array: {e}") from None
    if array.dtype.kind not in "biufO" or (array.dtype.kind == "O" and not all(
            isinstance(v, numbers.Real) for v in array.reshape(-1))):  # fmt: skip
        # a complex value lost its imaginary part (1j became 0), None became NaN, a
        # string raised NumPy's ValueError from the conversion
        raise located_error(T.ConstantOp.name, f"the value is not real numbers: {value!r:.40} "
                            f"({'complex' if array.dtype.kind == 'c' else array.dtype})")
    if dtype is None:
        dtype = "f32" if not isinstance(value, np.ndarray | np.generic) else array.dtype
    try:
        dtype = dtype_of(dtype)
    except TypeError as e:
        raise located_error(T.ConstantOp.name, str(e)) from None
    target = array.shape
    if shape is not None:
        target = tuple(_int_list(shape, "an extent", T.ConstantOp.name))
        why = size_problem([d for d in target if d >= 0], dtype_bits(dtype))
        if why is not None:
            raise located_error(T.ConstantOp.name, f"a constant of shape {target} {why}")
    try:
        full = np.broadcast_to(array, target)
    except ValueError:
        raise located_error(
            T.ConstantOp.name, f"cannot broadcast a value of shape {array.shape} to {target}"
        ) from None
    if dtype in ("i32", "i64") and array.dtype.kind in "iuO" and array.size:
        # integers are exact: one out of range would wrap (full_like(i32, 2**40) was
        # 0), where NumPy raises OverflowError; floats convert as astype does, and
        # any nonzero value is true
        low, high = (-(2**63), 2**63 - 1) if dtype == "i64" else (I32_MIN, I32_MAX)
        try:
            values = [int(v) for v in array.reshape(-1)]
        except (TypeError, ValueError, OverflowError):
            values = None
        if values is not None and not all(low <= v <= high for v in values):
            raise located_error(T.ConstantOp.name, f"a value of {value!r:.40} is out of {dtype} range")
    if dtype in ("i32", "i64") and array.dtype.kind == "f" and array.size:
        # a float converts as astype does (truncated), but NaN, an infinity or one past
        # the range has no integer value: the C cast gave 0 or saturated without a word
        # (NumPy's astype warns and gives INT_MIN; np.array(nan, int) raises)
        low, high = (-(2.0**63), 2.0**63) if dtype == "i64" else (I32_MIN, I32_MAX + 1.0)
        with np.errstate(invalid="ignore"):
            whole = np.trunc(array)
            fits = bool(np.all(np.isfinite(whole) & (whole >= low) & (whole < high)))
        if not fits:
            raise located_error(T.ConstantOp.name, f"a value of {value!r:.40} has no {dtype} value "
                                "(NaN, infinite or out of range)")
    elt = T.dtype_from_name(dtype)
    if full.size > MAX_FOLD_ELEMENTS and array.size < full.size:
        # a constant is stored element by element (torch's full_like of an attention
        # score tensor: 400 MB): keep the value small and broadcast it, as the
        # constant folder would leave it (aicf-canonicalize's BroadcastSplat)
        small = tracer.constant(array, TensorType(elt, list(array.shape)))
        return _broadcast_to(small, target)
    return tracer.constant(full, TensorType(elt, list(target)))


def cast(x: Tensor, dtype: Any) -> Tensor:
    """Elementwise conversion to `dtype` (NumPy astype rules)."""
    tracer = _tracer_of(x)
    try:
        elt = T.dtype_from_name(dtype_of(dtype))
    except TypeError as e:
        raise located_error(T.CastOp.name, str(e)) from None
    return tracer.emit(T.CastOp, [_as_tensor(x, tracer, None, T.CastOp.name)], result_element=elt)


def _index(value: Any, what: str, op_name: str) -> int:
    """An integer argument (`axis`, a `perm` entry, an extent): Python and NumPy
    integers; anything else (1.7, "0", a tensor) is a located error, not truncated."""
    if isinstance(value, bool):
        raise located_error(op_name, f"{what} must be an integer, got {value!r}")
    try:
        index = operator.index(value)
    except TypeError:
        raise located_error(
            op_name, f"{what} must be an integer, got {type(value).__name__} {value!r}"
        ) from None
    if not -(2**63) <= index < 2**63:  # it becomes an i64 attribute (xDSL's raw ValueError)
        raise located_error(op_name, f"{what} {index} is out of int64 range")
    return index


def _flag(value: Any, what: str, op_name: str) -> bool:
    """A yes/no option (`keepdims`): a bool, or an integer as NumPy takes one; anything
    else ("no", a tensor) is a located error, not its truthiness (keepdims="no" kept)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    try:
        return operator.index(value) != 0
    except TypeError:
        raise located_error(
            op_name, f"{what} must be a bool, got {type(value).__name__} {value!r}"
        ) from None


def _int_list(values: Any, what: str, op_name: str) -> list[int]:
    # a 0-d array is Iterable but iterating it raises (axis=np.array(1), as NumPy takes it)
    if isinstance(values, Tensor) or not isinstance(values, Iterable) or np.ndim(values) == 0:
        return [_index(values, what, op_name)]
    return [_index(v, what, op_name) for v in values]


def _axes(x: Tensor, axis: Any, axes: Any, op_name: str) -> list[int]:
    if axis is not None and axes is not None:
        raise located_error(op_name, "give `axis` or `axes`, not both")
    if axis is None:
        axis = axes
    if axis is None:
        return list(builtins.range(x.ndim))
    got = _int_list(axis, "axis", op_name)
    for a in got:
        if not -builtins.max(x.ndim, 1) <= a < builtins.max(x.ndim, 1):
            raise located_error(op_name, f"axis {a} is out of range for a tensor of rank {x.ndim}")
    return got


def _reduce(cls: type[T.ReduceOp]):
    def op(x: Tensor, axis: Any = None, keepdims: bool = False, *, axes: Any = None) -> Tensor:
        tracer = _tracer_of(x)
        x = _as_tensor(x, tracer, None, cls.name)
        props: dict[str, Any] = {
            "axes": DenseArrayBase.from_list(i64, _axes(x, axis, axes, cls.name))
        }
        if _flag(keepdims, "keepdims", cls.name):
            props["keepdims"] = UnitAttr()
        return _weak_if(tracer.emit(cls, [x], props), x)

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"`{cls.name}` over `axis` (default: all axes), NumPy's keepdims."
    return op


reduce_sum = _reduce(T.ReduceSumOp)
reduce_max = _reduce(T.ReduceMaxOp)
reduce_min = _reduce(T.ReduceMinOp)
reduce_prod = _reduce(T.ReduceProdOp)


def _scan(cls: type[T.ScanOp]):
    def op(x: Tensor, axis: Any) -> Tensor:
        tracer = _tracer_of(x)
        x = _as_tensor(x, tracer, None, cls.name)
        ax = _index(axis, "axis", cls.name)
        if not -x.ndim <= ax < x.ndim:
            raise located_error(cls.name, f"axis {ax} is out of range for rank {x.ndim}")
        return _weak_if(tracer.emit(cls, [x], {"axis": IntegerAttr(ax, i64)}), x)

    op.__name__ = cls.name.split(".")[1]
    op.__doc__ = f"`{cls.name}` along `axis` (inclusive, as NumPy's)."
    return op


cumsum = _scan(T.CumsumOp)
cumprod = _scan(T.CumprodOp)
reduce_mean = _reduce(T.ReduceMeanOp)


def reduce_var(
    x: Tensor, axis: Any = None, keepdims: bool = False, *, axes: Any = None, ddof: int = 0
) -> Tensor:
    """numpy.var over `axis` (default: all axes) with `ddof`, as one op."""
    tracer = _tracer_of(x)
    name = T.ReduceVarOp.name
    x = _as_tensor(x, tracer, None, name)
    props: dict[str, Any] = {"axes": DenseArrayBase.from_list(i64, _axes(x, axis, axes, name))}
    if _flag(keepdims, "keepdims", name):
        props["keepdims"] = UnitAttr()
    if ddof:
        props["ddof"] = IntegerAttr(_index(ddof, "ddof", name), i64)
    return _weak_if(tracer.emit(T.ReduceVarOp, [x], props), x)


def matmul(x: Any, y: Any) -> Tensor:
    """numpy.matmul (2-D, 1-D and batched with broadcast batch dims)."""
    tracer = _tracer_of(x, y)
    a = _as_tensor(x, tracer, y, T.MatmulOp.name)
    b = _as_tensor(y, tracer, a, T.MatmulOp.name)
    return tracer.emit(T.MatmulOp, [a, b])


def attention(q: Any, k: Any, v: Any, mask: Any = None, *, scale: float | None = None,
              causal: bool = False) -> Tensor:
    """Scaled dot-product attention, softmax(q @ k^T * scale + mask) @ v, as torch's
    scaled_dot_product_attention: q [..., Sq, D], k [..., Sk, D], v [..., Sk, Dv]; `scale`
    defaults to 1 / sqrt(D); a bool mask keeps where true, a float mask is added;
    `causal` keeps key j for query i where j <= i. A row masked out entirely gives 0.
    One `aicf_tensor.attention` (its semantics: docs/ops/aicf_tensor.md)."""
    import math

    tracer = _tracer_of(q, k, v)
    name = T.AttentionOp.name
    operands = [_as_tensor(x, tracer, None, name) for x in (q, k, v)]
    if mask is not None:
        m = _as_tensor(mask, tracer, operands[0], name)
        operands.append(m)
    if scale is None:
        d = operands[0].shape[-1] if operands[0].shape else None
        if not isinstance(d, int):
            raise located_error(name, "the default scale 1 / sqrt(D) needs q's last extent to be static")
        scale = 1 / math.sqrt(d) if d else 1.0
    try:
        scale = float(scale)  # a traced scale raises its own located error
    except (TypeError, ValueError) as e:
        if isinstance(e, AicfError):
            raise
        raise located_error(name, f"scale must be a real number, got {type(scale).__name__} {scale!r:.40}") from None
    props: dict = {"scale": FloatAttr(scale, f64)}
    if _flag(causal, "causal", name):  # causal="no" was true, silently
        props["causal"] = UnitAttr()
    return tracer.emit(T.AttentionOp, operands, props)


def _layout(cls: type[T.TensorOp], prop: str, what: str):
    def op(x: Any, values: Any) -> Tensor:
        tracer = _tracer_of(x)
        x = _as_tensor(x, tracer, None, cls.name)
        attr = DenseArrayBase.from_list(i64, _int_list(values, what, cls.name))
        return _weak_if(tracer.emit(cls, [x], {prop: attr}), x)

    return op


_reshape = _layout(T.ReshapeOp, "shape", "an extent")
_transpose = _layout(T.TransposeOp, "perm", "a perm entry")
_broadcast_to = _layout(T.BroadcastToOp, "shape", "an extent")


def reshape(x: Tensor, shape: Any) -> Tensor:
    """numpy.reshape (row-major); one extent may be -1."""
    return _reshape(x, shape)


def transpose(x: Tensor, perm: Sequence[int] | None = None, *,
              axes: Sequence[int] | None = None) -> Tensor:  # fmt: skip
    """numpy.transpose: result dim i is x's dim perm[i]; default reverses the dims."""
    if perm is not None and axes is not None:
        raise located_error(T.TransposeOp.name, "give `perm` or `axes`, not both")
    if perm is None:
        perm = axes
    if perm is None:
        ndim = _as_tensor(x, _tracer_of(x), None, T.TransposeOp.name).ndim
        perm = list(builtins.range(ndim))[::-1]
    return _transpose(x, perm)


def broadcast_to(x: Any, shape: Any) -> Tensor:
    """numpy.broadcast_to."""
    return _broadcast_to(x, shape)


def slice(x: Any, start: Sequence[int], stop: Sequence[int], step: Sequence[int]) -> Tensor:
    """x[start:stop:step] per axis, the bounds in `slice.indices` form (see
    aicf_tensor.slice); `x[...]` with slices builds this."""
    tracer = _tracer_of(x)
    name = T.SliceOp.name
    x = _as_tensor(x, tracer, None, name)
    props = {
        k: DenseArrayBase.from_list(i64, _int_list(v, k, name))
        for k, v in (("start", start), ("stop", stop), ("step", step))
    }
    return _weak_if(tracer.emit(T.SliceOp, [x], props), x)


def concatenate(xs: Sequence[Any], axis: Any = 0) -> Tensor:
    """numpy.concatenate of tensors of one rank and dtype along `axis`."""
    name = T.ConcatenateOp.name
    if isinstance(xs, Tensor) or not isinstance(xs, Sequence) or not xs:
        raise located_error(name, "expects a non-empty sequence of tensors")
    tracer = _tracer_of(*xs)
    first = next((v for v in xs if isinstance(v, Tensor)), None)
    ts = [_as_tensor(v, tracer, first, name) for v in xs]
    props = {"axis": IntegerAttr(_index(axis, "axis", name), i64)}
    return tracer.emit(T.ConcatenateOp, ts, props)


def take(x: Any, indices: Any, axis: Any = None) -> Tensor:
    """numpy.take along `axis` (None: of the flattened tensor) with integer indices: a
    tensor, or an int array or list (a constant). As JAX's gathers, an index out of
    range is not an error: a negative one counts from the end once, then it is clamped
    into [0, n - 1] (NumPy raises instead)."""
    name = T.TakeOp.name
    tracer = _tracer_of(x, indices)
    x = _as_tensor(x, tracer, None, name)
    if not isinstance(indices, Tensor):
        array = np.asarray(indices)
        if isinstance(indices, list | tuple) and not array.size:
            array = array.astype(np.int32)  # np.take(x, []): NumPy's empty list is float64
        if array.dtype.kind not in "iu":
            raise located_error(name, f"indices must be integers, got an array of {array.dtype}")
        indices = _array_constant(tracer, array, None, name)
    elif indices.tracer is not tracer:
        raise located_error(name, "operands come from different traces")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    props = {"axis": IntegerAttr(_index(axis, "axis", name), i64)}
    return tracer.emit(T.TakeOp, [x, indices], props)


def take_along_axis(x: Any, indices: Any, axis: int, name: str = "numpy.take_along_axis") -> Tensor:
    """numpy.take_along_axis / torch.gather: out[..., j, ...] = x[..., indices[..., j,
    ...], ...] along `axis`, the other axes broadcast between x and the indices. One
    take from the flattened x at linear indices built from the indices and iotas; an
    index counts from the end once if negative and is then clamped, as `take` does."""
    tracer = _tracer_of(x, indices)
    x = _as_tensor(x, tracer, None, name)
    constant_indices = None if isinstance(indices, Tensor) else np.asarray(indices)
    if constant_indices is not None:
        indices = _as_tensor(constant_indices, tracer, None, name)
    if indices.dtype not in ("i32", "i64"):
        raise located_error(None, f"{name}: indices must be an integer tensor, got {indices.dtype}")
    if indices.ndim != x.ndim:
        raise located_error(None, f"{name}: indices of rank {indices.ndim} for a tensor of rank {x.ndim} "
                            "(they must have the same rank)")  # fmt: skip
    if None in x.shape or None in indices.shape:
        raise located_error(None, f"{name}: dynamic extents are not supported")
    ax = _index(axis, "axis", name)
    if not -x.ndim <= ax < x.ndim:
        raise located_error(None, f"{name}: axis {ax} is out of range for rank {x.ndim}")
    ax %= x.ndim
    src = list(x.shape)
    if constant_indices is not None and constant_indices.size:
        # known indices out of range are NumPy's IndexError (traced ones clamp, as take's)
        lo, hi = int(constant_indices.min()), int(constant_indices.max())
        if lo < -src[ax] or hi >= src[ax]:
            bad = hi if hi >= src[ax] else lo
            raise located_error(None, f"{name}: index {bad} is out of bounds for axis {ax} with size {src[ax]}")
    try:
        shape = list(np.broadcast_shapes(tuple(src[:ax] + [1] + src[ax + 1:]),
                                         tuple(indices.shape[:ax]) + (1,) + tuple(indices.shape[ax + 1:])))  # fmt: skip
    except ValueError:
        raise located_error(None, f"{name}: indices of shape {indices.shape} do not broadcast against "
                            f"{tuple(x.shape)} outside axis {ax}") from None  # fmt: skip
    shape[ax] = indices.shape[ax]
    n = src[ax]
    if n == 0 and int(np.prod(shape)):
        raise located_error(None, f"{name}: cannot take from an empty axis {ax}")
    size = int(np.prod(src, dtype=np.int64))
    idt = "i64" if size >= 2**31 or indices.dtype == "i64" else "i32"
    idx = broadcast_to(cast(indices, idt), shape)
    idx = where(idx < 0, idx + n, idx)
    idx = max(min(idx, builtins.max(n - 1, 0)), 0)
    linear = None
    stride = 1
    for d in reversed(builtins.range(x.ndim)):
        coord = idx if d == ax else (iota(shape, d, idt) if src[d] != 1 else None)
        if coord is not None:
            term = coord * stride if stride != 1 else coord
            linear = term if linear is None else linear + term
        stride *= src[d]
    if linear is None:
        linear = constant(0, idt, shape)
    return take(reshape(x, [-1]), linear, 0)


def _argmax(x: Any, axis: Any, keepdims: bool, name: str, negate: bool) -> Tensor:
    """The first index of the maximum along `axis` (of the minimum with `negate`), as
    NumPy: the first NaN wins where there is one. Composed of tensor ops: the maximum m,
    the hits x == m (or x is NaN), and the smallest hit index as -max(-index), which
    fuse into one row group; i64 like NumPy's."""
    tracer = _tracer_of(x)
    x = _as_tensor(x, tracer, None, name)
    keepdims = _flag(keepdims, "keepdims", name)
    if negate:  # order-reversing and exact: -x for floats, -1 - x (~x) for integers
        x = neg(x) if _is_float(x.dtype) else sub(-1, x)
    # keepdims over all axes keeps every one (NumPy: shape (1, 1) of a matrix)
    kept = [1] * x.ndim if axis is None and keepdims else None
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    ax = _index(axis, "axis", name)
    if not -x.ndim <= ax < x.ndim:
        raise located_error(name, f"axis {ax} is out of range for rank {x.ndim}")
    ax %= x.ndim
    if None in x.shape:
        raise located_error(name, f"needs a static shape, got {x.shape}")
    n = x.shape[ax]
    if n == 0:
        raise located_error(name, f"of an empty axis ({ax} of shape {x.shape}) has no answer")
    hit = equal(x, reduce_max(x, [ax], keepdims=True))
    if _is_float(x.dtype):
        nan = not_equal(x, x)
        hit = where(nan, nan, hit)
    # i32 indices widened once at the end: half the registers and bytes of i64 in the
    # reduction
    if n > I32_MAX:
        raise located_error(name, f"an axis of {n} elements (past i32) is not supported")
    index = iota(list(x.shape), ax, "i32")
    first = reduce_max(where(hit, neg(index), -n), [ax], keepdims=keepdims)
    if kept is not None:
        first = reshape(first, kept)
    return cast(neg(first), "i64")


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """numpy.argmax: the first index of the maximum (of the first NaN), as i64."""
    return _argmax(x, axis, keepdims, "aicf.ops.argmax", negate=False)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """numpy.argmin: the first index of the minimum (of the first NaN), as i64."""
    return _argmax(x, axis, keepdims, "aicf.ops.argmin", negate=True)


# --- calls that do not fit an op's signature ---------------------------------------------

# what a NumPy or torch user may have meant by a name that is elementwise here
_SIGNATURE_HINTS = {
    "max": "; aicf.ops.max is the elementwise maximum of two operands (numpy.maximum): "
           "a reduction over axes is aicf.ops.reduce_max(x, axis=...)",
    "min": "; aicf.ops.min is the elementwise minimum of two operands (numpy.minimum): "
           "a reduction over axes is aicf.ops.reduce_min(x, axis=...)",
}


def _checked_signature(fn):
    """`fn`, raising a located error (the user's line) when a call does not fit its
    signature, where Python raised a TypeError naming an inner function. Only a call
    that raised is checked: the op itself costs nothing more."""
    import functools
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            try:
                sig.bind(*args, **kwargs)
            except TypeError as why:
                name = fn.__name__
                params = ", ".join(str(p).split(":")[0] for p in sig.parameters.values())
                raise located_error(None, f"aicf.ops.{name}({params}): {why}{_SIGNATURE_HINTS.get(name, '')}") from None
            raise e

    return call


for _name in __all__:
    _fn = globals()[_name]
    if callable(_fn) and getattr(_fn, "__module__", None) == __name__:
        globals()[_name] = _checked_signature(_fn)
del _name, _fn
