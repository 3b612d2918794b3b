"""The semantics of the `aicf_tensor` ops, as xDSL interpreter functions over NumPy arrays.

This is the one executable statement of what each op computes (NumPy semantics, see
DESIGN.md); the golden reference (`aicf.reference`) and constant folding
(`aicf-fold-constants`, the tracer) both run it, under different precision policies:

- `"reference"`: floats are held in float64 and integers in int64; nothing is rounded
  except by `cast`, which rounds to its result type (the op's semantics), and every
  integer result wraps at its width (NumPy's). This is the "float64 where it matters"
  reference the compiled code is measured against.
- `"fold"`: the op's dtype semantics, as the lowered loop bodies compute: f16/bf16/f32
  in float32, f64 in float64, i32 in int32 (wrapping); every result is rounded once
  to its element type.

In both, reductions and matmul accumulate floats in float64, and `gelu` evaluates erf
in float64. bf16 values are held as floats; bf16 storage (and bf16 arrays at the API
boundary) are the uint16 bits.

    interpreter = interpreter_for(module, "reference")
    outs = interpreter.call_op("f", (x, b))   # or: call(module, "f", (x, b))

Run under `numpy_ieee()` (which `call` and `run_op` do): IEEE results (inf, NaN) are
the semantics here, not errors.
"""

from __future__ import annotations

import contextlib
import functools
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from aicf.dialects import tensor as T
from aicf.dtypes import f32_to_bf16_bits

# --- element types <-> NumPy ----------------------------------------------------------------


def storage_dtype(elt: Attribute) -> np.dtype:
    """The NumPy dtype whose bytes are xDSL's storage of `elt` (bf16 as its bits)."""
    if isinstance(elt, Float16Type):
        return np.dtype("<f2")
    if isinstance(elt, BFloat16Type):
        return np.dtype("<u2")
    if isinstance(elt, Float32Type):
        return np.dtype("<f4")
    if isinstance(elt, Float64Type):
        return np.dtype("<f8")
    if isinstance(elt, IntegerType) and elt.width.data == 1:
        return np.dtype("<i1")  # xDSL stores true as all ones (-1)
    if isinstance(elt, IntegerType) and elt.width.data in (8, 16, 32, 64):
        return np.dtype(f"<i{elt.width.data // 8}")
    raise ValueError(f"no NumPy storage for {elt}")


def bf16_bits(x) -> np.ndarray:
    """Values rounded once to bf16 (nearest even, also from float64; NaN stays a quiet
    NaN), as their uint16 bits (0-d stays 0-d)."""
    return f32_to_bf16_bits(x)


def bf16_value(bits) -> np.ndarray:
    """bf16 bits as float32 values (exact)."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_storage(value, elt: Attribute) -> np.ndarray:
    """`value` rounded to element type `elt` (NumPy's astype rules: nearest even,
    float to int truncates, saturating), as `storage_dtype(elt)`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if isinstance(elt, BFloat16Type):
            return bf16_bits(value)
        if elt == IntegerType(1):
            return -np.asarray(value).astype(np.bool_).astype(np.int8)
        value = np.asarray(value)
        if isinstance(elt, IntegerType) and value.dtype.kind == "f":
            return _saturated(value, storage_dtype(elt))
        return value.astype(storage_dtype(elt))


def _saturated(value: np.ndarray, dtype) -> np.ndarray:
    """Float to int as the compiled code does it (backend/cstyle.py): truncation, NaN to
    0, values past the range to its bounds (NumPy leaves these undefined)."""
    info = np.iinfo(dtype)
    hi, lo = float(info.max) + 1.0, float(info.min)  # 2^(n-1) and -2^(n-1), exact
    inside = np.where(np.isnan(value) | (value >= hi) | (value < lo), 0, value).astype(dtype)
    return np.where(value >= hi, info.max, np.where(value < lo, info.min, inside)).astype(dtype)


def dense_storage(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute in `storage_dtype`, in its shape (a splat
    stored once is broadcast; read-only)."""
    elt = attr.get_element_type()
    raw = np.frombuffer(attr.data.data, dtype=storage_dtype(elt))
    shape = tuple(attr.get_shape())
    if raw.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(raw.reshape(()), shape)
    return raw.reshape(shape)


# --- precision policies -----------------------------------------------------------------------


@dataclass(frozen=True)
class Precision:
    """How values are held and rounded while interpreting (see the module docstring)."""

    name: str
    narrow_float: np.dtype
    """The dtype f16, bf16 and f32 values are computed in."""
    wide_ints: bool
    """Integers are held in int64 (else in their own width); results wrap at their width."""
    round_every_op: bool
    """Every op's result is rounded to its element type (else only `cast`'s)."""

    def compute_dtype(self, elt: Attribute) -> np.dtype:
        """The dtype values of element type `elt` are held in."""
        if elt == IntegerType(1):
            return np.dtype(np.bool_)
        if isinstance(elt, IntegerType):
            return np.dtype(np.int64) if self.wide_ints else storage_dtype(elt)
        if isinstance(elt, Float64Type):
            return np.dtype(np.float64)
        return self.narrow_float

    def load(self, array, elt: Attribute) -> np.ndarray:
        """An array of element type `elt` (bf16 as uint16 bits, or as float values) in
        the compute dtype."""
        a = np.asarray(array)
        if isinstance(elt, BFloat16Type) and a.dtype == np.uint16:
            a = bf16_value(a)
        return a.astype(self.compute_dtype(elt))

    def round(self, value, elt: Attribute) -> np.ndarray:
        """`value` rounded to element type `elt`, back in the compute dtype."""
        if isinstance(elt, IntegerType):
            value = np.asarray(value)
            if value.dtype.kind == "f" and elt != IntegerType(1):
                return _saturated(value, storage_dtype(elt)).astype(self.compute_dtype(elt))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                if elt != IntegerType(1):  # wrap at the width (held in int64, i64 -> i32 stayed exact)
                    value = value.astype(storage_dtype(elt))
                return value.astype(self.compute_dtype(elt))
        return self.load(to_storage(value, elt), elt)


REFERENCE = Precision("reference", np.dtype(np.float64), wide_ints=True, round_every_op=False)
FOLD = Precision("fold", np.dtype(np.float32), wide_ints=False, round_every_op=True)
PRECISIONS = {p.name: p for p in (REFERENCE, FOLD)}


@contextlib.contextmanager
def numpy_ieee() -> Iterator[None]:
    """Floating-point exceptions give IEEE values silently (they are the semantics)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# --- op semantics -----------------------------------------------------------------------------


def _gelu(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x64 * (1.0 + erf(x64 / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x64 + 0.044715 * x64**3)))


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


_COMPARE = {
    T.EqOp: np.equal, T.NeOp: np.not_equal, T.LtOp: np.less,
    T.LeOp: np.less_equal, T.GtOp: np.greater, T.GeOp: np.greater_equal,
}  # fmt: skip


def _accumulator(dtype: np.dtype) -> np.dtype:
    """Reductions and matmul accumulate floats in float64 (rounded once after)."""
    return np.dtype(np.float64) if dtype.kind == "f" else dtype


def _result_element(op: Operation) -> Attribute:
    return T.element_type(op.results[0].type)


@register_impls
@dataclass
class AicfTensorFunctions(InterpreterFunctions):
    """`aicf_tensor` ops on NumPy arrays held in the compute dtypes of `precision`
    (a `Precision` or its name)."""

    precision: Precision | str = REFERENCE

    def __post_init__(self) -> None:
        if isinstance(self.precision, str):
            self.precision = PRECISIONS[self.precision]

    @property
    def policy(self) -> Precision:
        assert isinstance(self.precision, Precision)
        return self.precision

    def _finish(self, op: Operation, value) -> np.ndarray:
        value = np.asarray(value)
        elt = _result_element(op)
        if self.policy.round_every_op:
            value = self.policy.round(value, elt)
        elif isinstance(elt, IntegerType) and elt != IntegerType(1) and value.dtype.kind in "iu":
            # integers wrap at their width, as NumPy's and the compiled code's do (held
            # in int64, an i32 result that overflows would otherwise stay exact)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                value = value.astype(storage_dtype(elt)).astype(value.dtype)
        return value

    def _operands(self, op: Operation, args: PythonValues) -> list[np.ndarray]:
        """Operands in the compute dtype of the result's element type (NumPy's type
        promotion, made explicit so that f16 + f16 computes in f32 under "fold")."""
        ctype = self.policy.compute_dtype(_result_element(op))
        return [np.asarray(a).astype(ctype, copy=False) for a in args]

    def _elementwise(self, op: Operation, args: PythonValues, fn: Callable) -> PythonValues:
        return (self._finish(op, fn(*self._operands(op, args))),)

    # unary

    @impl(T.NegOp)
    def run_neg(self, interpreter: Interpreter, op: T.NegOp, args: PythonValues):
        return self._elementwise(op, args, np.negative)

    @impl(T.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: T.ExpOp, args: PythonValues):
        return self._elementwise(op, args, np.exp)

    @impl(T.LogOp)
    def run_log(self, interpreter: Interpreter, op: T.LogOp, args: PythonValues):
        return self._elementwise(op, args, np.log)

    @impl(T.SinOp)
    def run_sin(self, interpreter: Interpreter, op: T.SinOp, args: PythonValues):
        return self._elementwise(op, args, np.sin)

    @impl(T.CosOp)
    def run_cos(self, interpreter: Interpreter, op: T.CosOp, args: PythonValues):
        return self._elementwise(op, args, np.cos)

    @impl(T.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: T.TanhOp, args: PythonValues):
        return self._elementwise(op, args, np.tanh)

    @impl(T.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: T.SqrtOp, args: PythonValues):
        return self._elementwise(op, args, np.sqrt)

    @impl(T.RsqrtOp)
    def run_rsqrt(self, interpreter: Interpreter, op: T.RsqrtOp, args: PythonValues):
        return self._elementwise(op, args, lambda x: 1 / np.sqrt(x))

    @impl(T.AbsOp)
    def run_abs(self, interpreter: Interpreter, op: T.AbsOp, args: PythonValues):
        return self._elementwise(op, args, np.abs)

    @impl(T.ReluOp)
    def run_relu(self, interpreter: Interpreter, op: T.ReluOp, args: PythonValues):
        return self._elementwise(op, args, lambda x: np.maximum(x, np.zeros((), x.dtype)))

    @impl(T.GeluOp)
    def run_gelu(self, interpreter: Interpreter, op: T.GeluOp, args: PythonValues):
        return self._elementwise(op, args, _gelu_tanh if op.form == "tanh" else _gelu)

    @impl(T.ErfOp)
    def run_erf(self, interpreter: Interpreter, op: T.ErfOp, args: PythonValues):
        return self._elementwise(op, args, _erf)

    @impl(T.SigmoidOp)
    def run_sigmoid(self, interpreter: Interpreter, op: T.SigmoidOp, args: PythonValues):
        return self._elementwise(op, args, lambda x: 1 / (1 + np.exp(-x)))

    # libm's other functions of one argument

    @impl(T.Log1pOp)
    def run_log1p(self, interpreter: Interpreter, op: T.Log1pOp, args: PythonValues):
        return self._elementwise(op, args, np.log1p)

    @impl(T.Expm1Op)
    def run_expm1(self, interpreter: Interpreter, op: T.Expm1Op, args: PythonValues):
        return self._elementwise(op, args, np.expm1)

    @impl(T.Log2Op)
    def run_log2(self, interpreter: Interpreter, op: T.Log2Op, args: PythonValues):
        return self._elementwise(op, args, np.log2)

    @impl(T.Log10Op)
    def run_log10(self, interpreter: Interpreter, op: T.Log10Op, args: PythonValues):
        return self._elementwise(op, args, np.log10)

    @impl(T.Exp2Op)
    def run_exp2(self, interpreter: Interpreter, op: T.Exp2Op, args: PythonValues):
        return self._elementwise(op, args, np.exp2)

    @impl(T.TanOp)
    def run_tan(self, interpreter: Interpreter, op: T.TanOp, args: PythonValues):
        return self._elementwise(op, args, np.tan)

    @impl(T.AsinOp)
    def run_asin(self, interpreter: Interpreter, op: T.AsinOp, args: PythonValues):
        return self._elementwise(op, args, np.arcsin)

    @impl(T.AcosOp)
    def run_acos(self, interpreter: Interpreter, op: T.AcosOp, args: PythonValues):
        return self._elementwise(op, args, np.arccos)

    @impl(T.AtanOp)
    def run_atan(self, interpreter: Interpreter, op: T.AtanOp, args: PythonValues):
        return self._elementwise(op, args, np.arctan)

    @impl(T.SinhOp)
    def run_sinh(self, interpreter: Interpreter, op: T.SinhOp, args: PythonValues):
        return self._elementwise(op, args, np.sinh)

    @impl(T.CoshOp)
    def run_cosh(self, interpreter: Interpreter, op: T.CoshOp, args: PythonValues):
        return self._elementwise(op, args, np.cosh)

    @impl(T.AsinhOp)
    def run_asinh(self, interpreter: Interpreter, op: T.AsinhOp, args: PythonValues):
        return self._elementwise(op, args, np.arcsinh)

    @impl(T.AcoshOp)
    def run_acosh(self, interpreter: Interpreter, op: T.AcoshOp, args: PythonValues):
        return self._elementwise(op, args, np.arccosh)

    @impl(T.AtanhOp)
    def run_atanh(self, interpreter: Interpreter, op: T.AtanhOp, args: PythonValues):
        return self._elementwise(op, args, np.arctanh)

    @impl(T.CbrtOp)
    def run_cbrt(self, interpreter: Interpreter, op: T.CbrtOp, args: PythonValues):
        return self._elementwise(op, args, np.cbrt)

    @impl(T.FloorOp)
    def run_floor(self, interpreter: Interpreter, op: T.FloorOp, args: PythonValues):
        return self._elementwise(op, args, np.floor)

    @impl(T.CeilOp)
    def run_ceil(self, interpreter: Interpreter, op: T.CeilOp, args: PythonValues):
        return self._elementwise(op, args, np.ceil)

    @impl(T.TruncOp)
    def run_trunc(self, interpreter: Interpreter, op: T.TruncOp, args: PythonValues):
        return self._elementwise(op, args, np.trunc)

    @impl(T.RoundOp)
    def run_round(self, interpreter: Interpreter, op: T.RoundOp, args: PythonValues):
        return self._elementwise(op, args, np.rint)

    # binary (NumPy broadcasting)

    @impl(T.AddOp)
    def run_add(self, interpreter: Interpreter, op: T.AddOp, args: PythonValues):
        return self._elementwise(op, args, np.add)

    @impl(T.SubOp)
    def run_sub(self, interpreter: Interpreter, op: T.SubOp, args: PythonValues):
        return self._elementwise(op, args, np.subtract)

    @impl(T.MulOp)
    def run_mul(self, interpreter: Interpreter, op: T.MulOp, args: PythonValues):
        return self._elementwise(op, args, np.multiply)

    @impl(T.DivOp)
    def run_div(self, interpreter: Interpreter, op: T.DivOp, args: PythonValues):
        return self._elementwise(op, args, _divide)

    @impl(T.MaxOp)
    def run_max(self, interpreter: Interpreter, op: T.MaxOp, args: PythonValues):
        return self._elementwise(op, args, np.maximum)

    @impl(T.MinOp)
    def run_min(self, interpreter: Interpreter, op: T.MinOp, args: PythonValues):
        return self._elementwise(op, args, np.minimum)

    @impl(T.PowOp)
    def run_pow(self, interpreter: Interpreter, op: T.PowOp, args: PythonValues):
        return self._elementwise(op, args, _power)

    @impl(T.Atan2Op)
    def run_atan2(self, interpreter: Interpreter, op: T.Atan2Op, args: PythonValues):
        return self._elementwise(op, args, np.arctan2)

    @impl(T.FmodOp)
    def run_fmod(self, interpreter: Interpreter, op: T.FmodOp, args: PythonValues):
        return self._elementwise(op, args, np.fmod)

    @impl(T.CopysignOp)
    def run_copysign(self, interpreter: Interpreter, op: T.CopysignOp, args: PythonValues):
        return self._elementwise(op, args, np.copysign)

    # comparisons and select

    def _compare(self, op: T.CompareOp, args: PythonValues):
        ctype = self.policy.compute_dtype(op.operand_element_type())
        x, y = (np.asarray(a).astype(ctype, copy=False) for a in args)
        return (_COMPARE[type(op)](x, y),)

    @impl(T.EqOp)
    def run_eq(self, interpreter: Interpreter, op: T.EqOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.NeOp)
    def run_ne(self, interpreter: Interpreter, op: T.NeOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.LtOp)
    def run_lt(self, interpreter: Interpreter, op: T.LtOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.LeOp)
    def run_le(self, interpreter: Interpreter, op: T.LeOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.GtOp)
    def run_gt(self, interpreter: Interpreter, op: T.GtOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.GeOp)
    def run_ge(self, interpreter: Interpreter, op: T.GeOp, args: PythonValues):
        return self._compare(op, args)

    @impl(T.SelectOp)
    def run_select(self, interpreter: Interpreter, op: T.SelectOp, args: PythonValues):
        x, y = self._operands(op, args[1:])
        return (self._finish(op, np.where(np.asarray(args[0], np.bool_), x, y)),)

    # constants and casts

    @impl(T.IotaOp)
    def run_iota(self, interpreter: Interpreter, op: T.IotaOp, args: PythonValues):
        shape = T.ranked_shape(op.result.type)
        assert shape is not None
        index = np.indices(shape, dtype=np.int64)[op.dim_value]
        return (self._finish(op, index.astype(self.policy.compute_dtype(_result_element(op)))),)

    @impl(T.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: T.ConstantOp, args: PythonValues):
        return (self.policy.load(dense_storage(op.value), op.value.get_element_type()),)

    @impl(T.CastOp)
    def run_cast(self, interpreter: Interpreter, op: T.CastOp, args: PythonValues):
        return (self.policy.round(args[0], _result_element(op)),)

    # reductions (negative axes count from the end; NumPy keepdims)

    def _reduce(self, op: T.ReduceOp, args: PythonValues, fn: Callable, accumulate: bool):
        (x,) = self._operands(op, args)
        axes = tuple(a + x.ndim if a < 0 else a for a in op.axes_list)
        extra = {"dtype": _accumulator(x.dtype)} if accumulate else {}
        return (self._finish(op, fn(x, axis=axes, keepdims=op.keep, **extra)),)

    @impl(T.ReduceSumOp)
    def run_reduce_sum(self, interpreter: Interpreter, op: T.ReduceSumOp, args: PythonValues):
        return self._reduce(op, args, np.sum, accumulate=True)

    @impl(T.ReduceMaxOp)
    def run_reduce_max(self, interpreter: Interpreter, op: T.ReduceMaxOp, args: PythonValues):
        return self._reduce(op, args, np.max, accumulate=False)

    @impl(T.ReduceMinOp)
    def run_reduce_min(self, interpreter: Interpreter, op: T.ReduceMinOp, args: PythonValues):
        return self._reduce(op, args, np.min, accumulate=False)

    @impl(T.ReduceProdOp)
    def run_reduce_prod(self, interpreter: Interpreter, op: T.ReduceProdOp, args: PythonValues):
        return self._reduce(op, args, np.prod, accumulate=True)

    def _scan(self, op: T.ScanOp, args: PythonValues, fn: Callable):
        (x,) = self._operands(op, args)
        out = fn(x, axis=op.scan_axis(), dtype=_accumulator(x.dtype))
        if isinstance(op, T.CumsumOp) and out.dtype.kind == "f":
            out = out + 0.0  # the op's fold starts from +0.0: a prefix of -0.0 is +0.0
        return (self._finish(op, out),)

    @impl(T.CumsumOp)
    def run_cumsum(self, interpreter: Interpreter, op: T.CumsumOp, args: PythonValues):
        return self._scan(op, args, np.cumsum)

    @impl(T.CumprodOp)
    def run_cumprod(self, interpreter: Interpreter, op: T.CumprodOp, args: PythonValues):
        return self._scan(op, args, np.cumprod)

    @impl(T.ReduceMeanOp)
    def run_reduce_mean(self, interpreter: Interpreter, op: T.ReduceMeanOp, args: PythonValues):
        return self._reduce(op, args, np.mean, accumulate=True)

    @impl(T.ReduceVarOp)
    def run_reduce_var(self, interpreter: Interpreter, op: T.ReduceVarOp, args: PythonValues):
        def var(x, axis, keepdims, dtype):
            return np.var(x.astype(dtype), axis=axis, keepdims=keepdims, ddof=op.ddof_value)

        return self._reduce(op, args, var, accumulate=True)

    # contraction

    @impl(T.MatmulOp)
    def run_matmul(self, interpreter: Interpreter, op: T.MatmulOp, args: PythonValues):
        acc = _accumulator(self.policy.compute_dtype(_result_element(op)))
        a, b = (np.asarray(x).astype(acc, copy=False) for x in args)
        return (self._finish(op, np.matmul(a, b)),)

    @impl(T.AttentionOp)
    def run_attention(self, interpreter: Interpreter, op: T.AttentionOp, args: PythonValues):
        acc = _accumulator(self.policy.compute_dtype(_result_element(op)))
        q, k, v = (
            np.asarray(x).astype(acc) if perm is None else np.transpose(np.asarray(x).astype(acc), perm)
            for x, perm in zip(args[:3], op.perms())
        )
        s = np.matmul(q, np.swapaxes(k, -1, -2)) * op.scale_value
        if op.mask is not None:
            mask = np.asarray(args[3])
            if T.element_type(op.mask.type) == IntegerType(1):
                s = np.where(mask.astype(np.bool_), s, -np.inf)
            else:
                s = s + mask.astype(acc)
        if op.is_causal:
            s = np.where(np.tri(*s.shape[-2:], dtype=np.bool_), s, -np.inf)
        # a row of -inf only (or no keys) gives 0, as torch's safe softmax
        m = np.max(s, axis=-1, keepdims=True, initial=-np.inf)
        e = np.exp(s - np.where(m == -np.inf, 0, m))
        total = np.sum(e, axis=-1, keepdims=True)
        return (self._finish(op, np.matmul(e / np.where(total == 0, 1, total), v)),)

    # layout

    @impl(T.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: T.ReshapeOp, args: PythonValues):
        (x,) = self._operands(op, args)
        return (self._finish(op, np.reshape(x, op.target_shape())),)

    @impl(T.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: T.TransposeOp, args: PythonValues):
        (x,) = self._operands(op, args)
        return (self._finish(op, np.transpose(x, op.perm_list)),)

    @impl(T.BroadcastToOp)
    def run_broadcast_to(
        self, interpreter: Interpreter, op: T.BroadcastToOp, args: PythonValues
    ):
        (x,) = self._operands(op, args)
        return (self._finish(op, np.broadcast_to(x, op.target_shape()).copy()),)

    @impl(T.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: T.SliceOp, args: PythonValues):
        (x,) = self._operands(op, args)
        # stop -1 with a negative step means "through index 0", which a Python slice
        # spells as None
        index = tuple(
            slice(a, None if b < 0 else b, c) for a, b, c in zip(*op.bounds())
        )
        return (self._finish(op, x[index].copy()),)

    @impl(T.ConcatenateOp)
    def run_concatenate(
        self, interpreter: Interpreter, op: T.ConcatenateOp, args: PythonValues
    ):
        xs = self._operands(op, args)
        return (self._finish(op, np.concatenate(xs, axis=op.axis_value)),)

    @impl(T.TakeOp)
    def run_take(self, interpreter: Interpreter, op: T.TakeOp, args: PythonValues):
        x = self._operands(op, args)[0]
        axis = op.axis_value % x.ndim
        n = x.shape[axis]
        index = np.asarray(args[1]).astype(np.int64)
        index = np.clip(np.where(index < 0, index + n, index), 0, max(n - 1, 0))
        return (self._finish(op, np.take(x, index, axis=axis)),)

    # fusion groups: the region is the group's semantics

    @impl(T.FusedOp)
    def run_fused(self, interpreter: Interpreter, op: T.FusedOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, args, op.name)

    @impl_terminator(T.YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: T.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()


def _divide(a, b):
    """aicf_tensor.div: true division of floats; of integers, the compiled targets'
    arith.divsi (backend/cstyle.py's helpers): rounded toward zero, x / 0 = 0, and
    MIN / -1 wraps to MIN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        return np.true_divide(a, b)
    dtype = np.result_type(a, b)
    with np.errstate(all="ignore"):
        safe = np.where(b == 0, 1, b)
        # magnitudes in uint64 (|MIN| is 2^(n-1) there; np.abs(MIN) is MIN, and MIN // 2
        # and 1 // MIN floored the wrong way), rounding toward zero, MIN / -1 wrapping
        q = (_magnitude(a) // _magnitude(safe)).astype(np.int64)
        q = np.where((a < 0) != (safe < 0), -q, q).astype(dtype)
    return np.where(b == 0, 0, q).astype(dtype)


def _magnitude(x: np.ndarray) -> np.ndarray:
    """|x| of an integer array, exact, as uint64."""
    x = x.astype(np.int64)  # MIN of a narrower type stays itself; uint64 is not an aicf type
    return np.where(x < 0, -(x.astype(np.uint64)), x.astype(np.uint64))


def _power(a, b):
    """aicf_tensor.pow: NumPy's power, and for integers the compiled targets'
    math.ipowi: wrapping, and a negative exponent gives the integer part of 1 / x**|n|
    (1 for x = 1, +-1 for x = -1, else 0), where NumPy raises."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        return np.power(a, b)
    with np.errstate(all="ignore"):
        r = np.power(a, np.where(b < 0, 0, b))  # np.abs(MIN) is MIN: NumPy raised
        neg = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 1, -1, 1), 0))
    return np.where(b < 0, neg, r).astype(r.dtype)


# --- running ------------------------------------------------------------------------------------


def interpreter_for(module: ModuleOp, precision: Precision | str = REFERENCE) -> Interpreter:
    """An xDSL interpreter of `module`'s `func` and `aicf_tensor` ops."""
    # here, not at the top: xdsl.interpreters' package imports every interpreter of
    # xDSL's (0.4 s), which the constant folder, imported with the tracer, never needs
    from xdsl.interpreters.func import FuncFunctions

    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(AicfTensorFunctions(precision))
    return interpreter


def call(
    module: ModuleOp, entry: str, args: Sequence, precision: Precision | str = REFERENCE
) -> tuple[np.ndarray, ...]:
    """Call function @entry of `module` on arrays already in the compute dtypes."""
    with numpy_ieee():
        outs = interpreter_for(module, precision).call_op(entry, tuple(args))
    return tuple(np.asarray(v) for v in outs)


@functools.cache
def _op_interpreter(precision: Precision) -> Interpreter:
    return interpreter_for(ModuleOp([]), precision)


def run_op(
    op: Operation, args: Sequence, precision: Precision | str = FOLD
) -> tuple[np.ndarray, ...]:
    """The results of one op (which need not be in a module) on operand values `args`
    in their compute dtypes. Errors from NumPy (e.g. a shape mismatch in unverified
    IR) propagate."""
    if isinstance(precision, str):
        precision = PRECISIONS[precision]
    with numpy_ieee():
        return _op_interpreter(precision).run_op(op, tuple(args))
