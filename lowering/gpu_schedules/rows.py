"""The cooperative row-reduction schedule: reductions whose reduced dims are the
innermost ones (`sum(x, axis=-1)` and its fusions).

A row (one output point) is reduced by a warp (`mode=warp`, rows short) or a whole
block (`mode=block`, rows long); lanes stride through the row in vectors of `vec`
elements (16-byte loads when the row is contiguous), keeping `vec` independent
accumulators, then: fold the vector lanes in order -> warp shuffle butterfly
(`aicf_gpu.warp_reduce`) -> for blocks, one value per warp through shared memory
and a second warp reduce. Rows are covered by a grid-stride loop. When rows are few
and long (`mode=split`), aicf-split-reductions has made each row's chunks rows of a
partial nest of their own (a block each), the last one cut short by the nest's guard,
and a combine nest folds the partials in order: deterministic, no atomics.

`peel=1` (rows whose length the vector width does not divide, e.g. 3001 f32): each
row is read as a scalar head up to its first 16-byte boundary, aligned vectors, and
a scalar tail (peel.py); the head and tail elements go to the first lanes and fold
into their vector accumulators.
"""

from __future__ import annotations


from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from aicf.dialects import gpu
from aicf.dialects.schedule import Schedule

from .reduce_steps import block_totals, warp_totals
from .builder import KernelBuilder, combine, convert
from .context import LoweringContext
from .peel import row_head
from .per_output import body_lanes, linear_expr, load_lanes, _str
from .view import (
    annotate,
    guarded_length,
    NestView,
    Operand,
    element_bytes,
    identity_of,
    operand_bytes,
    prod,
    uses_64bit_index,
)


def applies(view: NestView) -> bool:
    red = view.reduction_dims
    n = len(view.extents)
    # matmul-shaped nests read one operand across rows: threads owning outputs
    # (per-output, or the tiled matmul) serve them better
    return bool(red) and red == list(range(n - len(red), n)) and not view.is_matmul_shaped()


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    n = len(view.extents)
    P, Rd = view.parallel_dims, view.reduction_dims
    E = view.extents
    Ep, Er = [E[d] for d in P], [E[d] for d in Rd]
    M, R = prod(Ep), prod(Er)
    if M == 0:
        return
    vec, mode, bs, grid, S = (s[k] for k in ("vec", "mode", "block", "grid", "split"))
    check_block(bs, S, s, lc)
    peel = bool(s.get("peel", 0))
    if not peel and Er[-1] % vec:  # a hand-written schedule; the planner peels these
        raise NotImplementedError(f"{s.kind} vec = {vec} does not divide the row's {Er[-1]} "
                                  "elements (peel = 1 folds the rest)")
    if peel and len(Er) != 1:  # a hand-written schedule; the planner peels one reduction dim
        raise NotImplementedError(f"{s.kind} peel = 1 takes one reduction dim, not {len(Er)} "
                                  "(they did not merge into one row)")
    bound = guarded_length(view, vec if not peel and len(Er) == 1 else 1)
    dim = n - 1
    Rg = R // vec  # peeled: the most aligned vectors a row holds
    ws = lc.target.warp_size
    wpb = bs // ws
    nout = len(view.outputs)
    out_ops = view.outputs
    grid_dims = [grid, 1, 1]
    params = [*view.inputs, *out_ops]
    wide = uses_64bit_index(view, extra=grid_dims[0] * bs * vec * 2)
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        grid_dims,
        [bs, 1, 1],
        index_bitwidth=64 if wide else 32,
        launch_bounds=(bs, s["minblocks"]),
    )
    kernel.attributes["aicf.schedule"] = _str(s.describe() + ("; " + "; ".join(view.notes) if view.notes else ""))
    annotate(kernel, view, params)
    kb = KernelBuilder(kernel.body.block)
    args = list(kernel.args)
    in_args, out_args = args[: len(view.inputs)], args[len(view.inputs) :]
    tid = kb.v(gpu.ThreadIdOp("x"))
    bid = kb.v(gpu.BlockIdOp("x"))
    lane = kb.v(gpu.LaneIdOp())
    warp = kb.div_i(tid, ws)
    if mode == "warp":
        row0, rstride, G, me = kb.add_i(kb.mul_i(bid, wpb), warp), grid * wpb, ws, lane
    else:
        row0, rstride, G, me = bid, grid_dims[0], bs, tid
    shared = []
    if mode != "warp":
        for at in view.acc_types:
            st = MemRefType(at, [ws], memory_space=gpu.shared_space())
            shared.append(kb.v(gpu.AllocSharedOp(st)))

    def row_body(row: SSAValue, _):
        pidx = kb.delinearize(row, Ep)
        dims: list[SSAValue | None] = [None] * n
        for i, d in enumerate(P):
            dims[d] = pidx[i]
        inits = []
        for o, at in enumerate(view.acc_types):
            inits += [kb.constant(identity_of(view.combiners[o], at), at)] * vec

        walkers = [o for o in view.inputs if dim in o.map.used_dims()]
        # a guarded row (a split's chunk) is `length` points long, known per row
        length = bound(kb, dims) if bound is not None else None
        head = row_head(kb, walkers[0], dims, dim, vec) if peel else None
        if head is not None and length is not None:
            head = kb.min_i(head, length)
        if head is not None:
            nvec = kb.div_i(kb.sub_i(length if length is not None else R, head), vec)
        elif length is not None:
            nvec = kb.mul_i(length, Rg // Er[0]) if len(Er) > 1 else kb.div_i(length, vec)
        else:
            nvec = kb.index(Rg)

        def rbody(j: SSAValue, accs: list[SSAValue]):
            if head is not None:
                ridx = [kb.add_i(head, kb.mul_i(j, vec))]  # peel_width: one reduced dim
            else:
                ridx = kb.delinearize(j, [*Er[:-1], Er[-1] // vec])
                ridx[-1] = kb.mul_i(ridx[-1], vec)
            dk = list(dims)
            for i, d in enumerate(Rd):
                dk[d] = ridx[i]
            vals = load_lanes(kb, view.inputs, in_args, dk, dim, vec, aligned=head is not None)
            ys = body_lanes(kb, view, vals, vec)
            return [
                combine(kb, view.combiners[o], accs[o * vec + k], ys[o][k])
                for o in range(nout)
                for k in range(vec)
            ]

        accs = kb.for_(me, nvec, G, inits, rbody, unroll=s["unroll"])
        if head is not None:
            tail0 = kb.add_i(head, kb.mul_i(nvec, vec))
            end = length if length is not None else R
            edges = [(head, kb.index(0), 0), (kb.sub_i(end, tail0), tail0, 1 % vec)]
            accs = fold_edges(dims, accs, edges)
        finals = warp_totals(kb, view.combiners, accs, vec, ws)
        if mode != "warp":
            finals = block_totals(
                kb, finals, shared[:nout], lane, warp, wpb, view.combiners, view.acc_types, ws
            )
            writer = kb.eq(tid, 0)
        else:
            writer = kb.eq(lane, 0)

        def write():
            for o in range(nout):
                op = out_ops[o]
                idx = [kb.affine(r, dims) for r in op.map.results]  # type: ignore[arg-type]
                kb.store(convert(kb, finals[o], op.type.get_element_type()), out_args[o], idx)
            return []

        kb.if_(writer, write)
        if mode != "warp":
            kb.add(gpu.BarrierOp())  # the shared slots are reused by the next row
        return []

    def fold_edges(dims, accs: list[SSAValue], edges) -> list[SSAValue]:
        """Lane `me` < count folds element start + me of the row into its accumulator
        `slot` (head and tail elements of a peeled row; a lane has at most one of each)."""
        accs = list(accs)
        for count, start, slot in edges:
            mine = [accs[o * vec + slot] for o in range(nout)]

            def then(start=start, mine=mine):
                dk = list(dims)
                dk[dim] = kb.add_i(start, me)
                ys = body_lanes(kb, view, load_lanes(kb, view.inputs, in_args, dk, dim, 1), 1)
                return [combine(kb, view.combiners[o], mine[o], ys[o][0]) for o in range(nout)]

            new = kb.if_(kb.lt(me, count), then, lambda mine=mine: mine, [a.type for a in mine])
            for o in range(nout):
                accs[o * vec + slot] = new[o]
        return accs

    kb.for_(row0, M, rstride, [], row_body)
    kb.add(gpu.ReturnOp())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])


def check_block(bs: int, S: int, s: Schedule, lc: LoweringContext) -> None:
    """What a hand-written schedule must satisfy for the kernel to be built as written:
    whole warps (the reductions shuffle across full warps), a block the GPU takes, and
    a split already made into nests (aicf-lower-to-gpu runs aicf-split-reductions)."""
    ws = lc.target.warp_size
    if bs % ws or bs > lc.target.max_threads_per_block:
        raise NotImplementedError(
            f"{s.kind} block = {bs}: a block must be a multiple of the warp size {ws} and at "
            f"most {lc.target.max_threads_per_block} threads"
        )
    if S > 1:
        raise NotImplementedError(f"{s.kind} split = {S}: run aicf-split-reductions first (the partial "
                                  "and combine nests are lowered, not the split nest)")
