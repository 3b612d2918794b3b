"""The traced tensor: a proxy for an SSA value with NumPy's operators.

A `Tensor` only exists while a function is traced; its operators build `aicf_tensor`
ops through the tracer that owns it. `dtype` is a `TracedDType`: NumPy takes it as
its dtype, and it equals (and prints as) MLIR's spelling (`"f32"`, `"bf16"`);
`mlir_dtype` is that spelling as a plain string.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.ir import SSAValue

from aicf.dialects.shape_rules import size_problem
from aicf.dialects.tensor import SUPPORTED_DTYPES, dtype_name, element_type, ranked_shape
from aicf.errors import AicfError, ArgumentError, ArgumentValueError, CompileError

if TYPE_CHECKING:
    from aicf.frontend.tracer import Tracer

_NUMPY_NAMES = {
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "int32": "i32",
    "int64": "i64",
    "bool": "i1",
    "bfloat16": "bf16",  # ml_dtypes / CuPy spelling
}


class _MissingAttribute(CompileError, AttributeError):
    """An ndarray attribute a traced tensor does not have (Tensor.__getattr__)."""


class _Unsized(CompileError, TypeError):
    """len() of or iteration over a 0-d traced tensor: located, and a TypeError as
    NumPy's "len() of unsized object", so code probing for a length still works."""


def _unsized(what: str) -> _Unsized:
    from aicf.frontend.tracer import located_error

    return _Unsized(str(located_error(None, what)))


def dtype_of(dtype: Any) -> str:
    """MLIR's name of a dtype given as `"f32"`, `"float32"`, np.float32, a np.dtype or a
    torch dtype."""
    if isinstance(dtype, str) and dtype in SUPPORTED_DTYPES:
        return dtype
    if isinstance(dtype, TracedDType):  # a traced tensor's: bf16 has no NumPy dtype without ml_dtypes
        return dtype._name
    if isinstance(dtype, str) and re.fullmatch(r"[iuf][0-9]+", dtype.strip()):
        # "i8" is MLIR's 8-bit integer here (as "i32" and "i1" are MLIR's), but NumPy
        # reads it as 8 bytes: taken as NumPy's, cast(x, "i8") gave int64 silently
        raise TypeError(
            f"dtype {dtype!r} is ambiguous: NumPy reads it as a size in bytes, MLIR in "
            "bits; write one of f16, bf16, f32, f64, i32, i64, bool, or a NumPy name "
            "(\"int64\", np.float32)"
        )
    try:
        name = np.dtype(dtype).name
    except TypeError:
        # torch's dtypes print as NumPy's names (torch.float32 was "unsupported")
        name = str(dtype).removeprefix("torch.")
    if name in _NUMPY_NAMES:
        return _NUMPY_NAMES[name]
    raise TypeError(
        f"unsupported dtype {dtype!r} (supported: f16, bf16, f32, f64, i32, i64, bool "
        "and their NumPy names)"
    )


@dataclass(frozen=True)
class TensorSpec:
    """An example argument by shape and dtype only: `TensorSpec((4, 8), "f32")`.
    A None extent is dynamic (`?`). `weak` marks a Python scalar argument: it takes the
    dtype of the tensors it meets (JAX's weak typing; see README). A NumPy float scalar
    (np.float64, np.float32) is strong, a 0-d array of its dtype, as NumPy 2 takes it."""

    shape: tuple[int | None, ...]
    dtype: str
    weak: bool = False

    def __init__(self, shape: Sequence[int | None], dtype: Any = "f32", weak: bool = False):
        object.__setattr__(self, "shape", _extents(shape))
        try:
            object.__setattr__(self, "dtype", dtype_of(dtype))
        except TypeError as e:
            raise ArgumentError(str(e)) from None
        if not isinstance(weak, bool | np.bool_) or (weak and self.shape):
            # weak="yes" was taken as true; a weak array took the dtype of what it met
            raise ArgumentError(f"a TensorSpec's weak is True (a Python scalar: shape ()) or False, got "
                                f"{weak!r} with shape {self.shape}")
        object.__setattr__(self, "weak", bool(weak))
        why = size_problem([d for d in self.shape if d is not None], dtype_bits(self.dtype))
        if why is not None:
            raise ArgumentValueError(f"TensorSpec{self.shape} of {self.dtype} {why}")


def _extents(shape: Any) -> tuple[int | None, ...]:
    """A spec's shape as ints (None: dynamic), checked as NumPy checks a shape (an
    ArgumentError naming the extent otherwise)."""
    if isinstance(shape, str) or not isinstance(shape, Sequence):
        raise ArgumentError(f"a TensorSpec shape is a sequence of ints (None: dynamic), got {shape!r}")
    out: list[int | None] = []
    for d in shape:
        if d is None:
            out.append(None)
            continue
        try:
            if isinstance(d, bool | np.bool_):
                raise TypeError
            n = operator.index(d)
        except TypeError:
            raise ArgumentError(f"a TensorSpec extent is an int or None, got {d!r} in {tuple(shape)!r}") from None
        if n < 0:
            raise ArgumentValueError(f"a TensorSpec extent is >= 0, got {n} in {tuple(shape)!r}")
        out.append(n)
    return tuple(out)


_MLIR_TO_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "bf16": "bfloat16"}


class TracedDType:
    """A traced tensor's dtype. NumPy takes it wherever it takes a dtype (it reads
    `.dtype`), so NumPy code such as picoGPT's `np.tri(n, dtype=x.dtype)` traces
    unchanged; it compares equal to the NumPy dtype and to MLIR's name, hashes and
    prints as MLIR's name, and reads as that string otherwise (aicf's own spelling)."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    @property
    def dtype(self) -> np.dtype:
        if self._name == "bf16":
            try:
                import ml_dtypes  # type: ignore[import-not-found]
            except ImportError:
                from aicf.frontend.tracer import located_error

                raise located_error(None, "bf16 has no NumPy dtype without the ml_dtypes package "
                                          "(pip install ml_dtypes)") from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(_MLIR_TO_NUMPY.get(self._name, self._name))

    @property
    def name(self) -> str:
        return _MLIR_TO_NUMPY.get(self._name, self._name)

    @property
    def kind(self) -> str:
        return "f" if self._name in ("f16", "bf16", "f32", "f64") else "b" if self._name == "i1" else "i"

    @property
    def itemsize(self) -> int:
        return max(1, dtype_bits(self._name) // 8)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TracedDType):
            return other._name == self._name
        if isinstance(other, str) and other == self._name:
            return True
        if other is None:  # np.dtype(None) is float64
            return False
        try:
            return self.dtype == np.dtype(other)  # type: ignore[arg-type]
        except (TypeError, ValueError, AicfError):  # not a dtype, or bf16 without ml_dtypes
            return False

    def __hash__(self) -> int:
        return hash(self._name)

    def __str__(self) -> str:
        return self._name

    def __format__(self, spec: str) -> str:
        return format(self._name, spec)

    def __repr__(self) -> str:
        return f"dtype({self._name!r})"

    def __getattr__(self, attr: str):
        # NumPy's dtype attributes (type, char, str, ...) as on an array's dtype; else
        # str methods: aicf's own code reads MLIR's name
        if not attr.startswith("_") and hasattr(np.dtype, attr):
            return getattr(self.dtype, attr)
        return getattr(self._name, attr)

    def __getitem__(self, i):
        return self._name[i]

    def __len__(self) -> int:
        return len(self._name)


def dtype_bits(dtype: str) -> int:
    """Bits of an element of MLIR dtype name `dtype` (an i1 takes a byte)."""
    return {"i1": 8, "f16": 16, "bf16": 16, "f32": 32, "i32": 32}.get(dtype, 64)


I32_MIN, I32_MAX = -(2**31), 2**31 - 1


def scalar_spec(value: Any) -> TensorSpec:
    """The spec of a Python scalar argument, as JAX types it: a weak 0-d f32 for a
    float, i32 for an int. bool (a flag: static, or np.array(flag)), ints out of i32
    range and complex numbers raise TypeError."""
    if isinstance(value, bool):
        raise TypeError("a bool scalar has no weak aicf type (np.array(flag) is a bool tensor)")
    if isinstance(value, int):
        if not I32_MIN <= value <= I32_MAX:
            raise TypeError(f"the int {value} is out of i32 range; pass a float or an array")
        return TensorSpec((), "i32", weak=True)
    if isinstance(value, float):
        return TensorSpec((), "f32", weak=True)
    raise TypeError(f"a {type(value).__name__} scalar has no aicf element type")


def spec_of(arg: Any) -> TensorSpec:
    """The TensorSpec of an example argument: a TensorSpec, a Python int or float (a
    weak 0-d tensor), or anything with `.shape` and `.dtype` (NumPy or CuPy arrays;
    nothing else is read)."""
    if isinstance(arg, TensorSpec):
        return arg
    if isinstance(arg, bool | int | float | complex):
        return scalar_spec(arg)
    if hasattr(arg, "shape") and hasattr(arg, "dtype"):
        return TensorSpec(tuple(int(d) for d in arg.shape), arg.dtype)
    from aicf.errors import ArgumentError  # a TypeError too, as before

    raise ArgumentError(
        f"example arguments must be arrays or aicf.TensorSpec, got {type(arg).__name__}"
    )


def _api():
    # numpy_api imports ops, which imports this module
    from aicf.frontend import numpy_api

    return numpy_api


def _method(impl: str):
    """An ndarray method: numpy_api's function of the same meaning on `self`."""

    def method(self, *args, **kwargs):
        fn = getattr(_api(), impl)
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            # a call that does not fit raised Python's TypeError naming numpy_api's inner
            # function (`_reduction.<locals>.reduce()`), not the method, nor the user's line
            import inspect

            try:
                inspect.signature(fn).bind(self, *args, **kwargs)
            except TypeError as why:
                from aicf.frontend.tracer import located_error

                raise located_error(None, f"ndarray.{method.__name__}: {why}") from None
            raise e

    method.__name__ = impl.rstrip("_")
    return method


def _bad_call(method: str, why: str):
    from aicf.frontend.tracer import located_error

    raise located_error(None, f"ndarray.{method}: {why}")


def _comparison(name: str):
    def compare(self, other):
        return getattr(_api().ops, name)(self, other)

    compare.__name__ = name
    return compare


class Tensor:
    """A traced tensor value: NumPy's operators, ndarray methods and (through
    `__array_ufunc__` / `__array_function__`) the NumPy functions listed in
    `aicf.frontend.numpy_api`. A `weak` tensor comes from a Python scalar and takes
    the dtype of the tensors it meets."""

    def __init__(self, value: SSAValue, tracer: Tracer, weak: bool = False):
        self.value = value
        self.tracer = tracer
        self.weak = weak

    @property
    def shape(self) -> tuple[int | None, ...]:
        shape = ranked_shape(self.value.type)
        assert shape is not None
        return tuple(None if d < 0 else d for d in shape)

    @shape.setter
    def shape(self, value) -> None:
        # NumPy's in-place reshape (x.shape = (n, -1)): an AttributeError without a line
        _api().immutable(f"assigning shape {value!r} (use x = x.reshape(...))")

    @property
    def dtype(self) -> TracedDType:
        """The element type: NumPy reads it as its dtype (`np.zeros(n, dtype=x.dtype)`,
        `x.dtype == np.float32`, as on a NumPy array or a JAX tracer); it also equals
        MLIR's spelling (`x.dtype == "f32"`) and prints as that."""
        return TracedDType(self.mlir_dtype)

    @dtype.setter
    def dtype(self, value) -> None:
        # NumPy's in-place reinterpretation of the bytes: an AttributeError without a line
        _api().immutable(f"assigning dtype {value!r} (use x = x.astype(...))")

    @property
    def mlir_dtype(self) -> str:
        """MLIR's spelling of the element type (`"f32"`, `"bf16"`, `"i1"`)."""
        return dtype_name(element_type(self.value.type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        """Bytes of an element, as NumPy counts them (a bool takes one)."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int | None:
        """Bytes of the tensor (None while an extent is dynamic)."""
        return None if self.size is None else self.size * self.itemsize

    @property
    def size(self) -> int | None:
        return None if None in self.shape else int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise _unsized("len() of a 0-d or dynamically sized traced tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape}, dtype={self.dtype})"

    def __format__(self, spec: str) -> str:
        # f"{loss:.3f}" (logging inside a traced function) raised object's raw TypeError
        # "unsupported format string passed to Tensor.__format__"
        if not spec:
            return str(self)
        return _api().no_value(f"formatting with {spec!r}")

    def __bool__(self) -> bool:
        # `if x == y:` lands here now that comparisons build ops: name the user's line
        return _api().no_value("the truth value (data-dependent control flow)")

    # NumPy's protocols: np.tanh(x), np.mean(x, axis=-1), ndarray + Tensor ----------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _api().array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _api().array_function(func, args, kwargs)

    def __array__(self, *args, **kwargs):
        return _api().no_value("conversion to a NumPy array")

    def __float__(self):
        return _api().no_value("float()")

    def __int__(self):
        return _api().no_value("int()")

    def __index__(self):
        return _api().no_value("use as an index")

    def __complex__(self):
        return _api().no_value("complex()")

    # operators ----------------------------------------------------------------------------

    def __add__(self, other):
        return _api().ops.add(self, other)

    def __radd__(self, other):
        return _api().ops.add(other, self)

    def __sub__(self, other):
        return _api().ops.sub(self, other)

    def __rsub__(self, other):
        return _api().ops.sub(other, self)

    def __mul__(self, other):
        return _api().ops.mul(self, other)

    def __rmul__(self, other):
        return _api().ops.mul(other, self)

    def __truediv__(self, other):
        return _api().ops.true_divide(self, other)

    def __rtruediv__(self, other):
        return _api().ops.true_divide(other, self)

    def __pow__(self, other, modulo=None):
        if modulo is not None:  # pow(x, 2, 3): a raw TypeError naming __pow__ (NumPy's TypeError too)
            _api().no_meaning("pow() with a modulus")
        return _api().ops.pow(self, other)

    def __rpow__(self, other):
        return _api().ops.pow(other, self)

    def __floordiv__(self, other):
        return _api().ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _api().ops.floor_divide(other, self)

    def __mod__(self, other):
        return _api().ops.remainder(self, other)

    def __rmod__(self, other):
        return _api().ops.remainder(other, self)

    def __divmod__(self, other):
        return _api().ops.divmod(self, other)

    def __rdivmod__(self, other):
        return _api().ops.divmod(other, self)

    def __and__(self, other):
        return _api().ops.bitwise_and(self, other)

    def __rand__(self, other):
        return _api().ops.bitwise_and(other, self)

    def __or__(self, other):
        return _api().ops.bitwise_or(self, other)

    def __ror__(self, other):
        return _api().ops.bitwise_or(other, self)

    def __xor__(self, other):
        return _api().ops.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _api().ops.bitwise_xor(other, self)

    def __lshift__(self, other):
        return _api().ops.left_shift(self, other)

    def __rlshift__(self, other):
        return _api().ops.left_shift(other, self)

    def __rshift__(self, other):
        return _api().ops.right_shift(self, other)

    def __rrshift__(self, other):
        return _api().ops.right_shift(other, self)

    def __invert__(self):
        return _api().ops.invert(self)

    def __matmul__(self, other):
        return _api().ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _api().ops.matmul(other, self)

    def __neg__(self):
        return _api().ops.neg(self)

    def __pos__(self):
        return _api()._positive(self)

    def __abs__(self):
        return _api().ops.abs(self)

    # Comparisons build i1 tensors, as NumPy's; hashing stays by identity (the tracer
    # keys tensors by their values, never by ==).
    __hash__ = object.__hash__

    __eq__ = _comparison("equal")
    __ne__ = _comparison("not_equal")
    __lt__ = _comparison("less")
    __le__ = _comparison("less_equal")
    __gt__ = _comparison("greater")
    __ge__ = _comparison("greater_equal")

    def __getitem__(self, index):
        return _api().getitem(self, index)

    def __iter__(self):
        # as NumPy and JAX: the sub-tensors along the first axis
        if not self.shape:
            raise _unsized("iteration over a 0-d traced tensor")
        if self.shape[0] is None:
            return _api().no_value("iteration over a dynamic extent")
        return (self[i] for i in range(self.shape[0]))

    def __setitem__(self, index, value):
        return _api().immutable(f"item assignment (x[{index!r}] = ...)")

    def item(self, *args):
        return _api().no_value("item()")

    def __getattr__(self, name: str):
        # Reached only for attributes a Tensor lacks. An ndarray method or attribute
        # (x.view(...), x.tofile(...)) is a located error naming the user's line,
        # not a bare AttributeError; it is an AttributeError too, so hasattr() and
        # getattr(x, name, default) probing for it still answer as before.
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'Tensor' object has no attribute {name!r}")
        from aicf.frontend.tracer import located_error

        e = located_error(None, f"ndarray.{name} has no aicf meaning on traced tensors (supported: "
                                "aicf.frontend.numpy_api.UFUNCS and FUNCTIONS, and the Tensor methods)")
        raise _MissingAttribute(str(e))

    def __copy__(self):
        return self  # immutable, as JAX's tracers

    def __deepcopy__(self, memo):
        # a deep copy copied the tracer and its program: its ops went to a program no
        # one compiles, and returning it said "got Tensor"
        return self

    def __round__(self, ndigits=None):
        return _api().no_meaning("round()")

    def tolist(self):
        return _api().no_value("tolist()")

    # ndarray methods ----------------------------------------------------------------------

    def reshape(self, *shape, order="C", copy=None, **keywords):
        if keywords or not shape:  # a raw TypeError naming Tensor.reshape
            _bad_call("reshape", f"unexpected keyword argument(s) {', '.join(keywords)}" if keywords
                      else "missing the shape")
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _api().reshape(self, shape, order=order, copy=copy)

    def transpose(self, *axes, **keywords):
        if keywords:  # NumPy's method takes none; it was a raw TypeError naming Tensor
            _bad_call("transpose", f"takes no keyword arguments, got {', '.join(keywords)}")
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return _api().transpose(self, axes or None)

    @property
    def T(self):
        return _api().transpose(self)

    @property
    def mT(self):
        return _api().swapaxes(self, -1, -2)

    def copy(self, order="K"):
        # ndarray.copy (u.copy() before a time-stepping loop): tensors are immutable, so
        # the tensor itself; it was "ndarray.copy has no aicf meaning"
        return self

    swapaxes = _method("swapaxes")
    squeeze = _method("squeeze")
    ravel = flatten = _method("ravel")
    sum = _method("sum_")
    prod = _method("prod")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    mean = _method("mean")
    max = _method("max_")
    min = _method("min_")
    var = _method("var")
    std = _method("std")
    clip = _method("clip")
    argmax = _method("argmax")  # x.argmax(-1) was "ndarray.argmax has no aicf meaning"
    argmin = _method("argmin")
    take = _method("take")
    dot = _method("dot")
    astype = _method("astype")
    any = _method("any_")
    all = _method("all_")
    round = _method("round_")
    diagonal = _method("diagonal")
    trace = _method("trace")
    repeat = _method("repeat")
