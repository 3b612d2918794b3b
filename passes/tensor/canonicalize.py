"""Canonicalization patterns of the `aicf_tensor` ops.

xDSL's `canonicalize` pass reaches them through the ops' `HasCanonicalizationPatternsTrait`
(`aicf_tensor`'s trait asks `patterns_for(op type)` here), together with constant
folding (`fold.FoldConstantOperands`) and dead-code removal:

    %one = aicf_tensor.constant dense<1.0> : tensor<f32>
    %y = aicf_tensor.mul %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %z = aicf_tensor.neg %y : ...
    %w = aicf_tensor.neg %z : ...           // canonicalizes to %x

Every rewrite here is exact: a pattern fires only when the replacement has the same
type as the value it replaces (an identity element that broadcasts `x` to a bigger
shape, or promotes its dtype, is left alone). The float additive identity is -0.0, not
+0.0 (`-0.0 + 0.0` is `+0.0`): `x + 0.0` and `x - (-0.0)` stay, as MLIR's arith folds
keep them (folding them gave -0.0 where NumPy gives +0.0, and 1 / that -inf for +inf).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from aicf.dialects import tensor as T
from aicf.passes.tensor.fold import MAX_FOLD_ELEMENTS, FoldConstantOperands, from_numpy, to_numpy


def splat_value(value: SSAValue) -> float | int | None:
    """The element of a splat `aicf_tensor.constant`, or None."""
    op = value.owner
    if not isinstance(op, T.ConstantOp):
        return None
    values = to_numpy(op.value).reshape(-1)
    if values.size == 0 or not (values == values[0]).all():
        return None
    return values[0].item()


def _static(t) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def replace(rewriter: PatternRewriter, op: Operation, new: Operation) -> None:
    """Replace `op` by `new`, which takes over its location (diagnostics keep pointing
    at the user's line)."""
    new.location = op.location
    rewriter.replace(op, new)


def _forward(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> bool:
    """Replace `op` by `value` if that keeps the result type; report whether it did."""
    if value.type != op.results[0].type:
        return False
    rewriter.replace(op, [], [value])
    return True


# --- identity elements -------------------------------------------------------------------------


def _is_identity(value: SSAValue, identity: float, op: Operation) -> bool:
    """`value` is a splat of `identity`, for a float add's or sub's zero of the sign
    that is exact: x + (-0.0) and x - (+0.0) are x for every x, -0.0 + 0.0 is +0.0."""
    c = splat_value(value)
    if c is None or c != identity:
        return False
    if identity == 0 and isinstance(c, float):
        return math.copysign(1.0, c) == (-1.0 if op.name == "aicf_tensor.add" else 1.0)
    return True


class BinaryIdentity(RewritePattern):
    """x*1, 1*x, x+0, 0+x, x-0, x/1 -> x, for a splat constant that neither
    broadcasts x nor changes its dtype (a float add's zero -0.0, a sub's +0.0)."""

    RIGHT = {"aicf_tensor.mul": 1, "aicf_tensor.add": 0, "aicf_tensor.sub": 0, "aicf_tensor.div": 1}
    LEFT = {"aicf_tensor.mul": 1, "aicf_tensor.add": 0}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, T.BinaryOp):
            return
        identity = self.RIGHT.get(op.name)
        if identity is not None and _is_identity(op.rhs, identity, op):
            if _forward(rewriter, op, op.lhs):
                return
        identity = self.LEFT.get(op.name)
        if identity is not None and _is_identity(op.lhs, identity, op):
            _forward(rewriter, op, op.rhs)


class NegNeg(RewritePattern):
    """neg(neg(x)) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.NegOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if isinstance(inner, T.NegOp):
            _forward(rewriter, op, inner.input)


# --- layout ----------------------------------------------------------------------------------


class ReshapeOfReshape(RewritePattern):
    """reshape(reshape(x)) -> reshape(x): row-major reshapes compose."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, T.ReshapeOp):
            return
        shape = op.target_shape()
        new = T.ReshapeOp(inner.input, shape if op.shape is not None else None, op.result.type)
        replace(rewriter, op, new)


class ReshapeToSameShape(RewritePattern):
    """reshape(x) -> x when the shape does not change."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        if _static(op.input.type):
            _forward(rewriter, op, op.input)


def compose_perms(inner: tuple[int, ...], outer: tuple[int, ...]) -> tuple[int, ...]:
    """The perm of transpose(transpose(x, inner), outer)."""
    return tuple(inner[p] for p in outer)


class TransposeOfTranspose(RewritePattern):
    """transpose(transpose(x, p1), p2) -> transpose(x, p1∘p2)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.TransposeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, T.TransposeOp):
            return
        perm = compose_perms(inner.perm_list, op.perm_list)
        replace(rewriter, op, T.TransposeOp(inner.input, perm, op.result.type))


class IdentityTranspose(RewritePattern):
    """transpose(x, [0, 1, ..]) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.TransposeOp, rewriter: PatternRewriter, /) -> None:
        if op.perm_list == tuple(range(len(op.perm_list))):
            _forward(rewriter, op, op.input)


class BroadcastSplat(RewritePattern):
    """broadcast_to(splat constant) -> splat constant of the target shape (up to
    fold.MAX_FOLD_ELEMENTS elements, since constants are stored element by element)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.BroadcastToOp, rewriter: PatternRewriter, /) -> None:
        t = op.result.type
        if not _static(t) or math.prod(t.get_shape()) > MAX_FOLD_ELEMENTS:  # type: ignore[union-attr]
            return
        value = splat_value(op.input)
        if value is None or op.input.type.get_element_type() != t.get_element_type():  # type: ignore[union-attr]
            return
        import numpy as np

        const = T.ConstantOp(from_numpy(np.asarray(value), t))  # type: ignore[arg-type]
        replace(rewriter, op, const)


class BroadcastToSameShape(RewritePattern):
    """broadcast_to(x) -> x when the shape does not change."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.BroadcastToOp, rewriter: PatternRewriter, /) -> None:
        if _static(op.input.type):
            _forward(rewriter, op, op.input)


class CastToSameType(RewritePattern):
    """cast(x) -> x when the type does not change."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.CastOp, rewriter: PatternRewriter, /) -> None:
        _forward(rewriter, op, op.input)


_FOLD = FoldConstantOperands()
_BINARY = (BinaryIdentity(),)
_PATTERNS: dict[type[Operation], tuple[RewritePattern, ...]] = {
    T.NegOp: (NegNeg(),),
    T.ReshapeOp: (ReshapeToSameShape(), ReshapeOfReshape()),
    T.TransposeOp: (IdentityTranspose(), TransposeOfTranspose()),
    T.BroadcastToOp: (BroadcastToSameShape(), BroadcastSplat()),
    T.CastOp: (CastToSameType(),),
}


def patterns_for(op_type: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns of one op type: folding first, then its own."""
    if op_type is T.ConstantOp:
        return ()
    own = _PATTERNS.get(op_type, ())
    if issubclass(op_type, T.BinaryOp):
        own = _BINARY
    return (_FOLD, *own)
