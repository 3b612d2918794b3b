"""`aicf-fold-constants`: evaluate `aicf_tensor` ops on constants with NumPy.

An op whose operands are all `aicf_tensor.constant` is replaced by the constant it
computes, in the op's dtype semantics: f16/bf16 compute in f32 and round once (as the
lowered loop bodies do), reductions and matmul accumulate in f64 and round once, i32
wraps. The evaluation is `aicf.interpreters.tensor` under its "fold" precision (the
op semantics the golden reference runs too); it also serves the Python tracer, so
`aicf.trace` and this pass agree.

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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
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
from aicf.dialects.shape_rules import DYN
from aicf.interpreters.tensor import FOLD, dense_storage, run_op, to_storage

MAX_FOLD_ELEMENTS = 1 << 20
"""Results with more elements than this are not folded (nor splat constants grown)."""


# --- dense attributes <-> NumPy -----------------------------------------------------------


def to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The value of a dense attribute, in the fold compute dtype of its element type."""
    return FOLD.load(dense_storage(attr), attr.get_element_type())


def from_numpy(value: np.ndarray, tensor_type: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `tensor_type` holding `value` (rounded to its element type,
    broadcast to its shape)."""
    shape = tuple(tensor_type.get_shape())
    data = np.broadcast_to(to_storage(value, tensor_type.get_element_type()), shape)
    return DenseIntOrFPElementsAttr(tensor_type, BytesAttr(np.ascontiguousarray(data).tobytes()))


# --- evaluation ------------------------------------------------------------------------------


def evaluate(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray | None:
    """The value of `op` on operand values `args` (in their fold compute dtypes, see
    `to_numpy`), rounded to the op's result element type; None where the op is not
    folded (see the module docstring). The semantics are `aicf.interpreters.tensor`'s
    under its "fold" precision."""
    result_type = op.results[0].type if op.results else None
    if not isinstance(result_type, TensorType):
        return None
    if not isinstance(op, T.TensorOp) or isinstance(op, T.ConstantOp):
        return None
    if isinstance(result_type.get_element_type(), IntegerType) and isinstance(
        op, T.DivOp | T.PowOp
    ):
        return None
    try:
        (value,) = run_op(op, args, FOLD)
    except (ValueError, TypeError, ArithmeticError):
        return None
    if value.shape != tuple(result_type.get_shape()):
        return None
    return value


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
