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

And two that keep matrices and elementwise chains in one shape, so that a model's
`view`s (torch traces a linear layer on [batch, seq, features] as a reshape to rows, a
2-D matmul and a reshape back) neither cut fusion nor leave copies behind:

- reshape(f(x, ...)) for an elementwise f only the reshape reads -> f(reshape(x), ...):
  operands of f's shape are reshaped with it; a broadcast operand stays as it is when
  the reshape keeps the trailing dims it spans (a bias over the last dim) or it is a
  scalar. Only when the reshape can travel up the whole elementwise chain (to a
  reshape, or to a producer that is not elementwise): stopping halfway would cut the
  chain, and its fusion, in two. A reshape between two elementwise chains then meets the one before it and
  both disappear (reshape(reshape(x)) is one reshape; to the same shape, none).
- reshape(matmul(reshape(a), b)) -> matmul(a, b) where the inner reshape merges a's
  leading dims into the rows of a 2-D matmul and the outer one splits them back: the
  batched matmul (b broadcast) writes the result in its final shape.

Static shapes only; anything with a dynamic or zero extent is left alone.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
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
    var = isinstance(red, T.ReduceVarOp)  # a variance over unit dims is 0, not x
    if not var and all(x.type.get_shape()[a] == 1 for a in axes) and x.type == result_type:  # type: ignore[attr-defined]
        rewriter.replace(root, [], [x])
        return
    new = T.ReduceVarOp(x, axes, keep, result_type, ddof=red.ddof_value) if var else type(red)(x, axes, keep, result_type)
    replace(rewriter, root, new)


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


_ELEMENTWISE = (T.UnaryOp, T.BinaryOp, T.SelectOp, T.CastOp)


def _keeps_broadcast(shape: tuple[int, ...], src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """An operand of `shape` broadcast over `src` broadcasts the same way over `dst`
    (a row-major reshape of `src`): it is a scalar, or the reshape keeps the trailing
    dims it spans."""
    if len(shape) > len(dst):
        return False  # f's result would keep the operand's rank
    while shape and shape[0] == 1:  # leading unit dims broadcast like absent ones
        shape = shape[1:]
    r = len(shape)
    return r == 0 or src[-r:] == dst[-r:]


def _lands_cleanly(ew: Operation, src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether a reshape src -> dst of elementwise `ew`'s result, moved up, travels the
    whole elementwise chain above it: the chain (the elementwise ops of shape src
    reached upwards from `ew`, and the sibling branches that only feed it) is read
    only inside itself or through reshapes to dst, and it starts at reshapes (they
    merge) or at producers that are not elementwise. A chain the reshape cannot pass
    (an operand that broadcasts over src but not over dst, or a value something else
    also reads) would be cut in two, and the part left behind loses its fusion (a layer
    norm's scale and shift cut off from its row group by the reshape to a linear
    layer's rows)."""
    chain: set[Operation] = set()

    def elementwise(op) -> bool:
        return isinstance(op, _ELEMENTWISE) and len(op.results) == 1

    def to_dst(op) -> bool:
        return isinstance(op, T.ReshapeOp) and static_shape(op.result.type) == dst

    def grow(start: Operation) -> bool:
        todo = [start]
        chain.add(start)
        while todo:
            op = todo.pop()
            for u in op.operands:
                shape = static_shape(u.type)
                if shape != src:
                    if shape is None or not _keeps_broadcast(shape, src, dst):
                        return False
                    continue
                owner = u.owner
                if isinstance(owner, T.MatmulOp) and len(dst) < len(src):
                    # merging a (batched) matmul's leading dims back into rows: the
                    # chain stays in the matmul's shape, and the reshape goes on to the
                    # next linear layer's rows (MatmulRowsReshape), not back onto it
                    return False
                if elementwise(owner) and owner not in chain:
                    if len(chain) > 256:
                        return False
                    chain.add(owner)
                    todo.append(owner)
        return True

    if not grow(ew):
        return False
    changed = True
    while changed:
        changed = False
        for op in list(chain):
            if op is ew:
                continue
            for use in op.results[0].uses:
                r = use.operation
                if r in chain or to_dst(r):
                    continue
                if elementwise(r) and all(x.operation in chain or to_dst(x.operation) for x in r.results[0].uses):
                    if len(chain) > 256 or not grow(r):  # a chain this wide: leave the reshape
                        return False
                    changed = True
                    continue
                return False
    return True


class ReshapeThroughElementwise(RewritePattern):
    """reshape(f(x, ...)) -> f(reshape(x), ...) for an elementwise f read only by
    reshapes to one type, when the reshape then travels up the whole chain
    (`_lands_cleanly`; module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        ew = op.input.owner
        if not isinstance(ew, _ELEMENTWISE) or len(ew.results) != 1:
            return
        users = [u.operation for u in ew.results[0].uses]
        if any(not isinstance(u, T.ReshapeOp) or u.result.type != op.result.type for u in users):
            return  # another reader wants f's own shape: moving the reshape would compute f twice
        if any(_feeds_linear_rows(u) for u in users):  # type: ignore[arg-type]
            return
        src, dst = static_shape(ew.results[0].type), static_shape(op.result.type)
        if src is None or dst is None or src == dst or 0 in src:
            return
        if not _lands_cleanly(ew, src, dst):
            return
        operands: list[SSAValue] = []
        reshapes: list[T.ReshapeOp] = []
        for v in ew.operands:
            shape = static_shape(v.type)
            if shape == src:
                r = T.ReshapeOp(v, dst, TensorType(v.type.get_element_type(), dst))  # type: ignore[attr-defined]
                r.location = op.location
                reshapes.append(r)
                operands.append(r.result)
            elif shape is not None and _keeps_broadcast(shape, src, dst):
                operands.append(v)
            else:
                return
        try:  # the operands as they now are must broadcast to the new shape itself
            if tuple(np.broadcast_shapes(*(static_shape(v.type) or () for v in operands))) != dst:
                return
        except ValueError:
            return
        new = type(ew).create(operands=operands, properties=dict(ew.properties), attributes=dict(ew.attributes),
                              result_types=[TensorType(ew.results[0].type.get_element_type(), dst)])  # type: ignore[attr-defined]
        new.location = ew.location
        rewriter.insert([*reshapes, new], InsertPoint.before(ew))
        for u in users:
            rewriter.replace(u, [], [new.results[0]])
        rewriter.erase(ew)


def _linear_rows(op: T.ReshapeOp) -> T.MatmulOp | None:
    """The matmul of reshape(matmul(reshape(a), b)) when `op` is the outer reshape and
    the two reshapes merge and split a's leading dims as the matmul's rows."""
    mm = op.input.owner
    if not isinstance(mm, T.MatmulOp) or not mm.result.has_one_use():
        return None
    rows = mm.lhs.owner
    if not isinstance(rows, T.ReshapeOp):
        return None
    sa, s2, sb, dst = (static_shape(v.type) for v in (rows.input, mm.lhs, mm.rhs, op.result))
    if sa is None or s2 is None or sb is None or dst is None or len(s2) != 2 or len(sb) != 2 or len(sa) < 3:
        return None
    if sa[-1] != s2[1] or math.prod(sa[:-1]) != s2[0] or dst != (*sa[:-1], sb[1]):
        return None
    return mm


def _feeds_linear_rows(op: T.ReshapeOp) -> bool:
    """`op` merges rows for a matmul whose result is split back (MatmulRowsReshape
    takes both reshapes away; moving this one up would leave the other as a copy)."""
    for use in op.result.uses:
        mm = use.operation
        if isinstance(mm, T.MatmulOp) and mm.lhs == op.result and mm.result.has_one_use():
            back = next(iter(mm.result.uses)).operation
            if isinstance(back, T.ReshapeOp) and _linear_rows(back) is mm:
                return True
    return False


class MatmulRowsReshape(RewritePattern):
    """reshape(matmul(reshape(a), b)) -> matmul(a, b) where the reshapes merge and split
    a's leading dims as the 2-D matmul's rows (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        mm = _linear_rows(op)
        if mm is None:
            return
        a = mm.lhs.owner.input  # type: ignore[union-attr]
        new = type(mm).create(operands=[a, mm.rhs], properties=dict(mm.properties), attributes=dict(mm.attributes),
                              result_types=[op.result.type])
        new.location = mm.location
        rewriter.replace(op, new)
        rewriter.erase(mm)


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
    """A reduction over unit dims that keeps its operand's type is its operand (a sum,
    max or mean; a variance there is 0, or NaN by its ddof)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReduceOp, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, T.ReduceVarOp):
            return
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
                    ReshapeThroughElementwise(),
                    MatmulRowsReshape(),
                ]
            ),
            post_walk_func=region_dce,
        ).rewrite_module(op)
