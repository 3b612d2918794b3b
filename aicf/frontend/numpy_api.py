"""NumPy's API on traced tensors: what `np.tanh(x)`, `np.mean(x, axis=-1)`, `x.var()`
and friends mean in `aicf_tensor` ops.

`Tensor.__array_ufunc__` looks ufuncs up by name in `UFUNCS`; `__array_function__`
looks functions up in `FUNCTIONS`. NumPy functions that need an operator aicf does
not have yet are in `NOT_YET` / `NOT_YET_UFUNCS` with the operator they wait for:
supporting one is a line in the table above plus the op. Anything else raises an
error naming the function and the user's line.

Implementations take NumPy's signatures; options without an aicf meaning (`out=`,
`dtype=` on a reduction, `where=`, `order="F"`) are errors, never ignored.
"""

from __future__ import annotations

import builtins
import numbers
import string
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from aicf.dialects.shape_rules import promote_dtypes
from aicf.frontend import ops
from aicf.frontend.ops import _index, _int_list, _tracer_of
from aicf.frontend.tensor import Tensor
from aicf.frontend.tracer import located_error

# --- errors ----------------------------------------------------------------------------------


def _name(func: Any) -> str:
    if isinstance(func, np.ufunc):
        return f"numpy.{func.__name__}"
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__name__', func)}"


def not_yet(what: str, operator: str) -> NoReturn:
    raise located_error(
        None,
        f"{what} is not supported yet: aicf has no {operator} operator yet",
    )


def immutable(what: str) -> NoReturn:
    raise located_error(
        None,
        f"{what} on a traced tensor: tensors are immutable (as JAX's); build the new "
        "value with aicf.ops.where, concatenate or slice",
    )


def no_meaning(what: str) -> NoReturn:
    raise located_error(
        None,
        f"{what} has no aicf meaning on traced tensors (supported: "
        "aicf.frontend.numpy_api.UFUNCS and FUNCTIONS)",
    )


def no_value(what: str) -> NoReturn:
    raise located_error(
        None,
        f"{what} of a traced tensor: its value is not known while tracing (the "
        "function is traced once per shape; keep such values static)",
    )


def _reject(func_name: str, **options: Any) -> None:
    """Options given a value other than their default (`name=(value, default)`)."""
    for key, (value, default) in options.items():
        if _given(value, default):
            # a NumPy scalar type (dtype=np.float64) has a shape attribute too
            array = hasattr(value, "shape") and not isinstance(value, type)
            shown = f"an array of shape {value.shape}" if array else repr(value)
            raise located_error(None, f"{func_name}: {key}={shown} is not supported")


def _given(value: Any, default: Any) -> bool:
    if value is default or value is np._NoValue:  # NumPy's own "not given" (a wrapper's default)
        return False
    if isinstance(value, Tensor) or hasattr(value, "__array__"):
        return True  # an array compares elementwise, and is never the default
    try:
        return bool(value != default)
    except Exception:  # a comparison that is not a truth value
        return True


_NO = object()  # "not given", where None is a meaningful value


# --- reductions ------------------------------------------------------------------------------


def _reduction(op: Callable[..., Tensor], func_name: str, has_dtype: bool = True):
    """NumPy's reduction `func_name`; np.max and np.min take no dtype, so their third
    positional argument is keepdims (np.max(x, 0, None, True) was read as out=True)."""

    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO, where=_NO):
        _reject(func_name, dtype=(dtype, None), out=(out, None))
        _reject(func_name, initial=(initial, _NO), where=(where, _NO))
        axes = _axis(axis, func_name)
        return op(a, axes if isinstance(axis, tuple) else _scalar_axes(a, axes), keepdims=keepdims)

    if has_dtype:
        return reduce

    def reduce_no_dtype(a, axis=None, out=None, keepdims=False, initial=_NO, where=_NO):
        return reduce(a, axis, None, out, keepdims, initial, where)

    return reduce_no_dtype


def _scalar_axes(a: Any, axes: Any) -> Any:
    """NumPy's ufunc reductions (sum, prod, max, min; not mean) and cumsum take axis 0
    and -1 (not a tuple of them) of a 0-d array as no axis (np.sum(x, axis=0) of a
    scalar is the scalar); the ops refuse them as out of range."""
    if isinstance(a, Tensor) and a.ndim == 0 and axes is not None and set(axes) <= {0, -1}:
        return []
    return axes


def _axis(axis: Any, func_name: str) -> Any:
    if axis is None:
        return None
    if isinstance(axis, list) or (isinstance(axis, np.ndarray) and axis.ndim):
        # NumPy takes an int or a tuple of ints (its TypeError); a list or an array was
        # taken as the axes, where the same code raises outside the trace
        raise located_error(func_name, f"axis must be an integer or a tuple of integers, got "
                            f"{type(axis).__name__} {axis!r:.40}")
    return _int_list(axis, "axis", func_name)


reduce_min = ops.reduce_min


def _widening(op: Callable[..., Tensor]):
    """sum and prod: NumPy takes bools and int32 to int64 (a count; 4 * 2**30 is not 0)."""

    def reduce(x, axis=None, keepdims=False):
        if isinstance(x, Tensor) and x.dtype in ("i1", "i32"):
            x = ops.cast(x, "i64")
        return op(x, axis, keepdims=keepdims)

    return reduce


_sum = _widening(ops.reduce_sum)
sum_ = _reduction(_sum, "numpy.sum")
prod = _reduction(_widening(ops.reduce_prod), "numpy.prod")
def _cumulative(op: Callable[..., Tensor], func_name: str):
    """numpy.cumsum and cumprod: over the flattened array without an axis; bools and
    int32 as int64, as NumPy's sum and prod."""

    def scan(a, axis=None, dtype=None, out=None):
        _reject(func_name, dtype=(dtype, None), out=(out, None))
        a = ops._as_tensor(a, _tracer_of(a), None, func_name)
        if axis is None or (a.ndim == 0 and _scalar_axes(a, _axis(axis, func_name)) == []):
            a, axis = ops.reshape(a, [-1]), 0  # a 0-d array's axis 0 too: NumPy's shape (1,)
        if a.dtype in ("i1", "i32"):
            a = ops.cast(a, "i64")
        return op(a, axis)

    return scan


cumsum = _cumulative(ops.cumsum, "numpy.cumsum")
cumprod = _cumulative(ops.cumprod, "numpy.cumprod")
max_ = _reduction(ops.reduce_max, "numpy.max", has_dtype=False)
min_ = _reduction(reduce_min, "numpy.min", has_dtype=False)


def _integral(x: Tensor) -> bool:
    """An integer or bool tensor, whose mean, var and std NumPy gives as floats (the
    mean of a mask, an accuracy, raised reduce_mean's verifier error). aicf computes
    them in f64 (f32 cancelled INT_MAX against INT_MIN) and returns f32, as
    true_divide does (JAX's promotion)."""
    return not ops._is_float(x.dtype)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO):
    _reject("numpy.mean", dtype=(dtype, None), out=(out, None), where=(where, _NO))
    axes = _axis(axis, "numpy.mean")
    x = _tensor(a, "numpy.mean")
    if _integral(x):
        return ops.cast(ops.reduce_mean(ops.cast(x, "f64"), axes, keepdims=keepdims), "f32")
    return ops.reduce_mean(x, axes, keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO, mean=_NO,
        correction=_NO):  # fmt: skip
    """mean(|x - mean(x)|^2), as NumPy computes it (two passes)."""
    name = "numpy.var"
    _reject(name, dtype=(dtype, None), out=(out, None), where=(where, _NO), mean=(mean, _NO))
    if correction is not _NO:
        ddof = correction
    if not isinstance(ddof, numbers.Real):  # n <= ddof raised a raw TypeError
        raise located_error(None, f"{name}: ddof must be a number, got {type(ddof).__name__} {ddof!r}")
    axes = _axis(axis, name)
    x = _tensor(a, name)
    if _integral(x):
        return ops.cast(var(ops.cast(x, "f64"), axis, ddof=ddof, keepdims=keepdims), "f32")
    d = x - ops.reduce_mean(x, axes, keepdims=True)
    sq = ops.reduce_mean(d * d, axes, keepdims=keepdims)
    if ddof == 0:
        return sq
    extents = [x.shape[i] for i in (axes if axes is not None else builtins.range(x.ndim))]
    if None in extents:
        raise located_error(None, f"{name}: ddof={ddof} over a dynamic extent")
    n = int(np.prod(extents))
    if n <= ddof:
        raise located_error(None, f"{name}: ddof={ddof} with only {n} elements per result")
    return sq * (n / (n - ddof))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    return ops.sqrt(var(a, axis, dtype, out, ddof, keepdims, **kwargs))


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's vector norms (ord None/2, 1, inf, -inf, 0, any other number p) over one
    axis, and its matrix norms (None/'fro', 1, -1, inf, -inf) over two; the 2-norm of
    the flattened array for axis=None and ord=None. Integers and bools are taken as
    float64, as NumPy does."""
    name = "numpy.linalg.norm"
    t = _tensor(x, name)
    if not ops._is_float(t.dtype):
        t = ops.cast(t, "f64")
    axes = _axis(axis, name)
    if axes is not None:
        axes = [_normalize_axis(a, t.ndim, name) for a in axes]
        if len(set(axes)) != len(axes):
            raise located_error(None, f"{name}: duplicate axes {axis!r}")
    if axes is None and ord is None:
        return ops.sqrt(ops.reduce_sum(t * t, None, keepdims=keepdims))
    if axes is None:
        if t.ndim not in (1, 2):
            raise located_error(None, f"{name}: ord={ord!r} without axis takes a 1-d or 2-d array, "
                                f"got rank {t.ndim}")  # fmt: skip
        axes = list(builtins.range(t.ndim))
    if len(axes) == 1:
        return _vector_norm(t, ord, axes, keepdims, name)
    if len(axes) == 2:
        return _matrix_norm(t, ord, axes, keepdims, name)
    raise located_error(None, f"{name}: axis takes one or two axes, got {axis!r}")


def _vector_norm(t: Tensor, ord: Any, axes: list[int], keepdims: bool, name: str) -> Tensor:
    if isinstance(ord, str) or not isinstance(ord, numbers.Real | type(None)):
        raise located_error(None, f"{name}: invalid norm order {ord!r} for vectors")
    a = ops.abs(t)
    if ord is None or ord == 2:
        return ops.sqrt(ops.reduce_sum(t * t, axes, keepdims=keepdims))
    if ord == np.inf:
        return _max_of_magnitudes(a, axes, keepdims)
    if ord == -np.inf:
        return reduce_min(a, axes, keepdims=keepdims)
    if ord == 0:
        return ops.reduce_sum(ops.cast(ops.not_equal(t, 0), t.dtype), axes, keepdims=keepdims)
    if ord == 1:
        return ops.reduce_sum(a, axes, keepdims=keepdims)
    p = float(ord)
    return ops.pow(ops.reduce_sum(ops.pow(a, p), axes, keepdims=keepdims), 1.0 / p)


def _reduce_max_or(empty: Any, x: Tensor, axes: Any, keepdims: bool) -> Tensor:
    """reduce_max, or the constant `empty` over an empty axis (max has no identity
    there; any() and NumPy's norms have an answer)."""
    reduced = builtins.range(x.ndim) if axes is None else [a % builtins.max(x.ndim, 1) for a in axes]
    if builtins.any(x.shape[a] == 0 for a in reduced):
        shape = [1 if i in reduced else d for i, d in enumerate(x.shape) if keepdims or i not in reduced]
        if None not in shape:
            return ops.constant(empty, x.dtype, shape)
    return ops.reduce_max(x, axes, keepdims=keepdims)


def _max_of_magnitudes(a: Tensor, axes: list[int], keepdims: bool) -> Tensor:
    """The largest of non-negative values; 0 over an empty axis (NumPy's norms)."""
    return _reduce_max_or(0, a, axes, keepdims)


def _matrix_norm(t: Tensor, ord: Any, axes: list[int], keepdims: bool, name: str) -> Tensor:
    row, col = axes
    if ord in (None, "fro"):
        return ops.sqrt(ops.reduce_sum(t * t, axes, keepdims=keepdims))
    if isinstance(ord, str) or ord not in (1, -1, np.inf, -np.inf):
        what = "the singular values" if ord in (2, -2, "nuc") else "a matrix norm"
        raise located_error(None, f"{name}: ord={ord!r} over two axes is not supported "
                            f"({what}; supported: None, 'fro', 1, -1, inf, -inf)")  # fmt: skip
    # 1: the largest column sum (sum over the row axis); inf: the largest row sum
    inner, outer = (row, col) if ord in (1, -1) else (col, row)
    sums = ops.reduce_sum(ops.abs(t), [inner], keepdims=True)
    out = _max_of_magnitudes(sums, [outer], True) if ord > 0 else reduce_min(sums, [outer], keepdims=True)
    if keepdims:
        return out
    return squeeze(out, tuple(sorted(axes)))


def _any_of(flags: Tensor, axes: Any, keepdims: bool) -> Tensor:
    """Whether any flag is set along `axes`; false over an empty axis."""
    return _reduce_max_or(False, flags, axes, keepdims)


def any_(a, axis=None, out=None, keepdims=False, *, where=_NO):
    _reject("numpy.any", out=(out, None), where=(where, _NO))
    x = _tensor(a, "numpy.any")
    return _any_of(x != 0, _axis(axis, "numpy.any"), keepdims)


def all_(a, axis=None, out=None, keepdims=False, *, where=_NO):
    _reject("numpy.all", out=(out, None), where=(where, _NO))
    x = _tensor(a, "numpy.all")
    return _any_of(x == 0, _axis(axis, "numpy.all"), keepdims) == False  # noqa: E712


def count_nonzero(a, axis=None, *, keepdims=False):
    x = _tensor(a, "numpy.count_nonzero")
    return ops.reduce_sum(ops.cast(x != 0, "i64"), _axis(axis, "numpy.count_nonzero"), keepdims=keepdims)


def round_(a, decimals=0, out=None):
    """NumPy's round: to nearest, ties to even, at 10**-decimals (x * 10**d rounded,
    then divided back, as NumPy computes it); integers with decimals >= 0 unchanged."""
    name = "numpy.round"
    _reject(name, out=(out, None))
    d = _index(decimals, "decimals", name)
    x = _tensor(a, name)
    if x.dtype == "i1":  # NumPy rounds bools in f16 (its rint loop); x * 10**d raises
        if d != 0:
            raise located_error(None, f"{name}: bools to decimals={d} are not defined (nor in NumPy)")
        return ops.cast(x, "f16")
    if not _is_float(x):
        if d >= 0:
            return x
        raise located_error(None, f"{name}: integers to decimals={d} are not supported")
    if d == 0:
        return ops.round(x)
    # past f64's range the scale is inf and the results NaN, as NumPy's
    scale = 10.0 ** builtins.abs(d) if builtins.abs(d) <= 308 else np.inf
    if d > 0:
        return ops.round(x * scale) / scale
    return ops.round(x / scale) * scale


def fix(x, out=None):
    _reject("numpy.fix", out=(out, None))
    t = _tensor(x, "numpy.fix")
    return ops.trunc(t) if _is_float(t) else t


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to `nan`, +-inf to `posinf`/`neginf` (default: the dtype's largest finite values)."""
    t = _tensor(x, "numpy.nan_to_num")
    if not _is_float(t):
        return t
    big = ops._FLOAT_MAX[t.dtype] if posinf is None else posinf
    small = -ops._FLOAT_MAX[t.dtype] if neginf is None else neginf
    return ops.where(t != t, nan, ops.where(t == np.inf, big, ops.where(t == -np.inf, small, t)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's (|a - b| <= atol + rtol * |b| and b finite) or a == b: equal values are
    close under any tolerance (rtol=nan), an infinite b only to itself; NaN unequal
    unless equal_nan."""
    a, b = _floating(a), _floating(b)
    close = ((ops.abs(a - b) <= atol + rtol * ops.abs(b)) & _isfinite(b)) | (a == b)
    return close | (_isnan(a) & _isnan(b)) if equal_nan else close


def outer(a, b, out=None):
    _reject("numpy.outer", out=(out, None))
    x, y = ravel(_tensor(a, "numpy.outer")), ravel(_tensor(b, "numpy.outer"))
    return expand_dims(x, 1) * expand_dims(y, 0)


# --- layout ------------------------------------------------------------------------------------


def _tensor(a: Any, func_name: str) -> Tensor:
    return a if isinstance(a, Tensor) else ops._as_tensor(a, _tracer_of(a), None, func_name)


def _dims(shape: tuple[int | None, ...]) -> list[int]:
    return [-1 if d is None else d for d in shape]


def _normalize_axis(axis: Any, ndim: int, func_name: str) -> int:
    i = _index(axis, "axis", func_name)
    if not -ndim <= i < ndim:
        raise located_error(None, f"{func_name}: axis {i} is out of range for rank {ndim}")
    return i % ndim


def _normalize_axes(axes: Any, ndim: int, func_name: str) -> list[int]:
    return [_normalize_axis(v, ndim, func_name) for v in _int_list(axes, "axis", func_name)]


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    _reject("numpy.reshape", order=(order, "C"))
    return ops.reshape(a, newshape if shape is None else shape)


def transpose(a, axes=None):
    if axes is not None:  # NumPy counts a negative axis from the end: x.transpose(-1, 0, 1)
        n = _tensor(a, "numpy.transpose").ndim
        # one out of range stays so, for the op's "not a permutation"
        axes = [v % n if -n <= v < 0 else v for v in _int_list(axes, "a perm entry", "aicf_tensor.transpose")]
    return ops.transpose(a, axes)


def _perm_moving(ndim: int, source: list[int], destination: list[int]) -> list[int]:
    rest = [i for i in builtins.range(ndim) if i not in source]
    perm: list[int | None] = [None] * ndim
    for s, d in zip(source, destination):
        perm[d] = s
    it = iter(rest)
    return [next(it) if p is None else p for p in perm]


def swapaxes(a, axis1, axis2):
    x = _tensor(a, "numpy.swapaxes")
    i, j = (_normalize_axis(v, x.ndim, "numpy.swapaxes") for v in (axis1, axis2))
    perm = list(builtins.range(x.ndim))
    perm[i], perm[j] = j, i
    return ops.transpose(x, perm)


def moveaxis(a, source, destination):
    x = _tensor(a, "numpy.moveaxis")
    src = _normalize_axes(source, x.ndim, "numpy.moveaxis")
    dst = _normalize_axes(destination, x.ndim, "numpy.moveaxis")
    if len(src) != len(dst):
        raise located_error(None, "numpy.moveaxis: source and destination differ in length")
    # a repeated axis leaves _perm_moving a hole it cannot fill (a raw StopIteration)
    for name, axes, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(axes)) != len(axes):
            raise located_error(None, f"numpy.moveaxis: repeated axis in {name} {given}")
    return ops.transpose(x, _perm_moving(x.ndim, src, dst))


def expand_dims(a, axis):
    x = _tensor(a, "numpy.expand_dims")
    axes = _int_list(axis, "axis", "numpy.expand_dims")
    ndim = x.ndim + len(axes)
    new = set(_normalize_axes(axes, ndim, "numpy.expand_dims"))
    if len(new) != len(axes):
        raise located_error(None, f"numpy.expand_dims: repeated axis in {axis}")
    dims = iter(_dims(x.shape))
    return ops.reshape(x, [1 if i in new else next(dims) for i in builtins.range(ndim)])


def squeeze(a, axis=None):
    x = _tensor(a, "numpy.squeeze")
    if axis is None:
        drop = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        axes = _normalize_axes(axis, x.ndim, "numpy.squeeze")
        drop = set(axes)
        if len(drop) != len(axes):
            raise located_error(None, f"numpy.squeeze: repeated axis in {axis}")
        for i in drop:
            if x.shape[i] != 1:
                raise located_error(None, f"numpy.squeeze: axis {i} has extent {x.shape[i]}, not 1")
    return ops.reshape(x, [d for i, d in enumerate(_dims(x.shape)) if i not in drop])


def ravel(a, order="C"):
    _reject("numpy.ravel", order=(order, "C"))
    return ops.reshape(a, [-1])


def broadcast_to(array, shape, subok=False):
    return ops.broadcast_to(array, shape)


def _order_and_device(func_name: str, order: Any, device: Any) -> None:
    """NumPy's ValueErrors; order='Q' or device='gpu' was ignored (every order is the
    values' own: outputs are C-contiguous)."""
    if not (isinstance(order, str) and order in ("C", "F", "A", "K")):
        raise located_error(func_name, f"order must be one of 'C', 'F', 'A' or 'K', got {order!r}")
    if device not in (None, "cpu"):
        raise located_error(func_name, f"device={device!r}: NumPy's only device is 'cpu'")


def astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True, *, device=None):
    dtype = _numpy_dtype(dtype, "numpy.astype")
    _order_and_device("numpy.astype", order, device)
    if casting != "unsafe":  # NumPy's rule decides, as it would on an array
        from aicf.frontend.tensor import TracedDType, dtype_of

        try:
            src, dst = np.dtype(TracedDType(x.mlir_dtype)), np.dtype(TracedDType(dtype_of(dtype)))
            allowed = np.can_cast(src, dst, casting)
        except (TypeError, ValueError) as e:
            raise located_error("numpy.astype", f"casting={casting!r}: {e}") from None
        if not allowed:
            raise located_error("numpy.astype", f"cannot cast {x.dtype} to {dtype_of(dtype)} under casting={casting!r}")
    return ops.cast(x, dtype)


def clip(a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    _reject("numpy.clip", out=(out, None), **{k: (v, None) for k, v in kwargs.items()})
    if (a_min is not _NO or a_max is not _NO) and (min is not _NO or max is not _NO):
        # NumPy's ValueError: which bound wins is not said; min was silently dropped
        raise located_error(None, "numpy.clip: give a_min/a_max or min/max, not both")
    lo = a_min if a_min is not _NO else min
    hi = a_max if a_max is not _NO else max
    x = a
    if lo is not _NO and lo is not None:
        x = ops.maximum(x, lo)
    if hi is not _NO and hi is not None:
        x = ops.minimum(x, hi)
    return x


# --- products ------------------------------------------------------------------------------


def dot(a, b, out=None):
    """numpy.dot where it is matmul (operands of rank <= 2) or a scalar product."""
    _reject("numpy.dot", out=(out, None))
    ranks = [v.ndim if isinstance(v, Tensor) else np.ndim(v) for v in (a, b)]
    if 0 in ranks:
        return ops.mul(a, b)
    if builtins.max(ranks) > 2:
        no_meaning("numpy.dot of an operand of rank > 2 (not a matmul; use np.matmul, np.einsum)")
    return ops.matmul(a, b)


def einsum(subscripts, *operands, out=None, optimize=False, **kwargs):
    """Two-operand einsum that is a (batched) matmul: one contracted index, every
    other index in the output (a row, a column or a batch index; batch indices one
    operand lacks must lead, as matmul broadcasts them), in any order."""
    options = {k: (v, None) for k, v in kwargs.items() if k not in ("order", "casting")}
    _reject("numpy.einsum", out=(out, None), **options)
    if not isinstance(subscripts, str) or len(operands) != 2:
        no_meaning("numpy.einsum other than the two-operand string form")
    a, b = (_tensor(v, "numpy.einsum") for v in operands)
    ins, out_spec = _einsum_specs(subscripts, (a.ndim, b.ndim))
    options = {k: kwargs[k] for k in ("order", "casting") if k in kwargs}
    if options.get("order", "K") != "K" or options.get("casting", "safe") != "safe":
        # NumPy's verdict on empty operands of these dtypes: casting='no' of f32 and a
        # float64 array, order='Q' were ignored
        try:
            dummies = [np.empty((0,) * v.ndim, v.dtype if isinstance(v, np.ndarray) else v.dtype.dtype)
                       for v in operands]
        except Exception:  # noqa: BLE001 - a dtype NumPy lacks (bf16 without ml_dtypes)
            dummies = None
        if dummies is not None:
            try:
                np.einsum(subscripts, *dummies, **options)
            except (TypeError, ValueError) as e:
                raise located_error(None, f"numpy.einsum: {e}") from None
    sa, sb = ins
    only_a = [c for c in sa if c not in sb]
    only_b = [c for c in sb if c not in sa]
    contracted = [c for c in sa if c in sb and c not in out_spec]
    # the last index of one operand only (in output order) is its matmul row/column;
    # any others are batch dims the other operand broadcasts over
    free_a = [c for c in out_spec if c in only_a][-1:]
    free_b = [c for c in out_spec if c in only_b][-1:]
    batch = [c for c in out_spec if c not in free_a + free_b]
    ok = (
        len(contracted) == 1
        and all(c in out_spec for c in only_a + only_b)
        and all(c in sa or c in sb for c in out_spec)
        and len(set(sa)) == len(sa) and len(set(sb)) == len(sb)
    )  # fmt: skip
    for spec in (sa, sb):
        mine = [c for c in batch if c in spec]
        ok = ok and mine == batch[len(batch) - len(mine):]  # missing batch dims lead
    if not ok:
        no_meaning(f"numpy.einsum({subscripts!r}), which is not a matmul,")
    (k,) = contracted
    lhs = _to_order(a, sa, [c for c in batch if c in sa] + free_a + [k])
    rhs = _to_order(b, sb, [c for c in batch if c in sb] + [k] + free_b)
    if not free_a:
        lhs = expand_dims(lhs, -2)
    if not free_b:
        rhs = expand_dims(rhs, -1)
    r = ops.matmul(lhs, rhs)
    order = batch + free_a + free_b
    if not free_a or not free_b:  # drop the unit dims added above
        rows_cols = [d for d, f in zip(_dims(r.shape[-2:]), (free_a, free_b)) if f]
        r = ops.reshape(r, _dims(r.shape[:-2]) + rows_cols)
    return _to_order(r, order, list(out_spec))


def _to_order(x: Tensor, have: list[str], want: list[str]) -> Tensor:
    perm = [have.index(c) for c in want]
    return x if perm == sorted(perm) else ops.transpose(x, perm)


def _einsum_specs(subscripts: str, ranks: tuple[int, ...]) -> tuple[list[list[str]], list[str]]:
    text = subscripts.replace(" ", "")
    bad = sorted({c for c in text.replace("->", "").replace("...", "") if c != "," and c not in string.ascii_letters})
    if bad:  # NumPy's ValueError; '$' (or 'λ') was taken as an index name
        raise located_error(None, f"numpy.einsum: invalid subscript {bad[0]!r} in {subscripts!r}: "
                            "subscripts must be letters")
    lhs, arrow, out = text.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(ranks):
        raise located_error(None, f"numpy.einsum: {subscripts!r} names {len(specs)} operands")
    spare = [c for c in string.ascii_letters if c not in text]
    n_ell = builtins.max(
        [r - (len(s) - 3) for s, r in zip(specs, ranks) if "..." in s] or [0]
    )
    ell = spare[:n_ell]
    expanded = []
    for s, r in zip(specs, ranks):
        if "..." in s:
            head, _, tail = s.partition("...")
            n = r - len(head) - len(tail)
            s = head + "".join(ell[n_ell - n:]) + tail
        if len(s) != r:
            raise located_error(
                None, f"numpy.einsum: {subscripts!r} does not fit an operand of rank {r}"
            )
        expanded.append(list(s))
    if arrow:
        out = out.replace("...", "".join(ell))
    else:
        once = [c for c in lhs if c.isalpha() and lhs.count(c) == 1]
        out = "".join(ell) + "".join(sorted(once))
    repeated = sorted({c for c in out if out.count(c) > 1})
    if repeated:  # NumPy refuses it; the matmul below took the index once, silently
        raise located_error(
            None, f"numpy.einsum: {subscripts!r} names output subscript {repeated[0]!r} more than once"
        )
    return expanded, list(out)


# --- constants shaped like a tensor ------------------------------------------------------------


def _numpy_dtype(dtype: Any, func_name: str) -> Any:
    """A dtype given to a NumPy function: a string NumPy reads otherwise than aicf
    ("i1": int8 to NumPy, bool to MLIR; "f16": float128, not half) is an error, not
    aicf's reading (x.astype("i1") gave bools where NumPy code meant int8)."""
    if isinstance(dtype, str) and dtype.strip() in ("i1", "f16"):
        raise located_error(func_name, f"dtype {dtype!r} is ambiguous: NumPy reads it as "
                            f"{np.dtype(dtype.strip()).name}, MLIR as {'bool' if 'i' in dtype else 'float16'}; "
                            "write a NumPy name (\"bool\", \"float16\", np.int32)")
    return dtype


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype = _numpy_dtype(dtype, "numpy.full_like")
    _order_and_device("numpy.full_like", order, device)
    x = _tensor(a, "numpy.full_like")
    target = x.shape if shape is None else tuple(_int_list(shape, "an extent", "numpy.full_like"))
    if None in target:
        raise located_error(None, "numpy.full_like of a tensor with dynamic extents")
    return ops.constant(fill_value, x.dtype if dtype is None else dtype, target)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _full_like(a, 0, dtype, order, subok, shape, device=device)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _full_like(a, 1, dtype, order, subok, shape, device=device)


# --- indexing ----------------------------------------------------------------------------------


def getitem(x: Tensor, index: Any) -> Tensor:
    """NumPy's indexing: integers, slices (any step), None and one Ellipsis (basic
    indexing), plus one integer array (a tensor, an int array or list, a range) beside
    slices. The slices become one aicf_tensor.slice (a view its consumers read in
    place), integers and None a reshape, the integer array a take along its axis
    (a constant index out of range is NumPy's IndexError, a located error; a traced
    one is clamped, as JAX's gathers; an in-range arithmetic sequence is a slice
    instead)."""
    items = index if isinstance(index, tuple) else (index,)
    arrays = [k for k, i in enumerate(items) if _integer_index(i) is not None]
    if arrays:
        return _advanced_getitem(x, items, arrays)
    for i in items:
        if isinstance(i, bool | np.bool_):
            not_yet("indexing a traced tensor with a boolean mask", "masked select")
        if not (i is None or i is Ellipsis or isinstance(i, builtins.slice)):
            _index(i, "an index", None)
    if builtins.sum(i is Ellipsis for i in items) > 1:
        raise located_error(None, "an index can only have a single ellipsis ('...')")
    n_real = builtins.sum(i is not None and i is not Ellipsis for i in items)
    if n_real > x.ndim:
        raise located_error(None, f"too many indices for a tensor of rank {x.ndim}")
    if Ellipsis not in items:
        items = items + (Ellipsis,)
    start, stop, step, shape = [], [], [], []
    axis = 0
    for i in items:
        if i is None:
            shape.append(1)
            continue
        if i is Ellipsis:
            for _ in builtins.range(x.ndim - n_real):
                n = x.shape[axis]
                start.append(0), stop.append(-1 if n is None else n), step.append(1)
                shape.append(-1 if n is None else n)
                axis += 1
            continue
        n = x.shape[axis]
        if n is None and i != builtins.slice(None):
            raise located_error(None, f"indexing axis {axis} of dynamic extent")
        if isinstance(i, builtins.slice):
            try:
                a, b, c = (0, -1, 1) if n is None else i.indices(n)
            except (TypeError, ValueError) as e:  # non-integer bounds, a zero step
                raise located_error(None, f"slice {i.start}:{i.stop}:{i.step} of axis {axis}: {e}") from None
            if n is not None and abs(c) > max(n, 1):  # takes one element either way, and fits an i64
                c = max(n, 1) if c > 0 else -max(n, 1)
            start.append(a), stop.append(b), step.append(c)
            shape.append(-1 if n is None else len(builtins.range(a, b, c)))
        else:
            k = _index(i, "an index", None)
            if not -n <= k < n:
                raise located_error(
                    None, f"index {k} is out of bounds for axis {axis} with size {n}"
                )
            k %= n
            start.append(k), stop.append(k + 1), step.append(1)
        axis += 1
    full = all(
        a == 0 and c == 1 and (b == n or n is None)
        for a, b, c, n in zip(start, stop, step, x.shape)
    )
    y = x if full else ops.slice(x, start, stop, step)
    return y if shape == _dims(y.shape) else ops.reshape(y, shape)


def take(a, indices, axis=None, out=None, mode="raise"):
    """numpy.take with mode='clip' (a negative index clamped to 0, as NumPy's clip mode;
    aicf.ops.take clamps the rest, as JAX does); 'raise' is aicf.ops.take's rule where the
    indices are traced (a kernel cannot raise), and 'wrap' is refused rather than
    computed differently."""
    _reject("numpy.take", out=(out, None))
    if mode == "wrap":
        raise located_error("numpy.take", "mode='wrap' is not supported (aicf clamps indices: mode='clip')")
    if mode not in ("raise", "clip"):
        raise located_error("numpy.take", f"mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if mode == "raise" and not isinstance(indices, Tensor):
        index = _index_array(indices, "numpy.take")
        if axis is not None:  # "0" or None compared with ints raised raw TypeErrors
            axis = _index(axis, "axis", "numpy.take")
        n = None  # an axis out of range is ops.take's to report
        if isinstance(a, Tensor):
            n = a.size if axis is None else (a.shape[axis] if -a.ndim <= axis < a.ndim else None)
        if index.size and n is not None and (index.min() < -n or index.max() >= n):
            raise located_error("numpy.take", f"index {int(index.max() if index.max() >= n else index.min())} "
                                f"is out of bounds for size {n}")
    if mode == "clip":  # NumPy's clip mode clamps a negative index to 0: it does not count from the end
        indices = ops.maximum(indices, 0) if isinstance(indices, Tensor) else np.maximum(
            _index_array(indices, "numpy.take"), 0)
    return ops.take(a, indices, axis)


def _index_array(indices: Any, func_name: str | None) -> np.ndarray:
    """Constant indices as an array of integers (a ragged list raised NumPy's raw
    ValueError, None a raw TypeError from comparing it)."""
    try:
        array = np.asarray(indices)
    except (ValueError, TypeError) as e:
        raise located_error(func_name, f"the indices are no array: {e}") from None
    if array.dtype.kind not in "iub" and array.size:
        what = "indices must be integers, got an array of" if func_name else "an index array must hold integers, got"
        raise located_error(func_name, f"{what} {array.dtype}")
    return array


def _integer_index(i: Any) -> Tensor | np.ndarray | None:
    """An array-like integer index (a tensor, an int array or list, a range) as take's
    indices, or None when `i` is not one."""
    if isinstance(i, Tensor):
        if i.dtype == "i1":
            not_yet("indexing a traced tensor with a boolean mask", "masked select")
        if i.dtype not in ("i32", "i64"):
            raise located_error(None, f"an index tensor must be i32 or i64, got {i.dtype}")
        return i
    if isinstance(i, builtins.range):
        return np.arange(i.start, i.stop, i.step)
    if isinstance(i, np.ndarray | list):
        array = _index_array(i, None)
        if array.dtype == np.bool_:
            not_yet("indexing a traced tensor with a boolean mask", "masked select")
        # an empty list is NumPy's float64 but an index (x[[]]); an empty float array is not
        if array.dtype.kind not in "iu" and (array.size or isinstance(i, np.ndarray)):
            raise located_error(None, f"an index array must hold integers, got {array.dtype}")
        return array.astype(np.int64)
    return None


def _as_slice(index: np.ndarray, n: int | None) -> builtins.slice | None:
    """The slice selecting exactly `index` (1-D, in range, equally spaced), if any."""
    if index.ndim != 1 or n is None or index.size == 0:
        return None
    if index.min() < 0 or index.max() >= n:
        return None
    step = int(index[1] - index[0]) if index.size > 1 else 1
    if step == 0 or np.any(np.diff(index) != step):
        return None
    start = int(index[0])
    stop = start + step * index.size
    return builtins.slice(start, stop if stop >= 0 else None, step)


def _advanced_getitem(x: Tensor, items: tuple, arrays: list[int]) -> Tensor:
    """x[..., idx, ...] with one integer array among slices, None and Ellipsis: the
    basic part first, then a take along the array's axis of the result."""
    if len(arrays) > 1:
        not_yet("indexing a traced tensor with several integer arrays", "a multi-axis gather")
    (k,) = arrays
    if any(isinstance(i, numbers.Integral | np.integer) for i in items):
        not_yet("mixing integer and array indices", "a multi-axis gather")
    index = _integer_index(items[k])
    rest = items[:k] + (builtins.slice(None),) + items[k + 1 :]
    n_real = builtins.sum(i is not None and i is not Ellipsis for i in rest)
    axis = 0  # the array's axis in the basic result, and in x
    source_axis = 0
    for i in items[:k]:
        if i is Ellipsis:
            axis += x.ndim - n_real
            source_axis += x.ndim - n_real
        else:
            axis += 1
            source_axis += i is not None
    if isinstance(index, np.ndarray) and source_axis < x.ndim:
        n = x.shape[source_axis]
        if index.size and n is not None and (index.min() < -n or index.max() >= n):
            # constant indices: NumPy's IndexError, as np.take's mode='raise' (clamped,
            # x[[3, 0]] of 3 rows silently read row 2 for 3)
            bad = int(index.max() if index.max() >= n else index.min())
            raise located_error(None, f"index {bad} is out of bounds for axis {source_axis} with size {n} "
                                "(indices that are traced tensors are clamped, as aicf.ops.take)")
        as_slice = _as_slice(index, x.shape[source_axis])
        if as_slice is not None:
            return getitem(x, items[:k] + (as_slice,) + items[k + 1 :])
    y = getitem(x, rest)
    return ops.take(y, index, axis)


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting=_NO):
    _reject("numpy.concatenate", out=(out, None), dtype=(dtype, None), casting=(casting, _NO))
    if axis is None:
        return ops.concatenate([ravel(a) for a in arrays], 0)
    return ops.concatenate(list(arrays), axis)


def stack(arrays, axis=0, out=None, *, dtype=None, casting=_NO):
    _reject("numpy.stack", out=(out, None), dtype=(dtype, None), casting=(casting, _NO))
    arrays = list(arrays)
    first = next((a for a in arrays if isinstance(a, Tensor)), None)  # closed-over arrays typed beside it
    parts = [a if isinstance(a, Tensor) or first is None else ops._as_tensor(a, first.tracer, first, "numpy.stack")
             for a in arrays]  # fmt: skip
    parts = [_tensor(a, "numpy.stack") for a in parts]
    if not parts:
        raise located_error(None, "numpy.stack: need at least one array to stack")
    ax = _normalize_axis(axis, parts[0].ndim + 1, "numpy.stack")
    return ops.concatenate([expand_dims(p, ax) for p in parts], ax)


def hstack(tup, *, dtype=None, casting=_NO):
    parts = list(tup)
    axis = 0 if builtins.all(getattr(p, "ndim", np.ndim(p)) == 1 for p in parts) else 1
    return concatenate(parts, axis, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting=_NO):
    parts = [p if getattr(p, "ndim", np.ndim(p)) >= 2 else reshape(p, (1, -1)) for p in tup]
    return concatenate(parts, 0, dtype=dtype, casting=casting)


def _static_shape(x: Tensor, func_name: str) -> tuple[int, ...]:
    if None in x.shape:
        raise located_error(None, f"{func_name} of a tensor with dynamic extents")
    return tuple(x.shape)


def _along(ndim: int, axis: int, sl: builtins.slice) -> tuple:
    return tuple(sl if i == axis else builtins.slice(None) for i in builtins.range(ndim))


def flip(m, axis=None):
    x = _tensor(m, "numpy.flip")
    axes = (builtins.range(x.ndim) if axis is None
            else _normalize_axes(axis if isinstance(axis, tuple | list) else (axis,), x.ndim, "numpy.flip"))  # fmt: skip
    if len(set(axes)) != len(axes):
        raise located_error(None, f"numpy.flip: repeated axis in {axis!r}")
    return getitem(x, tuple(builtins.slice(None, None, -1) if i in axes else builtins.slice(None)
                            for i in builtins.range(x.ndim)))  # fmt: skip


def roll(a, shift, axis=None):
    """Elements shifted along axes, wrapping around: two slices concatenated per axis."""
    name = "numpy.roll"
    x = _tensor(a, name)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shape = _static_shape(x, name)
    shifts = shift if isinstance(shift, tuple | list) else (shift,)
    axes = axis if isinstance(axis, tuple | list) else (axis,)
    try:
        shifts, axes = np.broadcast_arrays(np.array([_index(v, "shift", name) for v in shifts], np.int64),
                                           np.array([_index(v, "axis", name) for v in axes], np.int64))  # fmt: skip
    except ValueError:  # NumPy's raw ValueError
        raise located_error(None, f"{name}: {len(shifts)} shifts for {len(axes)} axes") from None
    total: dict[int, int] = {}
    for sh, ax in zip(shifts.tolist(), axes.tolist()):
        ax = _normalize_axis(ax, x.ndim, name)
        total[ax] = total.get(ax, 0) + sh
    for ax, sh in total.items():
        n = shape[ax]
        k = sh % n if n else 0
        if k:
            x = ops.concatenate([getitem(x, _along(x.ndim, ax, builtins.slice(n - k, None))),
                                 getitem(x, _along(x.ndim, ax, builtins.slice(0, n - k)))], ax)  # fmt: skip
    return x


def tile(A, reps):
    name = "numpy.tile"
    x = _tensor(A, name)
    reps = tuple(_int_list(reps if isinstance(reps, tuple | list) else (reps,), "a repetition", name))
    if builtins.any(r < 0 for r in reps):
        raise located_error(None, f"{name}: negative repetitions {reps}")
    shape = _static_shape(x, name)
    d = builtins.max(len(shape), len(reps))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    x = reshape(x, [v for s in shape for v in (1, s)])
    x = broadcast_to(x, [v for r, s in zip(reps, shape) for v in (r, s)])
    return reshape(x, [r * s for r, s in zip(reps, shape)])


def repeat(a, repeats, axis=None):
    """Each element `repeats` times along `axis` (a count or one per element): a take
    of the repeated indices."""
    name = "numpy.repeat"
    x = _tensor(a, name)
    if axis is None:
        x, axis = ravel(x), 0
    ax = _normalize_axis(axis, x.ndim, name)
    n = _static_shape(x, name)[ax]
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, n)):
        raise located_error(None, f"{name}: repeats must be an integer or {n} integers, got {repeats!r:.60}")
    if (counts < 0).any():
        raise located_error(None, f"{name}: negative repeats")
    total = int(counts.sum(dtype=object)) * (1 if counts.ndim else n)
    if total >= 2**31:
        raise located_error(None, f"{name}: {total} repeated elements along an axis are more than aicf "
                            "indexes (2**31)")  # fmt: skip
    return ops.take(x, np.repeat(np.arange(n), counts), ax)


def pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's pad in the modes 'constant' (constant_values), 'edge', 'reflect',
    'symmetric' and 'wrap' (the last three with pads no wider than the axis)."""
    name = "numpy.pad"
    x = _tensor(array, name)
    shape = _static_shape(x, name)
    modes = ("constant", "edge", "reflect", "symmetric", "wrap")
    if not isinstance(mode, str) or mode not in modes:
        raise located_error(None, f"{name}: mode={mode!r} is not supported (supported: {', '.join(modes)})")
    value = kwargs.pop("constant_values", 0)
    if kwargs.pop("reflect_type", "even") != "even" or kwargs:
        raise located_error(None, f"{name}: options {sorted(kwargs) or ['reflect_type']} are not supported")
    if mode == "constant" and np.ndim(value) != 0:
        raise located_error(None, f"{name}: constant_values must be one number")
    try:
        widths = np.broadcast_to(np.asarray(pad_width), (x.ndim, 2))
    except ValueError:
        raise located_error(None, f"{name}: pad_width {pad_width!r:.60} does not fit rank {x.ndim}") from None
    if widths.dtype.kind not in "iu" or (widths < 0).any():
        raise located_error(None, f"{name}: pad_width must be non-negative integers, got {pad_width!r:.60}")
    for ax, (before, after) in enumerate(widths.tolist()):
        n = shape[ax]
        if not before and not after:
            continue
        limit = n - 1 if mode == "reflect" else n
        if mode in ("reflect", "symmetric", "wrap") and builtins.max(before, after) > limit:
            raise located_error(None, f"{name}: mode={mode!r} pads of {builtins.max(before, after)} on an "
                                f"axis of {n} are not supported (at most {limit})")  # fmt: skip
        if mode in ("edge",) and n == 0:
            raise located_error(None, f"{name}: can't extend an empty axis with mode='edge'")

        def part(sl):
            return getitem(x, _along(x.ndim, ax, sl))

        def block(width, edge_index):
            if mode == "constant":
                s = list(x.shape)
                s[ax] = width
                return ops.constant(value, x.dtype, s)
            if mode == "edge":
                s = list(x.shape)
                s[ax] = width
                return broadcast_to(part(builtins.slice(edge_index, edge_index + 1)), s)
            raise AssertionError(mode)

        pieces = []
        if before:
            pieces.append(block(before, 0) if mode in ("constant", "edge") else part({
                "reflect": builtins.slice(before, 0, -1),
                "symmetric": builtins.slice(before - 1, None, -1) if before else builtins.slice(0, 0),
                "wrap": builtins.slice(n - before, None)}[mode]))  # fmt: skip
        pieces.append(x)
        if after:
            pieces.append(block(after, n - 1) if mode in ("constant", "edge") else part({
                "reflect": builtins.slice(n - 2, n - 2 - after if n - 2 - after >= 0 else None, -1),
                "symmetric": builtins.slice(n - 1, n - 1 - after if n - 1 - after >= 0 else None, -1),
                "wrap": builtins.slice(0, after)}[mode]))  # fmt: skip
        x = ops.concatenate(pieces, ax)
        shape = tuple(x.shape)
    return x


def diff(a, n=1, axis=-1, prepend=_NO, append=_NO):
    name = "numpy.diff"
    _reject(name, prepend=(prepend, _NO), append=(append, _NO))
    x = _tensor(a, name)
    ax = _normalize_axis(axis, x.ndim, name)
    count = _index(n, "n", name)
    if count < 0:
        raise located_error(None, f"{name}: order must be non-negative but got {count}")
    for _ in builtins.range(count):
        hi = getitem(x, _along(x.ndim, ax, builtins.slice(1, None)))
        lo = getitem(x, _along(x.ndim, ax, builtins.slice(None, -1)))
        x = hi != lo if x.dtype == "i1" else hi - lo
    return x


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal as the last axis: the two axes moved last, flattened, and sliced
    with a stride of one row plus one."""
    name = "numpy.diagonal"
    x = _tensor(a, name)
    a1, a2 = (_normalize_axis(v, x.ndim, name) for v in (axis1, axis2))
    if a1 == a2:
        raise located_error(None, f"{name}: axis1 and axis2 cannot be the same")
    k = _index(offset, "offset", name)
    x = moveaxis(x, [a1, a2], [-2, -1])
    *batch, rows, cols = _static_shape(x, name)
    start = k if k >= 0 else -k * cols
    length = builtins.max(0, builtins.min(rows, cols - k) if k >= 0 else builtins.min(rows + k, cols))
    flat = reshape(x, (*batch, rows * cols))
    return getitem(flat, (Ellipsis, builtins.slice(start, start + length * (cols + 1) if length else start,
                                                     cols + 1)))  # fmt: skip


def diag(v, k=0):
    """The k-th diagonal of a matrix, or a matrix with a vector on it."""
    name = "numpy.diag"
    x = _tensor(v, name)
    k = _index(k, "k", name)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise located_error(None, f"{name}: takes a 1-d or 2-d array, got rank {x.ndim}")
    (n,) = _static_shape(x, name)
    size = n + builtins.abs(k)
    padded = ops.concatenate([x, ops.constant(0, x.dtype, [builtins.abs(k)])], 0) if k else x
    rows, cols = ops.iota([size, size], 0), ops.iota([size, size], 1)
    along = expand_dims(padded, 1) if k >= 0 else expand_dims(padded, 0)  # v[i] at (i, i + k)
    return ops.where(cols - rows == k, along, False if x.dtype == "i1" else 0)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _reject("numpy.trace", dtype=(dtype, None), out=(out, None))
    return _sum(diagonal(a, offset, axis1, axis2), [-1])


def tensordot(a, b, axes=2):
    """A contraction over paired axes as one matmul: a's contracted axes moved last and
    b's first, each side flattened to a matrix."""
    name = "numpy.tensordot"
    x, y = _tensor(a, name), _tensor(b, name)
    if isinstance(axes, numbers.Integral | np.integer):
        n = int(axes)
        if n < 0 or n > builtins.min(x.ndim, y.ndim):
            raise located_error(None, f"{name}: axes={n} for ranks {x.ndim} and {y.ndim}")
        ax, bx = list(builtins.range(x.ndim - n, x.ndim)), list(builtins.range(n))
    else:
        try:
            ax, bx = axes
        except (TypeError, ValueError):
            raise located_error(None, f"{name}: axes must be an integer or a pair of axis lists") from None
        ax = _normalize_axes(ax if isinstance(ax, tuple | list) else (ax,), x.ndim, name)
        bx = _normalize_axes(bx if isinstance(bx, tuple | list) else (bx,), y.ndim, name)
        if len(ax) != len(bx):
            raise located_error(None, f"{name}: {len(ax)} axes of a against {len(bx)} of b")
    xs, ys = _static_shape(x, name), _static_shape(y, name)
    for i, j in zip(ax, bx):
        if xs[i] != ys[j]:
            raise located_error(None, f"{name}: shape mismatch for the contracted axes ({xs[i]} vs {ys[j]})")
    free_a = [i for i in builtins.range(x.ndim) if i not in ax]
    free_b = [j for j in builtins.range(y.ndim) if j not in bx]
    k = int(np.prod([xs[i] for i in ax], dtype=np.int64))
    m = int(np.prod([xs[i] for i in free_a], dtype=np.int64))
    n = int(np.prod([ys[j] for j in free_b], dtype=np.int64))
    lhs = reshape(transpose(x, free_a + list(ax)), (m, k))
    rhs = reshape(transpose(y, list(bx) + free_b), (k, n))
    return reshape(ops.matmul(lhs, rhs), [xs[i] for i in free_a] + [ys[j] for j in free_b])


def inner(a, b):
    x, y = _tensor(a, "numpy.inner"), _tensor(b, "numpy.inner")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return tensordot(x, y, ([-1], [-1]))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """numpy.average; weights that sum to zero give inf or NaN where NumPy raises
    (ZeroDivisionError on the values, which a compiled program cannot)."""
    name = "numpy.average"
    x = _tensor(a, name)
    if not _is_float(x):  # NumPy's average of integers and bools is f64 (a bool's f16 lost counts)
        x = ops.cast(x, "f64")
    axes = _axis(axis, name)
    if weights is None:
        avg = ops.reduce_mean(x, axes, keepdims=keepdims)
        if not returned:
            return avg
        count = builtins.float(np.prod([x.shape[i] for i in (axes or builtins.range(x.ndim))]))
        return avg, ops.constant(count, avg.dtype, list(avg.shape))
    w = _floating(_tensor(weights, name))
    common = promote_dtypes(x.dtype, w.dtype)
    if w.dtype != common:  # NumPy sums the weights in the result's dtype (f16 ones lost digits)
        w = ops.cast(w, common)
    if w.shape != x.shape:
        if axes is None or len(axes) != 1 or w.ndim != 1:
            raise located_error(None, f"{name}: weights of shape {w.shape} for an array of shape {x.shape} "
                                "need a single axis and a 1-d weights array")  # fmt: skip
        ax = _normalize_axis(axes[0], x.ndim, name)
        w = reshape(w, [-1 if i == ax else 1 for i in builtins.range(x.ndim)])
        w = broadcast_to(w, x.shape)
    total = ops.reduce_sum(w, axes, keepdims=keepdims)
    avg = ops.reduce_sum(x * w, axes, keepdims=keepdims) / total
    return (avg, total) if returned else avg


def ptp(a, axis=None, out=None, keepdims=False):
    _reject("numpy.ptp", out=(out, None))
    axes = _axis(axis, "numpy.ptp")
    return ops.reduce_max(a, axes, keepdims=keepdims) - reduce_min(a, axes, keepdims=keepdims)


def _atleast(rank: int, name: str):
    # NumPy's new axes: a vector is a row in 2-d and (1, N, 1) in 3-d; a matrix (M, N, 1)
    where = {1: {0: (1,)}, 2: {0: (1, 1), 1: (1, -1)}, 3: {0: (1, 1, 1), 1: (1, -1, 1)}}[rank]

    def atleast(*arys):
        out = []
        for a in arys:
            x = _tensor(a, name)
            if x.ndim < rank:
                x = reshape(x, where.get(x.ndim) or (*x.shape, 1))
            out.append(x)
        return out[0] if len(out) == 1 else out

    return atleast


def column_stack(tup):
    return concatenate([reshape(p, (-1, 1)) if getattr(p, "ndim", np.ndim(p)) < 2 else p for p in tup], 1)


def dstack(tup):
    return concatenate([_atleast(3, "numpy.dstack")(p) for p in tup], 2)


def split(ary, indices_or_sections, axis=0):
    """Slices along `axis`: equal sections (which must divide the extent) or the parts
    between the given indices."""
    return _split(ary, indices_or_sections, axis, "numpy.split", exact=True)


def array_split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, "numpy.array_split", exact=False)


def _split(ary, sections, axis, func_name: str, exact: bool):
    x = _tensor(ary, func_name)
    ax = _normalize_axis(axis, x.ndim, func_name)
    n = x.shape[ax]
    if n is None:
        raise located_error(None, f"{func_name}: axis {ax} has a dynamic extent")
    if np.ndim(sections) == 0 and not isinstance(sections, Tensor):
        # a number of sections as NumPy takes one (len() fails): a 0-d array, or a float
        # with an integer value (np.split(x, 2.0)); iterating either raised a raw TypeError
        number = isinstance(sections, numbers.Real) or (
            isinstance(sections, np.ndarray | np.generic) and sections.dtype.kind in "biuf")
        k = float(sections) if number else None
        if k is None or not k.is_integer():
            raise located_error(None, f"{func_name}: the number of sections must be an integer, got "
                                f"{type(sections).__name__} {sections!r:.40}")
        sections = int(k)
    if isinstance(sections, numbers.Integral):
        k = int(sections)
        if k <= 0:
            raise located_error(None, f"{func_name}: number of sections must be > 0, got {k}")
        if k > max(n, 1 << 20):  # every section is a slice op; 2**70 raised a raw OverflowError
            raise located_error(None, f"{func_name}: {k} sections of an axis of extent {n} is too many")
        if exact and n % k:
            raise located_error(
                None, f"{func_name}: {k} sections do not divide axis {ax} of extent {n} equally"
            )
        base, extra = divmod(n, k)
        sizes = [base + 1] * extra + [base] * (k - extra)
        cuts = list(np.cumsum(sizes)[:-1])
    else:
        cuts = [_index(c, "a split index", func_name) for c in sections]
    bounds = [0, *cuts, n]
    parts = []
    made: dict[tuple[int, int], Tensor] = {}  # one tensor per distinct part
    for a, b in zip(bounds[:-1], bounds[1:]):
        a, b, _ = builtins.slice(a, b).indices(n)
        key = (a, b) if a < b else (0, 0)
        if key not in made:
            # sections past the extent are all empty: 10**6 of them traced 10**6 slices
            # (~12 minutes); the same empty part is returned for each, as it is immutable
            made[key] = getitem(x, (builtins.slice(None),) * ax + (builtins.slice(*key),))
        parts.append(made[key])
    return parts


# --- the dispatch tables -----------------------------------------------------------------------


def where(condition, x=_NO, y=_NO):
    if x is _NO or y is _NO:
        no_meaning("numpy.where with one argument (data-dependent shape)")
    return ops.where(condition, x, y)


def _triangle(m, k, lower: bool, func_name: str):
    x = _tensor(m, func_name)
    if x.ndim < 2 or None in x.shape[-2:]:
        raise located_error(None, f"{func_name}: needs a matrix with static trailing extents")
    rows, cols = x.shape[-2:]
    row = ops.iota([rows, cols], 0)
    col = ops.iota([rows, cols], 1)
    # a diagonal past either edge keeps (or drops) all as the edge does; clamping keeps
    # NumPy's unbounded k out of the i32 index arithmetic
    k = max(-rows, min(cols, _index(k, "k", func_name)))
    shifted = row + k
    keep = shifted >= col if lower else shifted <= col
    # a bool matrix stays bool (a weak 0 made it i32: ~np.tril(mask) was -1 - x)
    return ops.where(keep, x, False if x.dtype == "i1" else 0)


def tril(m, k=0):
    """Zero above the k-th diagonal, as an iota comparison and a select."""
    return _triangle(m, k, True, "numpy.tril")


def triu(m, k=0):
    """Zero below the k-th diagonal, as an iota comparison and a select."""
    return _triangle(m, k, False, "numpy.triu")


def _positive(x):
    if isinstance(x, Tensor) and x.dtype == "i1":  # NumPy has no positive of bools
        raise located_error(None, "numpy.positive (+x) of a bool tensor is not defined (nor in NumPy)")
    return x


# NumPy's float loop for a float-only ufunc of an integer or bool input: the smallest
# float that holds the input's values (bool and 8-bit ints f16, 16-bit f32, wider f64)
_FLOAT_OF = {"i1": "f16", "i8": "f16", "ui8": "f16", "i16": "f32", "ui16": "f32",
             "i32": "f64", "i64": "f64"}  # fmt: skip


def _floating(x: Any) -> Any:
    """`x` as the float type a float-only NumPy ufunc computes it in (a weak integer:
    f32, JAX's default float)."""
    if isinstance(x, Tensor) and not ops._is_float(x.dtype):
        return ops.cast(x, "f32" if x.weak else _FLOAT_OF.get(x.dtype, "f64"))
    return x


def _float_ufunc(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A float-only ufunc (sin, log1p, arctan2, ...): integer inputs as NumPy casts them."""
    def ufunc(*xs):
        return op(*(_floating(x) for x in xs))

    ufunc.__name__ = op.__name__
    return ufunc


def _half_in_f32(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A ufunc composed of several operations (logaddexp, hypot, deg2rad, ...) on f16 or
    bf16 computed in f32 and rounded once, as NumPy's half loops are: each step rounded
    to f16/bf16 was off by an ulp or more (hypot of bf16 -2.53, 6.28 was 6.4375, 6.46875)."""
    def ufunc(*xs):
        xs = tuple(_floating(x) for x in xs)
        half = {x.dtype for x in xs if isinstance(x, Tensor) and not x.weak}
        if len(half) != 1 or not half <= {"f16", "bf16"}:
            return op(*xs)
        wide = (ops.cast(x, "f32") if isinstance(x, Tensor) and not x.weak else x for x in xs)
        return ops.cast(op(*wide), half.pop())

    ufunc.__name__ = op.__name__
    return ufunc


def _fabs(x):
    """numpy.fabs: the absolute value as a float (of an integer: in NumPy's float for
    it); abs of an i32 INT_MIN wrapped to INT_MIN where NumPy gives 2**31."""
    return ops.abs(_floating(x))


def _is_float(x: Any) -> bool:
    return isinstance(x, Tensor) and ops._is_float(x.dtype)


def _rounding(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """floor, ceil, trunc: integers (and bools) are already integral, as in NumPy."""
    def ufunc(x):
        return op(x) if _is_float(x) else x

    ufunc.__name__ = op.__name__
    return ufunc


def _sign(x):
    """-1, 0 or 1 in x's dtype; NaN stays NaN, a zero of either sign is +0 (NumPy's)."""
    if isinstance(x, Tensor) and x.dtype == "i1":
        raise located_error(None, "numpy.sign of a bool tensor is not defined (nor in NumPy)")
    if not _is_float(x):
        return ops.cast(ops.where(x > 0, 1, ops.where(x < 0, -1, 0)), x.dtype)
    return ops.where(x > 0, 1.0, ops.where(x < 0, -1.0, ops.where(x != x, x, 0.0)))


def _isnan(x):
    return x != x  # false for integers


def _isinf(x):
    return ops.abs(x) == np.inf if _is_float(x) else x != x


def _isfinite(x):
    return ops.abs(x) < np.inf if _is_float(x) else x == x  # NaN: an ordered < is false


def _signbit(x):
    return ops.copysign(1.0, x) < 0 if _is_float(x) else x < 0


def _reciprocal(x):
    if not _is_float(x):
        raise located_error(None, "numpy.reciprocal of an integer tensor (integer 1 / x) is not "
                            "supported; divide a float 1.0 by it")  # fmt: skip
    return 1.0 / x


def _logaddexp(x, y):
    """log(e^x + e^y) without overflow; equal operands (infinities included) give
    x + log 2, where the difference would be NaN."""
    x, y = _floating(x), _floating(y)
    m = ops.maximum(x, y)  # in the common dtype: x + log 2 was in x's (a bool's f16 beside f32)
    return ops.where(x == y, m + np.log(2.0), m + ops.log1p(ops.exp(-ops.abs(x - y))))


def _logaddexp2(x, y):
    x, y = _floating(x), _floating(y)
    m = ops.maximum(x, y)
    return ops.where(x == y, m + 1.0, m + ops.log1p(ops.exp2(-ops.abs(x - y))) / np.log(2.0))


def _hypot(x, y):
    """sqrt(x^2 + y^2) scaled by the larger magnitude (x^2 overflows f32 past 1.8e19);
    an infinite operand gives inf even beside a NaN, as C's hypot."""
    a, b = ops.abs(_floating(x)), ops.abs(_floating(y))
    m, n = ops.maximum(a, b), ops.minimum(a, b)
    r = n / ops.where(m == 0, 1.0, m)
    h = m * ops.sqrt(1.0 + r * r)
    return ops.where((a == np.inf) | (b == np.inf), np.inf, h)


def _fmax(x, y):
    """The larger, ignoring a NaN unless both are (numpy.fmax)."""
    if not (_is_float(x) or _is_float(y)):
        return ops.maximum(x, y)
    return ops.where(y != y, x, ops.where(x != x, y, ops.maximum(x, y)))


def _fmin(x, y):
    if not (_is_float(x) or _is_float(y)):
        return ops.minimum(x, y)
    return ops.where(y != y, x, ops.where(x != x, y, ops.minimum(x, y)))


def _heaviside(x, h0):
    x, h0 = _floating(x), _floating(h0)  # a bool or integer h0 as NumPy's float for it
    return ops.where(x != x, x, ops.where(x < 0, 0.0, ops.where(x > 0, 1.0, h0)))


def _conjugate(x):
    if isinstance(x, Tensor) and x.dtype == "i1":  # NumPy's is an int8 of it
        raise located_error(None, "numpy.conjugate of a bool tensor is not supported; cast it first")
    return x  # of a real tensor


def _float_power(x, y):
    def f64(v):  # a closed-over array beside the tensor as f64 too (float() of it raised raw)
        if isinstance(v, Tensor):
            return ops.cast(v, "f64")
        return np.asarray(v, np.float64) if np.ndim(v) else float(v)

    return ops.pow(f64(x), f64(y))


def _square(x):
    if isinstance(x, Tensor) and x.dtype == "i1":
        x = ops.cast(x, "i32")  # NumPy squares bools as integers (int8), x * x would be `and`
    return ops.mul(x, x)


UFUNCS: dict[str, Callable[..., Tensor]] = {
    "add": ops.add,
    "subtract": ops.sub,
    "multiply": ops.mul,
    "divide": ops.true_divide,
    "true_divide": ops.true_divide,
    "power": ops.pow,
    "maximum": ops.maximum,
    "minimum": ops.minimum,
    "matmul": ops.matmul,
    "negative": ops.neg,
    "positive": _positive,
    "square": _square,
    "exp": _float_ufunc(ops.exp),
    "log": _float_ufunc(ops.log),
    "sin": _float_ufunc(ops.sin),
    "cos": _float_ufunc(ops.cos),
    "tanh": _float_ufunc(ops.tanh),
    "sqrt": _float_ufunc(ops.sqrt),
    "log1p": _float_ufunc(ops.log1p),
    "expm1": _float_ufunc(ops.expm1),
    "log2": _float_ufunc(ops.log2),
    "log10": _float_ufunc(ops.log10),
    "exp2": _float_ufunc(ops.exp2),
    "tan": _float_ufunc(ops.tan),
    "arcsin": _float_ufunc(ops.asin),
    "arccos": _float_ufunc(ops.acos),
    "arctan": _float_ufunc(ops.atan),
    "sinh": _float_ufunc(ops.sinh),
    "cosh": _float_ufunc(ops.cosh),
    "arcsinh": _float_ufunc(ops.asinh),
    "arccosh": _float_ufunc(ops.acosh),
    "arctanh": _float_ufunc(ops.atanh),
    "cbrt": _float_ufunc(ops.cbrt),
    "rint": _float_ufunc(ops.round),
    "arctan2": _float_ufunc(ops.atan2),
    "copysign": _float_ufunc(ops.copysign),
    "deg2rad": _half_in_f32(lambda x: x * (np.pi / 180)),
    "radians": _half_in_f32(lambda x: x * (np.pi / 180)),
    "rad2deg": _half_in_f32(lambda x: x * (180 / np.pi)),
    "degrees": _half_in_f32(lambda x: x * (180 / np.pi)),
    "floor": _rounding(ops.floor),
    "ceil": _rounding(ops.ceil),
    "trunc": _rounding(ops.trunc),
    "sign": _sign,
    "isnan": _isnan,
    "isinf": _isinf,
    "isfinite": _isfinite,
    "signbit": _signbit,
    "reciprocal": _reciprocal,
    "logaddexp": _half_in_f32(_logaddexp),
    "logaddexp2": _half_in_f32(_logaddexp2),
    "hypot": _half_in_f32(_hypot),
    "fmax": _fmax,
    "fmin": _fmin,
    "heaviside": _heaviside,
    "float_power": _float_power,
    "conjugate": _conjugate,
    "absolute": ops.abs,
    "fabs": _fabs,
}
"""NumPy ufunc name -> its meaning on traced tensors (called with the ufunc's inputs)."""

UFUNC_REDUCE: dict[str, Callable[..., Tensor]] = {
    "add": _sum,
    "maximum": ops.reduce_max,
    "minimum": reduce_min,
}
"""`np.<ufunc>.reduce(x, axis, keepdims=...)`."""

UFUNCS.update(
    {
        "equal": ops.equal,
        "not_equal": ops.not_equal,
        "less": ops.less,
        "less_equal": ops.less_equal,
        "greater": ops.greater,
        "greater_equal": ops.greater_equal,
        "erf": _float_ufunc(ops.erf),  # scipy.special.erf
        "floor_divide": ops.floor_divide,
        "remainder": ops.remainder,  # numpy.mod
        "divmod": ops.divmod,
        "fmod": ops.fmod,
        "bitwise_and": ops.bitwise_and,
        "bitwise_or": ops.bitwise_or,
        "bitwise_xor": ops.bitwise_xor,
        "invert": ops.invert,  # numpy.bitwise_not
        "left_shift": ops.left_shift,
        "right_shift": ops.right_shift,
        "logical_and": ops.logical_and,
        "logical_or": ops.logical_or,
        "logical_xor": ops.logical_xor,
        "logical_not": ops.logical_not,
    }
)

NOT_YET_UFUNCS: dict[str, str] = {}
"""ufunc name -> the operator it waits for."""

FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.sum: sum_,
    np.prod: prod,
    np.cumsum: cumsum,
    np.cumprod: cumprod,
    np.max: max_,
    np.amax: max_,
    np.min: min_,
    np.amin: min_,
    np.mean: mean,
    np.var: var,
    np.std: std,
    np.linalg.norm: norm,
    np.any: any_,
    np.all: all_,
    np.count_nonzero: count_nonzero,
    np.round: round_,
    np.around: round_,
    np.fix: fix,
    np.nan_to_num: nan_to_num,
    np.isclose: isclose,
    np.outer: outer,
    np.take_along_axis: lambda arr, indices, axis=-1: ops.take_along_axis(
        arr if axis is not None else ravel(arr), indices, 0 if axis is None else axis),
    np.flip: flip,
    np.flipud: lambda m: flip(m, 0),
    np.fliplr: lambda m: flip(m, 1),
    np.roll: roll,
    np.tile: tile,
    np.repeat: repeat,
    np.pad: pad,
    np.diff: diff,
    np.diagonal: diagonal,
    np.diag: diag,
    np.trace: trace,
    np.tensordot: tensordot,
    np.inner: inner,
    np.average: average,
    np.ptp: ptp,
    np.copy: lambda a, order="K", subok=False: _tensor(a, "numpy.copy"),
    np.atleast_1d: _atleast(1, "numpy.atleast_1d"),
    np.atleast_2d: _atleast(2, "numpy.atleast_2d"),
    np.atleast_3d: _atleast(3, "numpy.atleast_3d"),
    np.column_stack: column_stack,
    np.dstack: dstack,
    np.reshape: reshape,
    np.transpose: transpose,
    np.swapaxes: swapaxes,
    np.moveaxis: moveaxis,
    np.expand_dims: expand_dims,
    np.squeeze: squeeze,
    np.ravel: ravel,
    np.broadcast_to: broadcast_to,
    np.clip: clip,
    np.dot: dot,
    np.einsum: einsum,
    np.zeros_like: zeros_like,
    np.ones_like: ones_like,
    np.full_like: _full_like,
    np.shape: lambda a: a.shape,
    np.ndim: lambda a: a.ndim,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
}
"""NumPy function -> its meaning on traced tensors (called with the user's arguments)."""
if hasattr(np, "astype"):  # NumPy 2
    FUNCTIONS[np.astype] = astype
FUNCTIONS[np.where] = where


def argmax(a, axis=None, out=None, *, keepdims=False):
    _reject("numpy.argmax", out=(out, None))
    return ops.argmax(a, axis, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    _reject("numpy.argmin", out=(out, None))
    return ops.argmin(a, axis, keepdims)


FUNCTIONS[np.argmax] = argmax
FUNCTIONS[np.argmin] = argmin
FUNCTIONS[np.concatenate] = concatenate
FUNCTIONS[np.stack] = stack
FUNCTIONS[np.hstack] = hstack
FUNCTIONS[np.vstack] = vstack
FUNCTIONS[np.split] = split
FUNCTIONS[np.array_split] = array_split
FUNCTIONS[np.tril] = tril
FUNCTIONS[np.triu] = triu

FUNCTIONS[np.take] = take


NOT_YET: dict[Callable[..., Any], str] = {}
"""NumPy function -> the operator it waits for."""


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Tensor:
    name = ufunc.__name__
    if method == "reduce" and name in UFUNC_REDUCE:
        (x, *rest) = inputs
        if len(rest) > 1:
            no_meaning(f"numpy.{name}.reduce with arguments past axis")
        axis = rest[0] if rest else kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        _reject(f"numpy.{name}.reduce", **{k: (v, None) for k, v in kwargs.items()})
        return UFUNC_REDUCE[name](x, _axis(axis, f"numpy.{name}.reduce"), keepdims=keepdims)
    if method != "__call__":
        no_meaning(f"numpy.{name}.{method}")
    if name in NOT_YET_UFUNCS:
        not_yet(f"numpy.{name}", NOT_YET_UFUNCS[name])
    impl = UFUNCS.get(name)
    if impl is None:
        no_meaning(f"numpy.{name}")
    for key, value in kwargs.items():
        default = True if key == "where" else None
        if key in ("casting", "order", "subok") or value is default:
            continue
        raise located_error(None, f"numpy.{name}: {key}={value!r} is not supported")
    if kwargs.get("casting", "same_kind") != "same_kind" or kwargs.get("order", "K") != "K":
        _check_casting(ufunc, inputs, kwargs)
    return impl(*inputs)


def _check_casting(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> None:
    """NumPy's verdict on `casting=` / `order=` for inputs of these dtypes (the ufunc
    called on empty arrays of them; a weak tensor as a Python scalar of its kind):
    casting='no' of an int32 and a float, a misspelt casting or order were ignored."""
    def dummy(v: Any) -> Any:
        if not isinstance(v, Tensor):
            return np.empty((0,), v.dtype) if isinstance(v, np.ndarray) else v
        if v.weak:
            return {"f": 0.0, "b": False}.get(v.dtype.kind, 0)
        return np.empty((0,), v.dtype.dtype)

    options = {k: kwargs[k] for k in ("casting", "order") if k in kwargs}
    try:
        dummies = [dummy(v) for v in inputs]
    except Exception:  # noqa: BLE001 - a dtype NumPy lacks (bf16 without ml_dtypes): ops decide
        return
    try:
        with np.errstate(all="ignore"):
            ufunc(*dummies, **options)
    except (TypeError, ValueError) as e:
        raise located_error(None, f"numpy.{ufunc.__name__}: {e}") from None


def array_function(func: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    impl = FUNCTIONS.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    if func in NOT_YET:
        not_yet(_name(func), NOT_YET[func])
    no_meaning(_name(func))
