"""The thread-owns-outputs schedule: elementwise nests, reductions over outer axes,
and (until the tiled matmul lands) matmul-shaped nests.

Each thread owns a group of `vec` consecutive points of the innermost parallel dim
(one 16-byte vector where the operands allow) and walks the whole reduction space
for them, if any; threads cover the groups in a grid-stride loop, so the grid is
sized to the GPU (resident blocks), not to the problem. Consecutive threads own
consecutive groups: accesses are coalesced whenever the innermost parallel dim is
the contiguous one. A 1-D elementwise domain that does not divide by `vec` gets a
scalar tail loop.

When there are few output groups and a long reduction, the planner splits it:
aicf-split-reductions makes a partial nest whose outputs are [chunk, outputs] (its last
chunk cut short by the nest's guard: each thread walks min(extent, bound + 1) points)
and a combine nest that folds them in a fixed order: deterministic, no atomics. The
planner runs the partial with `outer_grid = 1`: its chunks on blockIdx.y, each
block's threads on outputs of one chunk (few outputs spread over many SMs).
(`split_workspaces` and `combine_view` are the same split inside the wgmma kernel's
split-K.)
"""

from __future__ import annotations


from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from aicf.dialects import gpu
from aicf.dialects.affine_intervals import linear_form
from aicf.dialects.schedule import Schedule
from aicf.math_precision import APPROX, mark_approximate

from .builder import KernelBuilder, combine, convert
from .context import LoweringContext
from .view import (
    guarded_length,
    annotate,
    SPLAT,
    VECTOR,
    NestView,
    Operand,
    access_class,
    element_bytes,
    identity_of,
    operand_bytes,
    prod,
    renumber_map,
    uses_64bit_index,
)


def guard_reads(view: NestView, dim: int) -> bool:
    """The nest's guard bounds its reduction by `dim`: the lanes of one vector along
    `dim` would each need a bound of their own."""
    return view.bound is not None and dim in linear_form(view.bound.bound)[0]  # type: ignore[index]


def vector_width(view: NestView, dim: int, max_bytes: int, allow_tail: bool, partials: bool = True) -> int:
    """Widest vector (elements) along domain dim `dim`: max_bytes over the widest
    element among the operands that walk dim, halved until the extent divides (or a
    tail loop is allowed) and some operand gets a vector access. Accumulators count
    when `dim` is a parallel dim and `partials` are stored (a split's partials are
    stored as vectors of them); along a reduction dim they are folded to one value in
    registers, so an f32 accumulator does not halve the 16-byte loads of an f16 row."""
    walkers = [o for o in view.operands if dim in o.map.used_dims()]
    if not walkers or guard_reads(view, dim):
        return 1
    eb = max(element_bytes(o.type.get_element_type()) for o in walkers)
    if dim not in view.reduction_dims and partials:
        eb = max([eb, *(element_bytes(t) for t in view.acc_types)])
    v = max(1, max_bytes // eb)
    ext = view.extents[dim]
    while v > 1:
        ok_extent = allow_tail or ext % v == 0
        classes = [access_class(o, dim, v) for o in view.operands]
        outs_ok = dim in view.reduction_dims or all(
            access_class(o, dim, v) != SPLAT for o in view.outputs
        )
        if ok_extent and outs_ok and VECTOR in classes and ext >= v:
            return v
        v //= 2
    return 1


def load_lanes(
    kb: KernelBuilder,
    ops: list[Operand],
    args: list[SSAValue],
    dims: list[SSAValue | None],
    dim: int | None,
    vec: int,
    aligned: bool = False,
) -> list[list[SSAValue]]:
    """Per input, `vec` scalars: the points dims, dims+1, ... along `dim`. `aligned`:
    the caller puts dims[dim] where every walking input is vec-aligned (a peeled row),
    so each gets one vector load."""
    out = []
    for o, a in zip(ops, args):
        cls = access_class(o, dim, vec) if dim is not None else SPLAT
        if aligned and cls != SPLAT:
            cls = VECTOR
        if vec == 1 or cls == SPLAT:
            idx = [kb.affine(r, dims) for r in o.map.results]  # type: ignore[arg-type]
            x = kb.load(a, idx)
            out.append([x] * vec)
        elif cls == VECTOR:
            idx = [kb.affine(r, dims) for r in o.map.results]  # type: ignore[arg-type]
            v = kb.load_vector(a, idx, vec)
            out.append([kb.extract(v, k) for k in range(vec)])
        else:
            lanes = []
            for k in range(vec):
                dk = list(dims)
                dk[dim] = kb.add_i(dims[dim], k)  # type: ignore[arg-type]
                idx = [kb.affine(r, dk) for r in o.map.results]  # type: ignore[arg-type]
                lanes.append(kb.load(a, idx))
            out.append(lanes)
    return out


def store_lanes(
    kb: KernelBuilder,
    o: Operand,
    a: SSAValue,
    dims: list[SSAValue | None],
    dim: int | None,
    values: list[SSAValue],
) -> None:
    vec = len(values)
    elt = o.type.get_element_type()
    values = [convert(kb, v, elt) for v in values]
    cls = access_class(o, dim, vec) if dim is not None else SPLAT
    if vec == 1 or cls == SPLAT:
        idx = [kb.affine(r, dims) for r in o.map.results]  # type: ignore[arg-type]
        kb.store(values[0], a, idx)
    elif cls == VECTOR:
        idx = [kb.affine(r, dims) for r in o.map.results]  # type: ignore[arg-type]
        kb.store_vector(kb.pack(values), a, idx)
    else:
        for k in range(vec):
            dk = list(dims)
            dk[dim] = kb.add_i(dims[dim], k)  # type: ignore[arg-type]
            idx = [kb.affine(r, dk) for r in o.map.results]  # type: ignore[arg-type]
            kb.store(values[k], a, idx)


def body_lanes(kb: KernelBuilder, view: NestView, vals: list[list[SSAValue]], vec: int) -> list[list[SSAValue]]:
    """ys[output][lane]"""
    per_lane = [view.body(kb, [v[k] for v in vals]) for k in range(vec)]
    return [[per_lane[k][o] for k in range(vec)] for o in range(len(view.outputs))]


def linear_expr(dims: list[int], extents: list[int]) -> AffineExpr:
    expr: AffineExpr = AffineConstantExpr(0)
    stride = 1
    for d, e in zip(reversed(dims), reversed(extents)):
        expr = AffineDimExpr(d) * stride + expr
        stride *= e
    return expr


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    P, Rd = view.parallel_dims, view.reduction_dims
    n = len(view.extents)
    E = view.extents
    Ep = [E[d] for d in P]
    Er = [E[d] for d in Rd]
    vec, bs, grid, S = s["vec"], s["block"], s["grid"], s["split"]
    K = s.get("slices", 1)
    if bs > lc.target.max_threads_per_block:
        raise NotImplementedError(f"gpu.per_output block = {bs} > {lc.target.max_threads_per_block} threads")
    if S > 1:
        raise NotImplementedError(f"gpu.per_output split = {S}: run aicf-split-reductions first (the "
                                  "partial and combine nests are lowered, not the split nest)")
    Mp, R = prod(Ep), prod(Er)
    if Mp == 0:
        return  # nothing to write
    dim = P[-1] if P else None
    tail = len(P) == 1 and not Rd and vec > 1 and Ep[0] % vec != 0
    if vec > 1 and (not P or (Ep[-1] % vec and not tail)):  # a hand-written schedule
        raise NotImplementedError(
            f"gpu.per_output vec = {vec} must divide the innermost parallel extent "
            f"({Ep[-1] if P else 'none'}; a tail is built for one parallel dim without reduction only)")
    groups = Mp // vec
    # outer_grid: blockIdx.y runs the outermost parallel dim (a split's chunks, as
    # CUTLASS's split-k slices), blockIdx.x and the threads the groups of one value of it
    outer = bool(s.get("outer_grid", 0))
    if outer and (len(P) < 2 and vec > 1 or not P or Ep[0] > lc.target.max_grid_y):
        raise NotImplementedError(
            f"gpu.per_output outer_grid = 1 needs an outermost parallel dim of at most "
            f"{lc.target.max_grid_y} that the vectors (vec = {vec}) do not run along")
    inner_groups = groups // Ep[0] if outer else groups
    if K > 1 and not slices_fit(K, bs, bool(Rd)):
        raise NotImplementedError(f"gpu.per_output slices = {K} must be a power of two dividing block = {bs}, "
                                  "on a reduction")
    fold = bs * vec * sum(element_bytes(t) for t in view.acc_types)
    if K > 1 and fold > lc.target.smem_per_block_default:
        raise NotImplementedError(f"gpu.per_output slices: the fold's {fold} bytes of shared memory (block x vec x "
                                  f"accumulator bytes) exceed the {lc.target.smem_per_block_default} a block holds "
                                  "statically")

    bound = guarded_length(view)
    if bound is not None and vec > 1 and guard_reads(view, dim):  # type: ignore[arg-type]
        raise NotImplementedError(f"gpu.per_output vec = {vec}: the guard's bound reads d{dim}, "
                                  "which a thread's lanes do not share")
    out_ops = view.outputs
    params = [*view.inputs, *out_ops]
    wide = uses_64bit_index(view, extra=grid * bs * vec * 2)
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        [grid, Ep[0] if outer else 1, 1],
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
    start = kb.add_i(kb.mul_i(bid, bs), tid)
    stride = grid * bs
    base = kb.mul_i(kb.v(gpu.BlockIdOp("y")), inner_groups) if outer else None

    def point_dims(pidx: list[SSAValue]) -> list[SSAValue | None]:
        dims: list[SSAValue | None] = [None] * n
        for i, d in enumerate(P):
            dims[d] = pidx[i]
        return dims

    def compute(dims: list[SSAValue | None], v: int, first=None, step: int = 1) -> list[list[SSAValue]]:
        if not Rd:
            vals = load_lanes(kb, view.inputs, in_args, dims, dim, v)
            return body_lanes(kb, view, vals, v)
        inits = []
        for o, t in enumerate(view.acc_types):
            ident = kb.constant(identity_of(view.combiners[o], t), t)
            inits += [ident] * v

        def rbody(r: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            ridx = kb.delinearize(r, Er)
            dk = list(dims)
            for i, d in enumerate(Rd):
                dk[d] = ridx[i]
            vals = load_lanes(kb, view.inputs, in_args, dk, dim, v)
            ys = body_lanes(kb, view, vals, v)
            new = []
            for o in range(len(view.outputs)):
                for k in range(v):
                    new.append(combine(kb, view.combiners[o], accs[o * v + k], ys[o][k]))
            return new

        lo, hi = kb.index(0), kb.index(R)
        if bound is not None:  # the guarded dim is the outermost reduction dim
            hi = kb.mul_i(bound(kb, dims), R // Er[0])
        if first is not None:
            lo = kb.add_i(lo, first)
        accs = kb.for_(lo, hi, step, inits, rbody, unroll=s["unroll"])
        return [[accs[o * v + k] for k in range(v)] for o in range(len(view.outputs))]

    def group_dims(g: SSAValue) -> list[SSAValue | None]:
        if P:
            pidx = kb.delinearize(g, [*Ep[:-1], Ep[-1] // vec])
            pidx[-1] = kb.mul_i(pidx[-1], vec)
        else:
            pidx = []
        return point_dims(pidx)

    def group_body(g: SSAValue, _):
        store_group(g, compute(group_dims(g), vec))
        return []

    def store_group(g: SSAValue, lanes: list[list[SSAValue]]) -> None:
        dims = group_dims(g)
        for o, (op, a) in enumerate(zip(out_ops, out_args)):
            store_lanes(kb, op, a, dims, dim, lanes[o])

    if K > 1:
        sliced_tiles(kb, view, s, K, lambda g, first, step: compute(group_dims(g), vec, first, step), store_group,
                     inner_groups, base)
    if outer and (not Rd or tail):
        raise NotImplementedError("gpu.per_output outer_grid = 1 runs reductions only")
    U = s["unroll"] if not Rd else 1
    rest_from = start
    if U > 1:
        # chunks of bs*U groups, the block's threads take groups tid, tid+bs, ...: each
        # of the U loads is coalesced across the warp, and all U are issued before the
        # math (loads first), so a thread waits once per chunk with U vectors in flight
        chunk = bs * U
        full = groups // chunk

        def chunk_body(c: SSAValue, _):
            base = kb.add_i(kb.mul_i(c, chunk), tid)
            dims_k, vals_k = [], []
            for k in range(U):
                g = kb.add_i(base, k * bs)
                pidx = kb.delinearize(g, [*Ep[:-1], Ep[-1] // vec])
                pidx[-1] = kb.mul_i(pidx[-1], vec)
                dims_k.append(point_dims(pidx))
                vals_k.append(load_lanes(kb, view.inputs, in_args, dims_k[-1], dim, vec))
            for k in range(U):
                lanes = body_lanes(kb, view, vals_k[k], vec)
                for o, (op, a) in enumerate(zip(out_ops, out_args)):
                    store_lanes(kb, op, a, dims_k[k], dim, lanes[o])
            return []

        if full > 0:
            kb.for_(bid, full, grid, [], chunk_body)
        rest_from = kb.add_i(start, full * chunk)
    if K == 1 and outer:
        kb.for_(start, inner_groups, stride, [], lambda g, acc: group_body(kb.add_i(base, g), acc))  # type: ignore[arg-type]
    elif K == 1 and (U == 1 or groups % (bs * U)):
        kb.for_(rest_from, groups, stride, [], group_body)
    if tail:

        def tail_body(e: SSAValue, _):
            dims = point_dims([e])
            lanes = compute(dims, 1)
            for o, (op, a) in enumerate(zip(out_ops, out_args)):
                store_lanes(kb, op, a, dims, dim, lanes[o])
            return []

        kb.for_(kb.add_i(start, groups * vec), Mp, stride, [], tail_body)
    kb.add(gpu.ReturnOp())
    if s.get("math") == APPROX:
        mark_approximate(kernel.walk())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])


def slices_fit(K: int, block: int, reduces: bool) -> bool:
    """Whether `slices` = K can be built: a reduction, K a power of two dividing the
    block."""
    return reduces and K & (K - 1) == 0 and block % K == 0


def sliced_tiles(kb: KernelBuilder, view: NestView, s: Schedule, K: int, group_lanes, store,
                 groups: int | None = None, base: SSAValue | None = None) -> None:
    """The reduction of `slices` = K > 1: a block owns tiles of Gb = block / K
    consecutive output vectors; thread t takes vector t % Gb of the tile and reduction
    points t / Gb, t / Gb + K, ... (`group_lanes(g, first, step)`: its accumulators).
    The K partials of a vector meet in shared memory and fold pairwise (K/2, K/4, ...
    threads, a barrier between steps: a fixed order), and slice 0 stores them
    (`store(g, lanes)`). Tiles are taken grid-stride; in the last, threads past the
    output vectors fold identities (every thread reaches every barrier) and store
    nothing."""
    bs, grid, vec = s["block"], s["grid"], s["vec"]
    Gb = bs // K
    nout = len(view.outputs)
    if groups is None:  # else: the groups of one blockIdx.y slice, from `base` on
        groups = prod(view.extents[d] for d in view.parallel_dims) // vec
    ntiles = -(-groups // Gb)
    ragged = groups % Gb != 0
    tid = kb.v(gpu.ThreadIdOp("x"))
    bid = kb.v(gpu.BlockIdOp("x"))
    gl, ks = kb.rem_i(tid, Gb), kb.div_i(tid, Gb)
    # one row of Gb * vec partials per slice and output: slice ks's values at row ks
    bufs = [kb.v(gpu.AllocSharedOp(MemRefType(t, [K * Gb * vec], memory_space=gpu.shared_space())))
            for t in view.acc_types]

    def slot(row: SSAValue, k: int) -> list[SSAValue]:
        return [kb.add_i(kb.mul_i(row, Gb * vec), kb.add_i(kb.mul_i(gl, vec), k))]

    def tile_body(tile: SSAValue, _):
        gi = kb.add_i(kb.mul_i(tile, Gb), gl)
        g = kb.add_i(base, gi) if base is not None else gi
        if ragged:
            inside = kb.lt(gi, groups)
            idents = [kb.constant(identity_of(view.combiners[o], t), t)
                      for o, t in enumerate(view.acc_types) for _ in range(vec)]

            def mine():
                lanes = group_lanes(g, ks, K)
                return [lanes[o][k] for o in range(nout) for k in range(vec)]

            accs = kb.if_(inside, mine, lambda: idents, [a.type for a in idents])
        else:
            lanes = group_lanes(g, ks, K)
            accs = [lanes[o][k] for o in range(nout) for k in range(vec)]
        h = K // 2
        while h >= 1:
            if h == K // 2:
                for o in range(nout):
                    for k in range(vec):
                        kb.store(accs[o * vec + k], bufs[o], slot(ks, k))
            kb.add(gpu.BarrierOp())

            def fold(h=h, accs=accs):
                other = kb.add_i(ks, h)
                new = [combine(kb, view.combiners[o], accs[o * vec + k], kb.load(bufs[o], slot(other, k)))
                       for o in range(nout) for k in range(vec)]
                if h > 1:
                    for o in range(nout):
                        for k in range(vec):
                            kb.store(new[o * vec + k], bufs[o], slot(ks, k))
                return new

            accs = kb.if_(kb.lt(ks, h), fold, lambda accs=accs: accs, [a.type for a in accs])
            h //= 2

        def write():
            store(g, [[accs[o * vec + k] for k in range(vec)] for o in range(nout)])
            return []

        writer = kb.eq(ks, 0)
        if ragged:
            writer = kb.v(arith.AndIOp(writer, inside))
        kb.if_(writer, write)
        kb.add(gpu.BarrierOp())  # the slots are written again by the next tile
        return []

    kb.for_(bid, ntiles, grid, [], tile_body)


def split_workspaces(view: NestView, S: int) -> list[Operand]:
    """The partials of a split reduction: [split, outputs] per accumulator (no host
    value: the builder allocates them, the planner only needs their types)."""
    Mp = prod(view.extents[d] for d in view.parallel_dims)
    ident = AffineMap(2, 0, (AffineDimExpr(0), AffineDimExpr(1)))
    return [Operand(None, MemRefType(t, [S, Mp]), ident) for t in view.acc_types]  # type: ignore[arg-type]


def combine_view(view: NestView, S: int, ws_ops: list[Operand]) -> NestView:
    """The second pass of a split reduction: combine the `split` partials of each
    output, in order (the planner schedules it; the builder lowers it)."""
    P = view.parallel_dims
    n = len(view.extents)
    Ep = [view.extents[d] for d in P]
    nd = 1 + len(P)
    new_dims: list[AffineExpr] = [AffineConstantExpr(0)] * n
    for i, d in enumerate(P):
        new_dims[d] = AffineDimExpr(i + 1)
    lin = linear_expr(list(range(1, nd)), Ep)
    ins = [Operand(w.host, w.type, AffineMap(nd, 0, (AffineDimExpr(0), lin))) for w in ws_ops]
    outs = [Operand(o.host, o.type, renumber_map(o.map, new_dims, nd)) for o in view.outputs]
    return NestView(
        name=view.name + "_combine",
        extents=(S, *Ep),
        iterators=("reduction", *(["parallel"] * len(P))),
        inputs=ins,
        outputs=outs,
        combiners=view.combiners,
        acc_types=list(view.acc_types),
        body=lambda kb, xs: list(xs),
        notes=[f"second pass over {S} partials"],
    )


def _str(s: str):
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(s)
