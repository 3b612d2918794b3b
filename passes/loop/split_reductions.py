"""`aicf-split-reductions`: a reduction nest whose schedule says `split = S` becomes
a nest that reduces `S` chunks of it side by side into a workspace, and a nest that
combines the partials (as MLIR's linalg split-reduction), each a nest of its own that
any schedule of its shape can run.

The reduction dim that is cut is the nest's outermost one, d, of extent R (when the
split asks for more chunks than d has points, the reduction dims are first made one,
`merge_reductions`), in chunks of
q = ceil(R / S) points (rounded up to whole vectors when d is the one a gpu.rows kernel
reads in vectors of `vec`), S' = ceil(R / q) of them:
- the partial nest has a new parallel dim s (extent S'): just before d for gpu.rows
  (whose reduction dims stay innermost), outermost for gpu.per_output (whose threads
  vectorise the innermost parallel dim); d runs over the q points of chunk s (read at
  s*q + d); when q does not divide R, the nest's guard `R - 1 - s*q - d >= 0` stops the
  last chunk at the end (the loop IR's ragged bound); it writes partial s of each
  output to the workspace, in the accumulator's type;
- the combine nest folds the S' partials of each output, in order, with the nest's
  combiners, and stores the outputs.
The workspace keeps the partials outermost ([S', *output]) for gpu.per_output, whose
threads own outputs, and innermost ([*output, S']) for gpu.rows, whose combine reads a
row's partials as one short contiguous row.

The pass decides nothing: the partial nest takes the parent's schedule with split = 1
(the planner writes a split's kernel parameters, its grid included, for the partial
nest), the combine nest its nested `combine` schedule. aicf-lower-to-gpu runs it
first, so a split schedule written by hand lowers as the planner's do.
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

from aicf.dialects.loop import Combiner, GroupOp, Iterator, NestOp, RaggedBound, YieldOp
from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule, schedule_of
from aicf.diagnostics import op_error

# the schedule kinds whose reductions the planner splits this way (the wgmma split-K
# splits k inside its kernel, as CUTLASS's split_k_slices, and combines in a nest)
SPLIT_KINDS = ("gpu.per_output", "gpu.rows")
# the nested schedule a split carries, not a parameter of the partial nest's kernel
SUB_SCHEDULES = ("combine",)


def split_refusal(nest: NestOp, split: int) -> str | None:
    """Why `nest` cannot be split `split` ways here; None where it can."""
    red = nest.reduction_dims
    if not red:
        return "it has no reduction dim"
    if nest.guard is not None:
        return "it has a guard already"
    if any(c is Combiner.NONE for c in nest.combiner_kinds):
        return "an output is stored, not folded"
    extent = reduction_extent(nest)
    if not 2 <= split <= extent:
        return f"split = {split} must be in 2..{extent}, the points of its reduction"
    return None


def reduction_extent(nest: NestOp) -> int:
    """The points a split can cut: the outermost reduction dim's, or all the reduction
    dims' together (`merge_reductions`)."""
    n = 1
    for d in nest.reduction_dims:
        n *= nest.extents[d]
    return n


def merge_reductions(nest: NestOp) -> NestOp:
    """`nest` with its reduction dims made one, detached (the caller erases it): at the
    first one's place, of extent their product, each old dim read back from it in
    row-major order ((m floordiv inner) mod extent), so a split can cut chunks longer
    than the outermost dim (x.sum() of a 2 x 10^6 tensor in 64 chunks). GPU views read
    the floordiv/mod pairs of a contiguous operand back as one linear index."""
    E, red = nest.extents, nest.reduction_dims
    keep = [d for d in range(len(E)) if d not in red[1:]]
    pos = {d: i for i, d in enumerate(keep)}
    m = AffineDimExpr(pos[red[0]])
    onto: list[AffineExpr] = []
    for d in range(len(E)):
        if d not in red:
            onto.append(AffineDimExpr(pos[d]))
            continue
        k = red.index(d)
        inner = 1
        for r in red[k + 1:]:
            inner *= E[r]
        e = m // inner if inner > 1 else m
        onto.append(e % E[d] if k > 0 else e)
    total = reduction_extent(nest)
    merged = NestOp(
        nest.inputs, nest.outputs, [total if d == red[0] else E[d] for d in keep],
        [nest.iterators[d] for d in keep],
        [mp.replace_dims_and_symbols(onto, [], len(keep), 0) for mp in nest.maps],
        nest.combiner_kinds, nest.body.clone(),
    )
    merged.location = nest.location
    return merged


@dataclass
class SplitParts:
    workspaces: list[memref.AllocOp]
    partial: NestOp
    combine: NestOp

    def ops(self) -> list[Operation]:
        return [*self.workspaces, self.partial, self.combine]

    def erase(self) -> None:
        """Drop detached parts (the planner's), users first."""
        for op in reversed(self.ops()):
            op.erase()


def chunking(R: int, split: int, align: int = 1) -> tuple[int, int]:
    """(chunk length, number of chunks) of `R` points cut `split` ways, chunks a
    multiple of `align` long."""
    q = -(-R // split)
    q = min(R, -(-q // align) * align) if R else 0
    return q, (-(-R // q) if q else 0)


def split_nest(nest: NestOp, split: int, partials_last: bool, align: int = 1) -> SplitParts:
    """The parts of `nest` split `split` ways (see the module docstring), detached
    (`SplitParts.erase` drops them unused); `partials_last`: the workspace holds each
    output's partials innermost; `align`: chunks are a multiple of it long."""
    if split > nest.extents[nest.reduction_dims[0]]:
        whole = merge_reductions(nest)  # split_refusal allows up to all the points
        try:
            return split_nest(whole, split, partials_last, align)
        finally:
            whole.erase()
    E, n = nest.extents, len(nest.extents)
    d = nest.reduction_dims[0]
    R = E[d]
    q, npart = chunking(R, split, align)
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

    # the partial nest: s is a new dim at `sp` (just before d for rows, whose reduction
    # dims stay innermost; outermost for per-output, whose threads vectorise the
    # innermost parallel dim), the dims from sp on shift by one
    sp = d if partials_last else 0
    shift = [AffineDimExpr(i if i < sp else i + 1) for i in range(n)]
    chunked = list(shift)
    chunked[d] = AffineDimExpr(sp) * q + AffineDimExpr(d + 1)
    guard = (RaggedBound(d + 1, AffineExpr.constant(R - 1) - AffineDimExpr(sp) * q).to_set(n + 1)
             if npart * q != R else None)
    extents = list(E)
    extents[d] = q
    iterators = list(nest.iterators)
    extents.insert(sp, npart)
    iterators.insert(sp, Iterator.PARALLEL)
    partial = NestOp(
        nest.inputs, [w.memref for w in workspaces], extents, iterators,
        [*(m.replace_dims_and_symbols(chunked, [], n + 1, 0) for m in nest.input_maps),
         *(AffineMap(n + 1, 0, ws_index(m, shift, AffineDimExpr(sp))) for m in out_maps)],
        nest.combiner_kinds, nest.body.clone(), guard,
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
    for op in (partial, combine):
        op.location = nest.location
    return SplitParts(workspaces, partial, combine)


def partial_schedule(s: Schedule) -> Schedule:
    """The partial nest's schedule: the parent's kernel parameters, split = 1."""
    return Schedule(s.kind, {**{k: v for k, v in s.params.items() if k not in SUB_SCHEDULES and k != "est_ns"},
                             "split": 1})


def chunk_align(nest: NestOp, s: Schedule) -> int:
    """Chunks of a row a gpu.rows kernel reads in vectors start on whole vectors (rows
    reduce the innermost dims)."""
    n, red = len(nest.extents), nest.reduction_dims
    return int(s.get("vec", 1)) if s.kind == "gpu.rows" and red == tuple(range(n - len(red), n)) else 1


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
        combine = s.get("combine")
        if not isinstance(combine, Schedule):
            raise op_error(nest, f"{s.kind} split = {S} needs a `combine` schedule for its combine nest")
        parts = split_nest(nest, S, partials_last=s.kind == "gpu.rows", align=chunk_align(nest, s))
        cs = int(combine.get("split", 1))
        why = split_refusal(parts.combine, cs) if combine.kind in SPLIT_KINDS and cs > 1 else None
        if why is not None:  # said here: the combine nest has the parent's location
            parts.erase()
            raise op_error(nest, f"cannot split the combine nest of its split = {S} as its `combine` "
                                 f"schedule says: {why}")
        parts.combine.attributes[SCHEDULE_ATTR] = combine.to_attr()
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
    """Make each reduction whose schedule says split = S into its partial and
    combine nests (see the module docstring)."""

    name = "aicf-split-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split_reductions(op)
