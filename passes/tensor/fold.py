"""`aicf-fold-constants`: evaluate `aicf_tensor` ops on constants with NumPy.

An op whose operands are all `aicf_tensor.constant` is replaced by the constant it
computes, in the op's dtype semantics: f16/bf16 compute in f32 and round once (as the
lowered loop bodies do), reductions and matmul accumulate in f64 and round once, i32
wraps. The same evaluation serves the Python tracer, so `aicf.trace` and this pass
agree.

    %a = aicf_tensor.constant dense<2.0> : tensor<4xf32>
    %b = aicf_tensor.constant dense<3.0> : tensor<f32>
    %c = aicf_tensor.mul %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>

becomes

    %c = aicf_tensor.constant dense<6.000000e+00> : tensor<4xf32>

Limits: an op whose result would have more than `MAX_FOLD_ELEMENTS` (1M) elements is
kept, because a constant is stored in the IR (and in every printed module) element by
element. Integer `div` and `pow` are not folded (their lowering follows C's
truncating division and `ipowi`, which NumPy does not share on every input), nor is
anything whose NumPy evaluation raises (e.g. reduce_max over an empty axis).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import region_dce

from aicf.dialects import tensor as T
from aicf.dtypes import f32_to_bf16_bits
from aicf.dialects.shape_rules import DYN

MAX_FOLD_ELEMENTS = 1 << 20
"""Results with more elements than this are not folded (nor splat constants grown)."""


# --- dense attributes <-> NumPy -----------------------------------------------------------


def _np_storage(elt: Attribute) -> np.dtype:
    """The NumPy dtype whose bytes are xDSL's storage of `elt` (bf16 as its bits)."""
    if isinstance(elt, Float16Type):
        return np.dtype("<f2")
    if isinstance(elt, BFloat16Type):
        return np.dtype("<u2")
    if isinstance(elt, Float32Type):
        return np.dtype("<f4")
    if isinstance(elt, Float64Type):
        return np.dtype("<f8")
    if isinstance(elt, IntegerType) and elt.width.data in (8, 16, 32, 64):
        return np.dtype(f"<i{elt.width.data // 8}")
    raise ValueError(f"no NumPy storage for {elt}")


def compute_dtype(elt: Attribute) -> np.dtype:
    """The NumPy dtype values of element type `elt` are computed in."""
    if isinstance(elt, Float16Type | BFloat16Type | Float32Type):
        return np.dtype(np.float32)
    return _np_storage(elt)


def to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The value of a dense attribute, in the compute dtype of its element type."""
    elt = attr.get_element_type()
    raw = np.frombuffer(attr.data.data, dtype=_np_storage(elt))
    if isinstance(elt, BFloat16Type):
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    shape = attr.get_shape()
    n = math.prod(shape)
    if raw.size == 1 and n != 1:  # a splat may be stored once
        raw = np.broadcast_to(raw, (n,))
    return raw.astype(compute_dtype(elt)).reshape(shape)


def to_storage(value: np.ndarray, elt: Attribute) -> np.ndarray:
    """Round `value` to element type `elt` (NumPy's astype rules), as storage bits."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if isinstance(elt, BFloat16Type):
            return f32_to_bf16_bits(value)
        return np.asarray(value).astype(_np_storage(elt))


def from_numpy(value: np.ndarray, tensor_type: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `tensor_type` holding `value` (broadcast to its shape)."""
    shape = tuple(tensor_type.get_shape())
    elt = tensor_type.get_element_type()
    data = np.broadcast_to(to_storage(value, elt), shape)
    return DenseIntOrFPElementsAttr(tensor_type, BytesAttr(np.ascontiguousarray(data).tobytes()))


def round_to(value: np.ndarray, elt: Attribute) -> np.ndarray:
    """`value` rounded to element type `elt`, back in its compute dtype."""
    stored = to_storage(value, elt)
    if isinstance(elt, BFloat16Type):
        return (stored.astype(np.uint32) << 16).view(np.float32)
    return stored.astype(compute_dtype(elt))


# --- evaluation ------------------------------------------------------------------------------


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1.0 + erf(x64 / math.sqrt(2.0)))


_UNARY = {
    "aicf_tensor.neg": np.negative,
    "aicf_tensor.exp": np.exp,
    "aicf_tensor.log": np.log,
    "aicf_tensor.sin": np.sin,
    "aicf_tensor.cos": np.cos,
    "aicf_tensor.tanh": np.tanh,
    "aicf_tensor.sqrt": np.sqrt,
    "aicf_tensor.rsqrt": lambda x: 1 / np.sqrt(x),
    "aicf_tensor.abs": np.abs,
    "aicf_tensor.relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "aicf_tensor.gelu": _gelu,
    "aicf_tensor.sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}

_BINARY = {
    "aicf_tensor.add": np.add,
    "aicf_tensor.sub": np.subtract,
    "aicf_tensor.mul": np.multiply,
    "aicf_tensor.div": np.divide,
    "aicf_tensor.max": np.maximum,
    "aicf_tensor.min": np.minimum,
    "aicf_tensor.pow": np.power,
}

_REDUCE = {
    "aicf_tensor.reduce_sum": np.sum,
    "aicf_tensor.reduce_max": np.max,
    "aicf_tensor.reduce_mean": np.mean,
}


def evaluate(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray | None:
    """The value of `op` on operand values `args` (in their compute dtypes), rounded
    to the op's result element type; None where the op is not folded (see the
    module docstring)."""
    result_type = op.results[0].type
    if not isinstance(result_type, TensorType):
        return None
    elt = result_type.get_element_type()
    ctype = compute_dtype(elt)
    name = op.name
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            if name in _UNARY:
                value = _UNARY[name](args[0].astype(ctype))
            elif name in _BINARY:
                if isinstance(elt, IntegerType) and name in ("aicf_tensor.div", "aicf_tensor.pow"):
                    return None
                value = _BINARY[name](args[0].astype(ctype), args[1].astype(ctype))
            elif name == "aicf_tensor.cast":
                value = args[0]
            elif isinstance(op, T.ReduceOp):
                x = args[0]
                axes = op.reduced_axes()
                acc = np.float64 if x.dtype.kind == "f" else x.dtype
                if name == "aicf_tensor.reduce_max":
                    value = np.max(x, axis=axes, keepdims=op.keep)
                else:
                    value = _REDUCE[name](x, axis=axes, keepdims=op.keep, dtype=acc)
            elif isinstance(op, T.MatmulOp):
                acc = np.float64 if ctype.kind == "f" else ctype
                value = np.matmul(args[0].astype(acc), args[1].astype(acc))
            elif isinstance(op, T.ReshapeOp):
                value = args[0].reshape(result_type.get_shape())
            elif isinstance(op, T.TransposeOp):
                value = np.transpose(args[0], op.perm_list)
            elif isinstance(op, T.BroadcastToOp):
                value = np.broadcast_to(args[0], tuple(result_type.get_shape()))
            else:
                return None
        except (ValueError, TypeError, ArithmeticError):
            return None
        value = np.asarray(value)
        if value.shape != tuple(result_type.get_shape()):
            return None
        return round_to(value, elt)


def foldable_type(t: Attribute) -> bool:
    """A static tensor type small enough to hold as a constant."""
    if not isinstance(t, TensorType):
        return False
    shape = t.get_shape()
    return DYN not in shape and all(d >= 0 for d in shape) and math.prod(shape) <= MAX_FOLD_ELEMENTS


def constant_value(op: Operation | None) -> np.ndarray | None:
    if isinstance(op, T.ConstantOp):
        return to_numpy(op.value)
    return None


def fold(op: Operation) -> DenseIntOrFPElementsAttr | None:
    """The constant `op` folds to when all its operands are constants, else None."""
    if isinstance(op, T.ConstantOp) or not isinstance(op, T.TensorOp):
        return None
    if not op.operands or not foldable_type(op.results[0].type):
        return None
    args = []
    for operand in op.operands:
        owner = operand.owner
        value = constant_value(owner if isinstance(owner, Operation) else None)
        if value is None:
            return None
        args.append(value)
    value = evaluate(op, args)
    if value is None:
        return None
    return from_numpy(value, op.results[0].type)  # type: ignore[arg-type]


class FoldConstantOperands(RewritePattern):
    """Replace an `aicf_tensor` op on constants by the constant it computes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        value = fold(op)
        if value is None:
            return
        const = T.ConstantOp(value)
        const.location = op.location
        rewriter.replace(op, const)


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Fold `aicf_tensor` ops whose operands are all constants (see module docstring)."""

    name = "aicf-fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldConstantOperands()]),
            post_walk_func=region_dce,
        ).rewrite_module(op)
