"""`aicf-split-reductions`: a reduction nest whose schedule says `split = S` becomes
nests that reduce `S` chunks of it side by side into a workspace, and a nest that
combines the partials (as MLIR's linalg split-reduction), each a nest of its own that
any schedule can run.

The reduction dim that is cut is the nest's outermost one, d, of extent R = S*q + r:
- the partial nest has a new parallel dim s (extent S) just before d, and d runs over
  the q points of chunk s (read at s*q + d); it writes partial s of each output to the
  workspace, in the accumulator's type;
- when S does not divide R, a tail nest reduces the r points left (read at S*q + d)
  into partial S (the loop IR has no predicates for a ragged last chunk);
- the combine nest folds the S (or S + 1) partials of each output, in order, with the
  nest's combiners, and stores the outputs.
The workspace keeps the partials outermost ([S', *output]) for gpu.per_output, whose
threads own outputs, and innermost ([*output, S']) for gpu.rows, whose combine reads a
row's partials as one short contiguous row.

The pass decides nothing: the partial nest takes the parent's schedule with split = 1,
the tail and combine nests its nested `tail` and `combine` schedules.

Without this pass, gpu.rows and gpu.per_output make the same split inside their
kernels (ragged chunks guarded there, blockIdx.y the chunk). The planner does not
run the pass yet: with the partial nest planned on its own, column sums with few
columns measured 10-40% slower on the H100 than the in-kernel split
(bench/split_reductions.py, bench/NOTES.md "Session 11"), a tail nest costing a launch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from aicf.dialects.loop import Combiner, GroupOp, Iterator, NestOp, YieldOp
from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule, schedule_of
from aicf.diagnostics import op_error

# the schedule kinds whose reductions the planner splits this way (the wgmma split-K
# splits k inside its kernel, as CUTLASS's split_k_slices, and combines in a nest)
SPLIT_KINDS = ("gpu.per_output", "gpu.rows")
# the nested schedules a split carries, not parameters of the partial nest's kernel
SUB_SCHEDULES = ("combine", "tail")


def split_refusal(nest: NestOp, split: int) -> str | None:
    """Why `nest` cannot be split `split` ways here; None where it can."""
    red = nest.reduction_dims
    if not red:
        return "it has no reduction dim"
    if any(c is Combiner.NONE for c in nest.combiner_kinds):
        return "an output is stored, not folded"
    extent = nest.extents[red[0]]
    if not 2 <= split <= extent:
        return f"split = {split} must be in 2..{extent}, the extent of the outermost reduction dim"
    return None


@dataclass
class SplitParts:
    workspaces: list[memref.AllocOp]
    partial: NestOp
    tail: NestOp | None
    combine: NestOp

    def ops(self) -> list[Operation]:
        return [*self.workspaces, self.partial, *([self.tail] if self.tail else []), self.combine]

    def erase(self) -> None:
        """Drop detached parts (the planner's), users first."""
        for op in reversed(self.ops()):
            op.erase()


def split_nest(nest: NestOp, split: int, partials_last: bool) -> SplitParts:
    """The parts of `nest` split `split` ways (see the module docstring), detached
    (`SplitParts.erase` drops them unused); `partials_last`: the workspace holds each
    output's partials innermost."""
    E, n = nest.extents, len(nest.extents)
    d = nest.reduction_dims[0]
    R = E[d]
    q, r = divmod(R, split)
    npart = split + (1 if r else 0)
    acc_types = [v.type for v in nest.yield_op.values]
    par = nest.parallel_dims
    outs = list(nest.outputs)
    out_maps = nest.output_maps

    workspaces = []
    for o, t in zip(outs, acc_types):
        shape = list(o.type.get_shape())  # type: ignore[attr-defined]
        ws_shape = [*shape, npart] if partials_last else [npart, *shape]
        op = memref.AllocOp.get(t, shape=ws_shape)
        op.location = nest.location
        workspaces.append(op)

    def ws_index(out_map: AffineMap, renumber, part: AffineExpr) -> tuple[AffineExpr, ...]:
        res = tuple(e.replace_dims_and_symbols(renumber, []) for e in out_map.results)
        return (*res, part) if partials_last else (part, *res)

    # the partial nest: s is new dim d, the chunk's point d + 1, later dims shift by one
    shift = [AffineDimExpr(i if i < d else i + 1) for i in range(n)]
    chunked = list(shift)
    chunked[d] = AffineDimExpr(d) * q + AffineDimExpr(d + 1)
    partial = NestOp(
        nest.inputs, [w.memref for w in workspaces], [*E[:d], split, q, *E[d + 1:]],
        [*nest.iterators[:d], Iterator.PARALLEL, *nest.iterators[d:]],
        [*(m.replace_dims_and_symbols(chunked, [], n + 1, 0) for m in nest.input_maps),
         *(AffineMap(n + 1, 0, ws_index(m, shift, AffineDimExpr(d))) for m in out_maps)],
        nest.combiner_kinds, nest.body.clone(),
    )

    tail = None
    if r:
        tailed = [AffineDimExpr(i) for i in range(n)]
        tailed[d] = AffineDimExpr(d) + split * q
        same = [AffineDimExpr(i) for i in range(n)]
        tail = NestOp(
            nest.inputs, [w.memref for w in workspaces], [*E[:d], r, *E[d + 1:]], nest.iterators,
            [*(m.replace_dims_and_symbols(tailed, [], n, 0) for m in nest.input_maps),
             *(AffineMap(n, 0, ws_index(m, same, AffineConstantExpr(split))) for m in out_maps)],
            nest.combiner_kinds, nest.body.clone(),
        )

    # the combine nest: the nest's parallel dims (in order), the partials' dim last for
    # rows, first otherwise
    npar = len(par)
    pdim = npar if partials_last else 0
    first = 0 if partials_last else 1
    onto: list[AffineExpr] = [AffineConstantExpr(0)] * n
    for i, p in enumerate(par):
        onto[p] = AffineDimExpr(first + i)
    cdims = npar + 1
    pe = [E[p] for p in par]
    block = Block(arg_types=acc_types)
    block.add_op(YieldOp(*block.args))
    combine = NestOp(
        [w.memref for w in workspaces], outs, [*pe, npart] if partials_last else [npart, *pe],
        [*([Iterator.PARALLEL] * npar), Iterator.REDUCTION] if partials_last
        else [Iterator.REDUCTION, *([Iterator.PARALLEL] * npar)],
        [*(AffineMap(cdims, 0, ws_index(m, onto, AffineDimExpr(pdim))) for m in out_maps),
         *(AffineMap(cdims, 0, tuple(e.replace_dims_and_symbols(onto, []) for e in m.results)) for m in out_maps)],
        nest.combiner_kinds, Region(block),
    )
    for op in (partial, tail, combine):
        if op is not None:
            op.location = nest.location
    return SplitParts(workspaces, partial, tail, combine)


def partial_schedule(s: Schedule) -> Schedule:
    """The partial nest's schedule: the parent's kernel parameters, split = 1."""
    return Schedule(s.kind, {**{k: v for k, v in s.params.items() if k not in SUB_SCHEDULES and k != "est_ns"},
                             "split": 1})


class SplitScheduledReduction(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, nest: NestOp, rewriter: PatternRewriter) -> None:
        s = schedule_of(nest)
        if s is None or s.kind not in SPLIT_KINDS or int(s.get("split", 1)) <= 1:
            return
        if isinstance(nest.parent_op(), GroupOp):
            return  # a group's buffers are its own: split when the group lowers to its members
        S = int(s["split"])
        why = split_refusal(nest, S)
        if why is not None:
            raise op_error(nest, f"cannot split its reduction: {why}")
        parts = split_nest(nest, S, partials_last=s.kind == "gpu.rows")
        subs = {"combine": parts.combine, **({"tail": parts.tail} if parts.tail else {})}
        for key, op in subs.items():
            sub = s.get(key)
            if not isinstance(sub, Schedule):
                parts.erase()
                raise op_error(nest, f"{s.kind} split = {S} needs a `{key}` schedule for its {key} nest"
                                     + (f" ({nest.extents[nest.reduction_dims[0]] % S} points past "
                                        f"{S} whole chunks)" if key == "tail" else ""))
            op.attributes[SCHEDULE_ATTR] = sub.to_attr()
        parts.partial.attributes[SCHEDULE_ATTR] = partial_schedule(s).to_attr()
        for op in parts.ops():
            rewriter.insert(op, InsertPoint.before(nest))
        after = InsertPoint.after(nest)
        for w in reversed(parts.workspaces):
            rewriter.insert(memref.DeallocOp.get(w.memref), after)
        rewriter.erase(nest)


def split_reductions(op: Operation) -> None:
    """Split every reduction under `op` whose schedule says so."""
    for region in op.regions:
        PatternRewriteWalker(SplitScheduledReduction(), apply_recursively=True).rewrite_region(region)


@dataclass(frozen=True)
class SplitReductionsPass(ModulePass):
    """Make each reduction whose schedule says split = S into its partial, tail and
    combine nests (see the module docstring)."""

    name = "aicf-split-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split_reductions(op)
