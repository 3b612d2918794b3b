"""`aicf-cleanup-reshapes`: fold reshapes and transposes around reductions into the
reduction's `axes` and `keepdims`, where that is exact.

A reduction does not care how its reduced elements are arranged, and a row-major
reshape or a transpose that keeps the order of the kept dims does not move data, so

    %y = aicf_tensor.reshape %x shape = [4, 1, 8] : (tensor<4x8xf32>) -> tensor<4x1x8xf32>
    %s = aicf_tensor.reduce_sum %y axes = [2] : (tensor<4x1x8xf32>) -> tensor<4x1xf32>

becomes `aicf_tensor.reduce_sum %x axes = [1] keepdims`, and

    %s = aicf_tensor.reduce_sum %x axes = [1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %y = aicf_tensor.reshape %s shape = [4] : (tensor<4x1xf32>) -> tensor<4xf32>

becomes `aicf_tensor.reduce_sum %x axes = [1]`. The rewrites (each a RewritePattern):

- reduce(reshape(x)): the reshape's dims are grouped as in MLIR's reassociation
  (contiguous groups of equal element count, unit dims aside); every group must be
  wholly reduced or wholly kept, and the reduction over the matching groups of x (plus
  any unit dims of x, with or without keepdims) must give the same result shape. A
  reshape that mixes reduced and kept dims, or splits/merges kept dims, stays.
- reshape(reduce(x)): the reshape only adds or drops unit dims of a single-use
  reduction's result, which keepdims (and reducing unit dims of x) can express; this
  looks through a reshape/transpose under the reduction too (a squeeze before and
  after a reduction folds away in one step).
- reduce(transpose(x, perm)): reduce over x's dims perm[axes] when the kept dims
  stay in the same order (unit dims may move).
- transpose that only moves unit dims -> reshape (which the rules above then fold).
- a reduction over unit dims only, whose result type is its operand's -> its operand.

Static shapes only; anything with a dynamic or zero extent is left alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import region_dce

from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as T
from aicf.passes.tensor.canonicalize import ReshapeOfReshape, ReshapeToSameShape, replace

_MAX_UNIT_DIMS = 8
"""Unit dims of x tried as extra reduced axes (2^n subsets)."""


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """A shape with only positive static extents, else None."""
    if not isinstance(t, TensorType):
        return None
    shape = tuple(t.get_shape())
    return shape if all(d > 0 for d in shape) else None


def reassociation(
    src: Sequence[int], dst: Sequence[int]
) -> list[tuple[list[int], list[int]]] | None:
    """Groups (src dims, dst dims) of a row-major reshape src -> dst: contiguous runs of
    non-unit dims with equal element counts, finest first. Unit dims belong to no group."""
    xs = [i for i, d in enumerate(src) if d != 1]
    ys = [j for j, d in enumerate(dst) if d != 1]
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        gx, gy = [xs[i]], [ys[j]]
        px, py = src[xs[i]], dst[ys[j]]
        i, j = i + 1, j + 1
        while px != py:
            if px < py:
                if i == len(xs):
                    return None
                px *= src[xs[i]]
                gx.append(xs[i])
                i += 1
            else:
                if j == len(ys):
                    return None
                py *= dst[ys[j]]
                gy.append(ys[j])
                j += 1
        groups.append((gx, gy))
    if i != len(xs) or j != len(ys):
        return None
    return groups


def match_reduction(
    shape: Sequence[int], base: set[int], target: Sequence[int], prefer_keep: bool
) -> tuple[tuple[int, ...], bool] | None:
    """Axes (base plus some unit dims of `shape`) and keepdims with which reducing
    `shape` gives exactly `target`; reducing a unit dim moves no data, so every such
    choice computes the same elements in the same order."""
    units = [i for i, d in enumerate(shape) if d == 1 and i not in base]
    if len(units) > _MAX_UNIT_DIMS:
        return None
    for keep in (prefer_keep, not prefer_keep):
        for n in range(len(units) + 1):
            for extra in itertools.combinations(units, n):
                axes = tuple(sorted(base | set(extra)))
                if rules.reduce_shape(shape, axes, keep) == tuple(target):
                    return axes, keep
    return None


def _rebuild(
    rewriter: PatternRewriter,
    red: T.ReduceOp,
    root: T.TensorOp,
    x: SSAValue,
    found: tuple[tuple[int, ...], bool],
) -> None:
    """Replace `root` by `red`'s reduction of `x` over the found axes, or by `x`
    itself where those reduce nothing but unit dims into x's own type."""
    axes, keep = found
    result_type = root.results[0].type
    if all(x.type.get_shape()[a] == 1 for a in axes) and x.type == result_type:  # type: ignore[attr-defined]
        rewriter.replace(root, [], [x])
        return
    replace(rewriter, root, type(red)(x, axes, keep, result_type))


def views(red: T.ReduceOp) -> list[tuple[SSAValue, tuple[int, ...], set[int]]]:
    """(value, its shape, the axes of it to reduce) that `red` can read instead of its
    operand: the operand itself, and x where the operand is a reshape or transpose of x
    that this reduction sees through (each such reading computes the same elements in
    the same order; which keepdims and unit axes give the wanted shape is up to
    `match_reduction`)."""
    src = static_shape(red.input.type)
    if src is None:
        return []
    reduced = set(red.reduced_axes())
    out = [(red.input, src, reduced)]
    inner = red.input.owner
    if isinstance(inner, T.ReshapeOp):
        x = inner.input
        xs = static_shape(x.type)
        groups = reassociation(xs, src) if xs is not None else None
        if groups is None:
            return out
        base: set[int] = set()
        for gx, gy in groups:
            flags = {d in reduced for d in gy}
            if flags == {True}:
                base.update(gx)
            elif flags != {False}:
                return out  # a group mixes reduced and kept dims
        out.append((x, xs, base))  # type: ignore[arg-type]
    elif isinstance(inner, T.TransposeOp):
        x = inner.input
        xs = static_shape(x.type)
        if xs is None:
            return out
        perm = inner.perm_list
        kept = [perm[i] for i in range(len(perm)) if i not in reduced and xs[perm[i]] != 1]
        if kept == sorted(kept):
            out.append((x, xs, {perm[a] for a in reduced}))
    return out


class ReduceThroughView(RewritePattern):
    """reduce(reshape(x)) / reduce(transpose(x)) -> reduce(x) with other axes and
    keepdims, when that gives the same result type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReduceOp, rewriter: PatternRewriter, /) -> None:
        target = static_shape(op.result.type)
        if target is None:
            return
        for x, shape, base in views(op)[1:]:
            found = match_reduction(shape, base, target, op.keep)
            if found is not None:
                _rebuild(rewriter, op, op, x, found)
                return


class ReshapeOfReduce(RewritePattern):
    """reshape(reduce(...)) -> reduce(...) when the reshape only adds or drops unit
    dims that keepdims can express (looking through a view under the reduction)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        red = op.input.owner
        if not isinstance(red, T.ReduceOp) or not red.result.has_one_use():
            return
        target = static_shape(op.result.type)
        if target is None:
            return
        for x, shape, base in views(red):
            found = match_reduction(shape, base, target, red.keep)
            if found is not None:
                _rebuild(rewriter, red, op, x, found)
                return


class UnitTransposeToReshape(RewritePattern):
    """A transpose that moves only unit dims moves no data: make it a reshape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.TransposeOp, rewriter: PatternRewriter, /) -> None:
        src, dst = static_shape(op.input.type), static_shape(op.result.type)
        if src is None or dst is None:
            return
        perm = op.perm_list
        if perm == tuple(range(len(perm))):
            return
        moved = [p for p in perm if src[p] != 1]
        if moved != sorted(moved):
            return
        replace(rewriter, op, T.ReshapeOp(op.input, dst, op.result.type))


class ReduceOfUnitDims(RewritePattern):
    """A reduction over unit dims that keeps its operand's type is its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReduceOp, rewriter: PatternRewriter, /) -> None:
        src = static_shape(op.input.type)
        if src is None or op.input.type != op.result.type:
            return
        if all(src[a] == 1 for a in op.reduced_axes()):
            rewriter.replace(op, [], [op.input])


@dataclass(frozen=True)
class CleanupReshapesPass(ModulePass):
    """Fold reshapes/transposes around reductions into axes and keepdims."""

    name = "aicf-cleanup-reshapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    ReduceOfUnitDims(),
                    UnitTransposeToReshape(),
                    ReshapeToSameShape(),
                    ReshapeOfReshape(),
                    ReduceThroughView(),
                    ReshapeOfReduce(),
                ]
            ),
            post_walk_func=region_dce,
        ).rewrite_module(op)
