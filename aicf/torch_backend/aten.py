"""ATen operators (after torch's core-ATen decompositions) as aicf tensor ops: one
small function per operator, called on traced `aicf.frontend.Tensor`s with the FX
node's arguments (Python scalars and lists stay as they are). `ATEN` maps the
operator overload's name (`aten.addmm.default`) to it; what is not there is left
to torch.

Shapes are static: the partition is traced for the example inputs' shapes.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any


from aicf import ops
from aicf.errors import AicfError
from aicf.frontend.ops import _is_float
from aicf.frontend.tensor import Tensor

TORCH_DTYPES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.float64": "f64",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.bool": "i1",
}
"""torch dtypes aicf takes through DLPack (bf16 crosses it as uint16 bits only)."""


def dtype_name(dtype: Any) -> str | None:
    return TORCH_DTYPES.get(str(dtype))


def _dims(x: Tensor, dims: Any) -> list[int]:
    """The axes a reduction's `dims` name; none for a 0-d tensor, whose dim 0 or -1
    torch takes as the tensor itself."""
    if dims is None or x.ndim == 0:
        return list(builtins.range(x.ndim))
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [d % x.ndim for d in dims] or list(builtins.range(x.ndim))


def _shape(x: Tensor, size: Sequence[int]) -> list[int]:
    """A view's target size (one -1 allowed)."""
    return [int(s) for s in size]


def torch_cast(x: Tensor, name: str) -> Tensor:
    """`x` converted to `name` as torch converts: f64 to f16/bf16 through f32 (c10's
    Half and BFloat16 are made from a float; aicf's cast rounds once, as NumPy's, and
    2049.000000001 became 2050 where torch has 2048)."""
    if x.dtype == "f64" and name in ("f16", "bf16"):
        x = ops.cast(x, "f32")
    return ops.cast(x, name)


def _to_dtype(x: Any, dtype: Any) -> Any:
    name = dtype_name(dtype) if dtype is not None else None
    if name is None or not isinstance(x, Tensor) or x.dtype == name:
        return x
    return torch_cast(x, name)


def _full(size, value, *, dtype=None, **_) -> Tensor:
    name = dtype_name(dtype) if dtype is not None else ("f32" if isinstance(value, float) else "i64")
    return ops.constant(value, name, [int(s) for s in size])


def _arange(start, end=None, step=1, *, dtype=None, **_) -> Tensor:
    """start + i * step as torch's kernel computes it for floats: in f64 for f32 and
    f64 (its accumulate type), in f32 for f16/bf16, rounded once (computed in the
    result's type, arange(0, 100, 0.1) was an ulp off at a third of its elements)."""
    if end is None:
        start, end = 0, start
    n = max(0, math.ceil((end - start) / step))
    is_int = all(isinstance(v, int) for v in (start, end, step))
    name = dtype_name(dtype) if dtype is not None else ("i64" if is_int else "f32")
    compute = {"f32": "f64", "f16": "f32", "bf16": "f32"}.get(name, name)
    index = ops.iota([n], 0, compute)
    if step != 1:
        index = index * step
    index = index + start if start else index
    return ops.cast(index, name) if compute != name else index


def _addmm(bias, a, b, *, beta=1, alpha=1) -> Tensor:
    prod = ops.matmul(a, b)
    prod = prod * alpha if alpha != 1 else prod
    if beta == 0:  # torch ignores the bias then: its NaN and inf do not propagate
        return prod
    return prod + (bias * beta if beta != 1 else bias)


def _expand(x: Tensor, size, *, implicit=False) -> Tensor:
    lead = len(size) - x.ndim
    target = [x.shape[i - lead] if int(s) == -1 else int(s) for i, s in enumerate(size)]
    return ops.broadcast_to(x, target)


def _split(x: Tensor, sizes: Sequence[int], dim: int) -> list[Tensor]:
    dim %= x.ndim
    out, start = [], 0
    for s in sizes:
        index = [builtins.slice(None)] * x.ndim
        index[dim] = builtins.slice(start, start + s)
        out.append(x[tuple(index)])
        start += s
    return out


def _split_tensor(x: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    n = x.shape[dim % x.ndim]
    return _split(x, [min(split_size, n - k) for k in builtins.range(0, n, split_size)], dim)


def _index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """A 0-d index selects as a 1-element one: torch keeps the dim (size 1)."""
    return ops.take(x, ops.reshape(index, [1]) if index.ndim == 0 else index, dim)


def _slice(x: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    index = [builtins.slice(None)] * x.ndim
    n = x.shape[dim % x.ndim]
    index[dim % x.ndim] = builtins.slice(start, None if end is None or end >= n else end, step)
    return x[tuple(index)]


def _select(x: Tensor, dim: int, index: int) -> Tensor:
    key = [builtins.slice(None)] * x.ndim
    key[dim % x.ndim] = index
    return x[tuple(key)]


def _transpose(x: Tensor, a: int, b: int) -> Tensor:
    perm = list(builtins.range(x.ndim))
    perm[a % x.ndim], perm[b % x.ndim] = perm[b % x.ndim], perm[a % x.ndim]
    return ops.transpose(x, perm)


def _unsqueeze(x: Tensor, dim: int) -> Tensor:
    dim %= x.ndim + 1
    return ops.reshape(x, [*x.shape[:dim], 1, *x.shape[dim:]])


def _squeeze(x: Tensor, dims=None) -> Tensor:
    drop = set(_dims(x, dims))
    return ops.reshape(x, [s for i, s in enumerate(x.shape) if not (i in drop and s == 1)])


def _half_to_float(x: Tensor, half_to_float: bool) -> Tensor:
    """The input of a softmax asked for in f32 of f16/bf16 (CUDA's F.softmax(x, dtype=
    torch.float32) is _softmax(x, dim, True)): computed in f16 and only then made f32,
    a log_softmax was 1e-2 off torch's."""
    return ops.cast(x, "f32") if half_to_float and x.dtype in ("f16", "bf16") else x


def _softmax(x: Tensor, dim: int, half_to_float: bool = False) -> Tensor:
    x = _half_to_float(x, half_to_float)
    e = ops.exp(x - ops.reduce_max(x, _dims(x, dim), keepdims=True))
    return e / ops.reduce_sum(e, _dims(x, dim), keepdims=True)


def _log_softmax(x: Tensor, dim: int, half_to_float: bool = False) -> Tensor:
    x = _half_to_float(x, half_to_float)
    shifted = x - ops.reduce_max(x, _dims(x, dim), keepdims=True)
    return shifted - ops.log(ops.reduce_sum(ops.exp(shifted), _dims(x, dim), keepdims=True))


def _layer_norm(x: Tensor, normalized_shape, weight, bias, eps: float):
    """In f32 for f16/bf16 input, as torch's kernel (its opmath): with the mean
    rounded to f16, x - mean lost the mean's rounding error (rows about 100 came out
    ~14 ulps off, where torch is within one)."""
    axes = list(builtins.range(x.ndim - len(normalized_shape), x.ndim))
    half = x.dtype in ("f16", "bf16")
    xf = ops.cast(x, "f32") if half else x
    mean = ops.reduce_mean(xf, axes, keepdims=True)
    rstd = ops.rsqrt(ops.reduce_var(xf, axes, keepdims=True) + eps)
    y = (xf - mean) * rstd
    if weight is not None:
        y = y * (ops.cast(weight, "f32") if half else weight)
    if bias is not None:
        y = y + (ops.cast(bias, "f32") if half else bias)
    return (ops.cast(y, x.dtype) if half else y), mean, rstd


def _var(x: Tensor, dims=None, *, correction=None, keepdim=False) -> Tensor:
    ddof = 1 if correction is None else correction
    if ddof != int(ddof):  # torch takes any real correction; int() truncated 0.5 to 0
        raise AicfError(f"var with a fractional correction ({correction})")
    return ops.reduce_var(x, _dims(x, dims), keepdims=keepdim, ddof=int(ddof))


def _var_mean(x: Tensor, dims=None, *, correction=None, keepdim=False):
    return _var(x, dims, correction=correction, keepdim=keepdim), ops.reduce_mean(x, _dims(x, dims), keepdims=keepdim)


def _reduction(op: Callable[..., Tensor]):
    def reduce(x: Tensor, dims=None, keepdim: bool = False, *, dtype=None) -> Tensor:
        return op(_to_dtype(x, dtype), _dims(x, dims), keepdims=keepdim)

    return reduce


def _accumulated(x: Any, dtype: Any) -> Any:
    """The dtype torch's sum, prod, cumsum and cumprod compute in: bools and int32 as
    int64 unless a dtype is given."""
    if dtype is None and isinstance(x, Tensor) and x.dtype in ("i1", "i32"):
        return "torch.int64"
    return dtype


def _widening(op: Callable[..., Tensor]):
    def reduce(x: Tensor, dims=None, keepdim: bool = False, *, dtype=None) -> Tensor:
        return _reduction(op)(x, dims, keepdim, dtype=_accumulated(x, dtype))

    return reduce


def _cumulative(op: Callable[..., Tensor], x: Tensor, dim: int, dtype=None) -> Tensor:
    x = _to_dtype(x, _accumulated(x, dtype))
    return ops.reshape(op(ops.reshape(x, [1]), 0), []) if x.ndim == 0 else op(x, dim)  # dim 0 of a 0-d tensor


_sum = _widening(ops.reduce_sum)
_prod = _widening(ops.reduce_prod)


def _any(x: Tensor, dims=None, keepdim: bool = False) -> Tensor:
    # nonzero first: a cast to i32 made 0.5 (and 2**32 of an i64) 0, so not any
    nonzero = x if x.dtype == "i1" else ops.not_equal(x, 0)
    hits = ops.reduce_max(ops.cast(nonzero, "i32"), _dims(x, dims), keepdims=keepdim)
    return ops.greater(hits, 0)


def _logical_not(x: Tensor) -> Tensor:
    return ops.equal(ops.cast(x, "i1") if x.dtype != "i1" else x, False)


def _logical_and(a: Tensor, b: Tensor) -> Tensor:
    return ops.where(a, ops.not_equal(b, False) if b.dtype == "i1" else ops.not_equal(b, 0), False)


def _logical_or(a: Tensor, b: Tensor) -> Tensor:
    return ops.where(a, True, ops.not_equal(b, False) if b.dtype == "i1" else ops.not_equal(b, 0))


def _clamp(x: Tensor, min=None, max=None) -> Tensor:
    """x where it equals a bound, as torch (clamp(-0.0, 0.0) is -0.0; see _first_on_ties)."""
    if min is not None:
        x = ops.maximum(min, x)
    if max is not None:
        x = ops.minimum(max, x)
    return x


def _first_on_ties(op: Callable[[Any, Any], Tensor]):
    """torch.maximum/minimum: the first operand where the two compare equal (-0.0 and
    0.0), where aicf's (NumPy's) give the second: maximum(-0.0, 0.0) was 0.0, not -0.0."""
    return lambda a, b: op(b, a)


def _binary(op: Callable[[Any, Any], Tensor], alpha_applies: bool = False):
    def apply(a, b, *, alpha=1) -> Tensor:
        return op(a, b * alpha if alpha_applies and alpha != 1 else b)

    return apply


def _opmath(op: Callable[[Any, Any], Tensor]):
    """torch's mul and div of an f16/bf16 tensor by a Python number: the number stays
    f32 and the product is rounded once (x * 1e5 is 19360 for x = 0.19; with the number
    rounded to f16 first it was inf, and x * 1e-8 was 0)."""

    def as_f32(v: Any, other: Any) -> Any:
        if (isinstance(v, int | float) and not isinstance(v, bool) and isinstance(other, Tensor)
                and other.dtype in ("f16", "bf16")):  # fmt: skip
            return ops.constant(float(v), "f32")
        return v

    def apply(a, b) -> Tensor:
        return op(as_f32(a, b), as_f32(b, a))

    return apply


def _float(op: Callable[..., Tensor]):
    """A float-only op (log1p, atan2, ...): integer and bool tensors in torch's default
    float, f32, as torch promotes them."""
    def cast(v: Any) -> Any:
        if isinstance(v, Tensor) and not _is_float(v.dtype):
            return ops.cast(v, "f32")
        return v

    return lambda *xs: op(*(cast(x) for x in xs))


def _integral(op: Callable[[Tensor], Tensor]):
    """floor/ceil/trunc/round: integer tensors unchanged, as torch returns them."""
    return lambda x: op(x) if _is_float(x.dtype) else x


def _round(x: Tensor, *, decimals: int = 0) -> Tensor:
    """torch.round: ties to even; with decimals as torch's kernel scales: in f32 for
    f16/bf16 (its opmath), by 10**decimals, and for negative decimals divided by
    10**-decimals (x * 1e5 overflowed f16 to inf, and x * 10.0**-3 made 1234.5678
    999.99994 where torch has 1000)."""
    if not _is_float(x.dtype):
        return x
    if decimals == 0:
        return ops.round(x)
    half = x.dtype in ("f16", "bf16")
    xf = ops.cast(x, "f32") if half else x
    scale = ops.constant(10.0 ** abs(decimals), xf.dtype)
    y = ops.round(xf * scale) / scale if decimals > 0 else ops.round(xf / scale) * scale
    return ops.cast(y, x.dtype) if half else y


def _sign(x: Tensor) -> Tensor:
    """torch.sign: (0 < x) - (x < 0), so NaN gives 0 (not NumPy's NaN) and -0.0 gives +0.0."""
    if x.dtype == "i1":
        return x
    if _is_float(x.dtype):
        return ops.where(x > 0, 1.0, ops.where(x < 0, -1.0, 0.0))
    return ops.cast(ops.where(x > 0, 1, ops.where(x < 0, -1, 0)), x.dtype)


def _gather(x: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """torch.gather: the index may be smaller than x in the other dims (no broadcasting):
    x is cut to its extents there first. A 0-d x (torch takes dim 0 or -1 of it) is
    gathered from as one element (aicf's take_along_axis has no axis on it: the
    partition was left to torch saying "axis 0 is out of range for rank 0")."""
    if x.ndim == 0:
        flat = ops.reshape(index, [math.prod(index.shape)])
        one = ops.take_along_axis(ops.reshape(x, [1]), flat, 0, "torch.gather")
        return ops.reshape(one, list(index.shape))
    dim %= max(x.ndim, 1)
    if index.ndim == x.ndim and None not in x.shape and None not in index.shape:
        cut = tuple(slice(0, index.shape[d]) if d != dim else slice(None) for d in range(x.ndim))
        if any(index.shape[d] > x.shape[d] for d in range(x.ndim) if d != dim):
            from aicf.frontend.tracer import located_error

            raise located_error("torch.gather", f"index of shape {tuple(index.shape)} is larger than "
                                f"the input {tuple(x.shape)} outside dim {dim}")  # fmt: skip
        x = x[cut]
    return ops.take_along_axis(x, index, dim, "torch.gather")


def _on_bools(op: Callable[..., Tensor], logical: Callable[[Any, Any], Tensor]):
    """torch's add, mul, maximum and minimum of bools (tensors or Python bools): the
    logical or / and, a bool (aicf has no arithmetic on i1: x.isinf(), whose
    decomposition multiplies bools, and mask_a + mask_b left their partition to torch)."""

    def is_bool(v: Any) -> bool:
        return isinstance(v, bool) or (isinstance(v, Tensor) and v.dtype == "i1")

    def apply(a, b, **keywords) -> Tensor:
        return logical(a, b) if is_bool(a) and is_bool(b) else op(a, b, **keywords)

    return apply


def _is_floating(v: Any) -> bool:
    return isinstance(v, float) or (isinstance(v, Tensor) and _is_float(v.dtype))


def _remainder(a: Any, b: Any) -> Tensor:
    """torch.remainder: of floats fmod moved into b's sign where it differs (a zero
    keeps fmod's sign, where NumPy's takes b's); of integers Python's %."""
    if not (_is_floating(a) or _is_floating(b)):
        return ops.remainder(a, b)
    mod = ops.fmod(a, b)
    fix = ops.where(mod != 0, (b < 0) != (mod < 0), False)
    return ops.where(fix, mod + b, mod)


def _div_mode(a: Any, b: Any, *, rounding_mode: str | None = None) -> Tensor:
    """torch.div with rounding_mode: 'trunc' rounds the true quotient toward zero (of
    integers C's division), 'floor' toward -inf (of floats from fmod, as Python's //)."""
    if rounding_mode is None:
        return ops.true_divide(a, b)
    if rounding_mode == "floor":
        return ops.floor_divide(a, b)
    if rounding_mode == "trunc":
        if _is_floating(a) or _is_floating(b):
            return ops.trunc(ops.true_divide(a, b))
        return ops.div(a, b)
    from aicf.frontend.tracer import located_error

    raise located_error("torch.div", f"rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")


def _cat(xs: Sequence[Tensor], dim: int = 0) -> Tensor:
    return ops.concatenate([x for x in xs if 0 not in x.shape] or xs[:1], dim)


def _pow_scalar(x: Any, exponent: Any) -> Tensor:
    """torch.pow(tensor, number): for f32/f64 torch's kernel (cpu and cuda) takes these
    exponents as other ops: x * x, x * x * x, sqrt, rsqrt, 1 / x, 1 / (x * x). C's pow
    differed at the edges ((-0.0) ** -0.5 was inf, not -inf; (-inf) ** -0.5 0, not
    NaN) and by an ulp elsewhere (x ** 3, x ** -0.5)."""
    if isinstance(x, Tensor) and x.dtype in ("f32", "f64") and isinstance(exponent, int | float):
        special = {2: lambda: x * x, 3: lambda: x * x * x, 0.5: lambda: ops.sqrt(x),
                   -0.5: lambda: ops.rsqrt(x), -1: lambda: 1.0 / x, -2: lambda: 1.0 / (x * x)}  # fmt: skip
        if exponent in special:
            return special[exponent]()
    return ops.pow(x, exponent)


def _gelu(x: Tensor, *, approximate: str = "none") -> Tensor:
    return ops.gelu(x, approximate=approximate)


def _attention(q: Tensor, k: Tensor, v: Tensor, mask: Any, dropout_p: float, is_causal: bool,
               scale: float | None) -> Tensor:
    """scaled_dot_product_attention as one aicf_tensor.attention (its semantics are
    torch's: a bool mask keeps where true, a float mask adds, a row masked out
    entirely gives 0)."""
    if dropout_p:
        raise AicfError(f"attention with dropout_p={dropout_p} (inference only)")
    if mask is not None and not isinstance(mask, Tensor):
        raise AicfError(f"attention with an attn_mask of type {type(mask).__name__}")
    return ops.attention(q, k, v, mask, scale=scale, causal=is_causal)


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if enable_gqa:
        raise AicfError("attention with enable_gqa")
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale)


def _flash(query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None):
    """The flash kernel's op: the output, then what only its backward reads (left
    unset: a graph that reads them does not compile, and runs in torch)."""
    return (_attention(query, key, value, None, dropout_p, is_causal, scale), *[None] * 8)


def _efficient(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale=None):
    return (_attention(query, key, value, attn_bias, dropout_p, is_causal, scale), *[None] * 3)


def _cudnn(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False,
           return_debug_mask=False, *, scale=None):
    return (_attention(query, key, value, attn_bias, dropout_p, is_causal, scale), *[None] * 8)


def _flash_cpu(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale), None


ATEN: dict[str, Callable[..., Any]] = {
    # layout
    "aten.view.default": lambda x, size: ops.reshape(x, _shape(x, size)),
    "aten._unsafe_view.default": lambda x, size: ops.reshape(x, _shape(x, size)),
    "aten.reshape.default": lambda x, size: ops.reshape(x, _shape(x, size)),
    "aten.permute.default": lambda x, dims: ops.transpose(x, [d % x.ndim for d in dims]),
    "aten.t.default": lambda x: ops.transpose(x, list(reversed(builtins.range(x.ndim)))),
    "aten.transpose.int": _transpose,
    "aten.expand.default": _expand,
    "aten.clone.default": lambda x, *, memory_format=None: x,
    "aten.alias.default": lambda x: x,
    "aten.contiguous.default": lambda x, *a, **k: x,
    "aten.unsqueeze.default": _unsqueeze,
    "aten.squeeze.dim": _squeeze,
    "aten.squeeze.dims": _squeeze,
    "aten.squeeze.default": _squeeze,
    "aten.slice.Tensor": _slice,
    "aten.select.int": _select,
    "aten.split_with_sizes.default": lambda x, sizes, dim=0: _split(x, sizes, dim),
    "aten.split.Tensor": _split_tensor,
    "aten.cat.default": _cat,
    "aten.embedding.default": lambda weight, indices, *a, **k: ops.take(weight, indices, 0),
    "aten.index_select.default": _index_select,
    "aten.gather.default": _gather,
    "aten.flip.default": lambda x, dims: x[tuple(
        slice(None, None, -1) if d in [v % max(x.ndim, 1) for v in dims] else slice(None)
        for d in range(x.ndim))],
    "aten.lift_fresh_copy.default": lambda x: x,  # a tensor constant's copy: values are immutable
    # contractions
    "aten.mm.default": ops.matmul,
    "aten.bmm.default": ops.matmul,
    "aten.addmm.default": _addmm,
    # elementwise
    "aten.add.Tensor": _on_bools(_binary(ops.add, alpha_applies=True), ops.logical_or),
    "aten.add.Scalar": _on_bools(_binary(ops.add, alpha_applies=True), ops.logical_or),
    "aten.sub.Tensor": _binary(ops.sub, alpha_applies=True),
    "aten.sub.Scalar": _binary(ops.sub, alpha_applies=True),
    "aten.rsub.Scalar": lambda a, b, *, alpha=1: ops.sub(b, a * alpha if alpha != 1 else a),
    "aten.mul.Tensor": _on_bools(_opmath(ops.mul), ops.logical_and),
    "aten.mul.Scalar": _on_bools(_opmath(ops.mul), ops.logical_and),
    "aten.div.Tensor": _opmath(ops.true_divide),  # torch.div without rounding_mode divides truly
    "aten.div.Scalar": _opmath(ops.true_divide),
    "aten.div.Tensor_mode": _div_mode,
    "aten.div.Scalar_mode": _div_mode,
    "aten.floor_divide.default": ops.floor_divide,
    "aten.remainder.Tensor": _remainder,
    "aten.remainder.Scalar": _remainder,
    "aten.fmod.Tensor": ops.fmod,
    "aten.fmod.Scalar": ops.fmod,
    "aten.pow.Tensor_Scalar": _pow_scalar,
    "aten.pow.Tensor_Tensor": ops.pow,
    "aten.pow.Scalar": ops.pow,  # base ** tensor (rotary embeddings' 10000 ** (arange / dim))
    "aten.maximum.default": _on_bools(_first_on_ties(ops.maximum), ops.logical_or),
    "aten.minimum.default": _on_bools(_first_on_ties(ops.minimum), ops.logical_and),
    "aten.clamp.default": _clamp,
    "aten.neg.default": ops.neg,
    "aten.exp.default": _float(ops.exp),
    "aten.log.default": _float(ops.log),
    "aten.sin.default": _float(ops.sin),
    "aten.cos.default": _float(ops.cos),
    "aten.tanh.default": _float(ops.tanh),
    "aten.sqrt.default": _float(ops.sqrt),
    "aten.rsqrt.default": _float(ops.rsqrt),
    "aten.abs.default": ops.abs,
    "aten.erf.default": _float(ops.erf),
    **{f"aten.{n}.default": _float(getattr(ops, o)) for n, o in (
        ("log1p", "log1p"), ("expm1", "expm1"), ("log2", "log2"), ("log10", "log10"),
        ("exp2", "exp2"), ("tan", "tan"), ("asin", "asin"), ("acos", "acos"), ("atan", "atan"),
        ("sinh", "sinh"), ("cosh", "cosh"), ("asinh", "asinh"), ("acosh", "acosh"),
        ("atanh", "atanh"), ("atan2", "atan2"), ("copysign", "copysign"))},
    "aten.copysign.Tensor": _float(ops.copysign),
    "aten.floor.default": _integral(ops.floor),
    "aten.ceil.default": _integral(ops.ceil),
    "aten.trunc.default": _integral(ops.trunc),
    "aten.round.default": _round,
    "aten.round.decimals": _round,
    "aten.sign.default": _sign,
    "aten.isnan.default": lambda x: x != x,
    "aten.reciprocal.default": _float(lambda x: 1.0 / x),
    "aten.sigmoid.default": _float(ops.sigmoid),
    "aten.relu.default": lambda x: _first_on_ties(ops.maximum)(x, 0),  # relu(-0.0) is -0.0
    "aten.hardtanh.default": lambda x, min_val=-1.0, max_val=1.0: _clamp(x, min_val, max_val),  # torch's clamp
    "aten.gelu.default": _gelu,
    "aten.where.self": ops.where,
    "aten.eq.Scalar": ops.equal,
    "aten.eq.Tensor": ops.equal,
    "aten.ne.Scalar": ops.not_equal,
    "aten.ne.Tensor": ops.not_equal,
    "aten.lt.Scalar": ops.less,
    "aten.lt.Tensor": ops.less,
    "aten.le.Scalar": ops.less_equal,
    "aten.le.Tensor": ops.less_equal,
    "aten.gt.Scalar": ops.greater,
    "aten.gt.Tensor": ops.greater,
    "aten.ge.Scalar": ops.greater_equal,
    "aten.ge.Tensor": ops.greater_equal,
    "aten.logical_not.default": _logical_not,
    # ~mask, mask & causal: on bools the logical ops, on integers aicf's invert (-1 - x);
    # and/or/xor of integers stay torch's (BOOL_ONLY)
    "aten.bitwise_not.default": ops.invert,
    **{f"aten.bitwise_{n}.{kind}": getattr(ops, f"bitwise_{n}") for n in ("and", "or", "xor")
       for kind in ("Tensor", "Scalar")},
    "aten.logical_and.default": _logical_and,
    "aten.logical_or.default": _logical_or,
    "aten._to_copy.default": lambda x, *, dtype=None, **_: _to_dtype(x, dtype),
    "prims.convert_element_type.default": _to_dtype,
    # creation
    "aten.full.default": _full,
    "aten.full_like.default": lambda x, value, *, dtype=None, **_: ops.constant(
        value, dtype_name(dtype) if dtype is not None else x.dtype, list(x.shape)
    ),
    "aten.scalar_tensor.default": lambda value, *, dtype=None, **_: _full([], value, dtype=dtype),
    "aten.arange.start_step": _arange,
    "aten.arange.start": _arange,
    "aten.arange.default": _arange,
    # reductions and normalisations
    "aten.sum.dim_IntList": _sum,
    "aten.mean.dim": _reduction(ops.reduce_mean),
    "aten.amax.default": _reduction(ops.reduce_max),
    "aten.amin.default": _reduction(ops.reduce_min),
    "aten.cumsum.default": lambda x, dim, *, dtype=None: _cumulative(ops.cumsum, x, dim, dtype),
    "aten.cumprod.default": lambda x, dim, *, dtype=None: _cumulative(ops.cumprod, x, dim, dtype),
    "aten.prod.default": lambda x, *, dtype=None: _prod(x, None, dtype=dtype),
    "aten.prod.dim_int": lambda x, dim, keepdim=False, *, dtype=None: _prod(x, [dim], keepdim, dtype=dtype),
    "aten.any.dim": _any,
    "aten.var.correction": _var,
    "aten.var_mean.correction": _var_mean,
    "aten._softmax.default": _softmax,
    "aten._log_softmax.default": _log_softmax,
    "aten.native_layer_norm.default": _layer_norm,
    # attention: the fused kernels' ops, which the GPU's dispatch picks before any
    # decomposition (flash, memory-efficient, cuDNN), as their math
    "aten.scaled_dot_product_attention.default": _sdpa,
    "aten._scaled_dot_product_flash_attention.default": _flash,
    "aten._scaled_dot_product_efficient_attention.default": _efficient,
    "aten._scaled_dot_product_cudnn_attention.default": _cudnn,
    "aten._scaled_dot_product_flash_attention_for_cpu.default": _flash_cpu,
}
"""ATen overload name -> its meaning on traced tensors."""

PROMOTED_FROM: dict[str, int] = {
    **{name: 0 for name in ATEN if name.split(".")[1] in (
        "add", "sub", "rsub", "mul", "div", "pow", "maximum", "minimum", "clamp", "neg", "exp", "log",
        "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "erf", "sigmoid", "gelu", "log1p", "expm1",
        "log2", "log10", "exp2", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
        "atanh", "atan2", "copysign", "reciprocal")},
    "aten.where.self": 1,  # the condition stays bool
}  # fmt: skip
"""Elementwise operators torch computes in their result dtype: an operand (from this
argument on) of another dtype of one whose result is a float is converted to it
first, as torch converts its operands to their common dtype (a float tensor with an
f64 0-d one is computed in f32: NumPy's promotion, aicf's, computed x * 0.1 in f64
and rounded, an ulp off torch's x * 0.1f at a third of the elements). Left to aicf's
promotion (or `_float`'s f32), an integer operand went through f32 (true_divide, exp,
log1p) where torch's result is f64 (torch.set_default_dtype(torch.float64)):
(2**40 + 1) / 1 came out 2**40."""

OPMATH_SCALAR = ("aten.mul.Tensor", "aten.div.Tensor")
"""torch's mul and div of an f16/bf16 tensor by a 0-d tensor (its second operand) of
another dtype: the 0-d value is taken in f32 (not converted to the result's dtype
first) and the result rounded once, as for a Python number (`_opmath`); with the 0-d
tensor first, it is converted like any other operand."""

COMPARED_IN = tuple(f"aten.{op}.{kind}" for op in ("eq", "ne", "lt", "le", "gt", "ge") for kind in ("Tensor", "Scalar"))
"""Comparisons, which torch makes in the operands' common dtype (torch.result_type):
an int64 tensor equal to an f16 one is compared as f16 (2049 == 2048.0), and an f32
tensor with an f64 0-d one as f32 (0.1f == 0.1), not as f64 (NumPy's promotion,
aicf's)."""

BOOL_ONLY = tuple(f"aten.bitwise_{n}.{kind}" for n in ("and", "or", "xor") for kind in ("Tensor", "Scalar"))
"""Operators aicf has on bool tensors only (aicf has no bitwise integer operator): on
integers the node is left to torch, not its whole partition."""

CREATION = ("aten.full.default", "aten.scalar_tensor.default", "aten.arange.start_step",
            "aten.arange.start", "aten.arange.default")  # fmt: skip
"""Operators whose dtype, when the graph gives none, is torch's default dtype (the
result's recorded dtype; the default of `_full` and `_arange` is f32)."""

__all__ = ["ATEN", "BOOL_ONLY", "COMPARED_IN", "CREATION", "OPMATH_SCALAR", "PROMOTED_FROM", "TORCH_DTYPES",
           "dtype_name", "torch_cast"]
