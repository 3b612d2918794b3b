"""The row-group schedule: one kernel for an `aicf_loop.group` (softmax, layer norm).

A group's member nests share their leading parallel dims (`shared`, the rows); the
rest of each nest's domain is a row: reduced (`max(x)`, `sum(exp(x - m))`), mapped
(`exp(x - m) / s`, written out) or absent (a per-row epilogue). The kernel runs the
whole group once per row, the members as phases:

- a block (`mode=block`) or a warp (`mode=warp`, short rows) owns a row; rows are
  covered by a grid-stride loop;
- lanes walk the row in vectors of `vec` elements (16-byte loads/stores where the
  operand is contiguous), column group g = c * lanes + lane;
- a reduction phase folds its vector lanes, then `aicf_gpu.warp_reduce` (butterfly:
  every lane gets the value), and for blocks one value per warp through a 32-slot
  shared buffer, a barrier, and a second warp reduce, so every thread holds the row's
  value; each reduction phase has its own slots, so one barrier per phase suffices
  (a group with a single reduction phase adds one at the end of the row);
- group-local buffers (one value per row) never touch memory: they are SSA values
  held by every thread; a group output written by a reduction phase is stored by one
  lane and also kept as a value for the later phases;
- `rows=registers`: when a lane's share of the row fits the register budget, each
  lane's `per` vectors of every row operand are loaded once (straight-line, all loads
  in flight together) and reused by every phase, so x is read from DRAM once; when
  the row does not divide evenly among the lanes (1000 f32 = 250 float4 over 256
  lanes) the last vector is guarded: lanes past the row load the row's last vector
  (a valid address), leave their accumulators as they were and store nothing;
  else `rows=stream`: each phase re-reads its row operands in a strided loop
  (the row was just read: L2 hits).

Parameters (mode, block, grid, caching, launch, pipeline) come from `plan_row_group`
below, over the numbers of aicf/target.py with the helpers of cost.py:

    mem  = dram_bytes / (bandwidth * occupancy * lane_efficiency * stride_eff)
         + reread_bytes / l2_bandwidth                 (stream mode: phases 2..n)
    red  = rows * reduction_phases * step_cycles / clock / concurrent_rows
    time = max(mem, red) if overlapped else mem + red
         + blocks * BLOCK_START_CYCLES / clock / resident_blocks   (launch=once)
         + launch_overhead

occupancy (Little's law, cost.occupancy) counts resident threads, limited by the
registers the cached row needs (REGS_BASE + cached values per thread, twice that when
pipelined), times the bytes each keeps in flight (all its cached vectors in register
mode, UNROLL vectors streaming). stride_eff is cost.STRIDE_DRAM_EFFICIENCY for a
grid-stride loop over the rows (launch=stride, more than one wave) and 1 for one row
(block mode) or one block of warp rows per block (launch=once). The reductions
overlap the memory stream (`overlapped`) when at least two rows per SM are resident
or the loop is pipelined (pipeline=1: the loop carries the row's cached vectors and
issues the next row's loads before this row's reductions and stores).

Measured on the H100 (bench/row_group_variants.py, since replaced by bench/calibrate.py; bench/NOTES.md): softmax 8192^2
0.201 ms with the grid-stride loop, 0.200 pipelined, 0.186 with one row per block
(launch=once, now picked); layer norm 16384x4096 0.196-0.200 / 0.196 / 0.184.

Groups this schedule does not take (rows not contiguous in a row operand, e.g. a
column softmax; members of different row shapes; a full-size intermediate passed
between members) are run as their member nests, one kernel each, by the caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from aicf.dialects import gpu
from aicf.dialects.loop import GroupOp
from aicf.dialects.schedule import Schedule
from aicf.math_precision import APPROX, mark_approximate
from aicf.target import GpuTarget

from .reduce_steps import block_totals, warp_totals
from .builder import KernelBuilder, combine, convert
from .context import LoweringContext
from .per_output import body_lanes, store_lanes, vector_width
from .view import (
    SPLAT,
    VECTOR,
    NestView,
    Operand,
    access_class,
    body_flops,
    element_bytes,
    identity_of,
    is_contiguous,
    maps_fit_int32,
    num_elements,
    prod,
    view_of,
)

REDUCE, MAP, ROW = "reduce", "map", "row"
BLOCKS = (128, 256, 512, 1024)
# "stride": the resident blocks loop over the rows; "once": one row (block mode) or one
# block of warp rows per block, no loop
LAUNCHES = ("stride", "once")


@dataclass
class Member:
    view: NestView
    kind: str  # REDUCE (rest dims reduced), MAP (rest dims parallel), ROW (no rest dims)


@dataclass
class GroupView:
    """What the schedule sees of a group: its members as NestViews, the kernel
    parameters (global buffers, inputs first), and the row geometry."""

    name: str
    group: GroupOp
    shared: tuple[int, ...]
    rest: tuple[int, ...]  # extents of the non-shared dims (common to REDUCE/MAP members)
    members: list[Member]
    params: list[SSAValue]  # global buffers, in order of first use
    written: set[SSAValue]
    vec: int
    cached: int  # row operands (buffer, map) whose vectors a lane may keep
    notes: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return prod(self.shared)

    @property
    def row_len(self) -> int:
        return prod(self.rest)


def _key(m: AffineMap) -> tuple[str, ...]:
    return tuple(str(r) for r in m.results)


def analyze(group: GroupOp, name: str) -> GroupView | str:
    """The GroupView, or why the group is not run as one kernel."""
    shared = group.shared_extents
    k = len(shared)
    local = {op.memref for op in group.body.block.ops if isinstance(op, memref.AllocOp)}
    members: list[Member] = []
    params: list[SSAValue] = []
    written: set[SSAValue] = set()
    row_values: set[tuple[SSAValue, tuple[str, ...]]] = set()
    rest: tuple[int, ...] | None = None
    for i, nest in enumerate(group.nests):
        v = view_of(nest, f"{name}_m{i}")
        its = v.iterators[k:]
        if not its:
            kind = ROW
        elif all(t == "reduction" for t in its):
            kind = REDUCE
        elif all(t == "parallel" for t in its):
            kind = MAP
        else:
            return "a member nest mixes parallel and reduction dims in its rows"
        if kind != ROW:
            r = tuple(v.extents[k:])
            if rest is not None and r != rest:
                return f"member rows differ ({list(rest)} and {list(r)})"
            rest = r
        rest_dims = set(range(k, len(v.extents)))
        for o in v.inputs:
            buf = o.host
            if buf in local or buf in written:
                if (buf, _key(o.map)) not in row_values:
                    return "a member reads a buffer written in the group other than as a row value"
                continue
            if buf not in params:
                params.append(buf)
            if o.map.used_dims() & rest_dims and rest_dims and not _row_contiguous(o, k):
                return f"rows are not contiguous in an operand {o.type} (map {o.map})"
        for o in v.outputs:
            buf = o.host
            if kind == MAP:
                if buf in local or not rest_dims <= o.map.used_dims():
                    return "a mapped member writes a value per row"
                if buf in written:
                    return "a buffer is written twice in the group"
                if not _row_contiguous(o, k):
                    return f"rows are not contiguous in an output {o.type} (map {o.map})"
            else:
                row_values.add((buf, _key(o.map)))
            if buf not in local:
                if buf in params:
                    return "a group output is also read before it is written"
                params.append(buf)
                written.add(buf)
        members.append(Member(v, kind))
    if rest is None:
        return "no member walks a row"
    # every MAP output read later? (excluded above: only row values are read back)
    ins = [p for p in params if p not in written]
    outs = [p for p in params if p in written]
    vec = 16
    cached: set[tuple[SSAValue, tuple[str, ...]]] = set()
    for m in members:
        if m.kind == ROW:
            continue
        last = len(m.view.extents) - 1
        vec = min(vec, vector_width(m.view, last, 16, allow_tail=False))
        for o in m.view.inputs:
            if o.host not in local and o.host not in written and o.map.used_dims() & set(range(k, last + 1)):
                cached.add((o.host, _key(o.map)))
    return GroupView(name, group, shared, rest, members, [*ins, *outs], written, vec, len(cached))


def _row_contiguous(o: Operand, k: int) -> bool:
    """The operand's innermost index walks the last domain dim with stride 1 (rows
    are read along memory), or the operand does not depend on the last dim."""
    n = o.map.num_dims
    if n == k or (n - 1) not in o.map.used_dims():
        return True
    last = o.map.results[-1] if o.map.results else None
    return (
        is_contiguous(o.type)
        and isinstance(last, AffineDimExpr)
        and last.position == n - 1
        and all((n - 1) not in r.used_dims() for r in o.map.results[:-1])
    )


# --- building the kernel -----------------------------------------------------------------


def build(gv: GroupView, s: Schedule, lc: LoweringContext) -> None:
    M = gv.rows
    if M == 0 or gv.row_len == 0:
        return
    mode, bs, grid, vec, in_regs, per = (
        s["mode"], s["block"], s["grid"], s["vec"], s["rows"] == "registers", s["per"],
    )
    pipeline = bool(s["pipeline"]) and in_regs
    if bs % lc.target.warp_size or bs > lc.target.max_threads_per_block:
        raise NotImplementedError(
            f"gpu.row_group block = {bs}: a block must be a multiple of the warp size "
            f"{lc.target.warp_size} and at most {lc.target.max_threads_per_block} threads"
        )
    k = len(gv.shared)
    rest = gv.rest
    Ng = gv.row_len // vec
    ws = lc.target.warp_size
    wpb = bs // ws
    lanes = ws if mode == "warp" else bs
    if gv.row_len % vec:  # a hand-written schedule (the planner's vec divides the row)
        raise NotImplementedError(f"gpu.row_group vec = {vec} does not divide the rows of {gv.row_len} elements")
    if in_regs and per * lanes < Ng:
        raise NotImplementedError(f"gpu.row_group rows = registers, per = {per}: {lanes} lanes hold {per * lanes} "
                                  f"of a row's {Ng} vectors")
    types = [v.type for v in gv.params]
    biggest = max([M * gv.row_len, *(num_elements(t) for t in types)])  # type: ignore[arg-type]
    wide = biggest + grid * bs * vec * 2 >= 2**31 or not maps_fit_int32([m.view for m in gv.members])
    kernel = gpu.KernelOp(
        lc.kernel_name(gv.name),
        types,
        [grid, 1, 1],
        [bs, 1, 1],
        index_bitwidth=64 if wide else 32,
        # the plan's register estimate decides the blocks per SM it counted on
        launch_bounds=(bs, s["bps"]),
    )
    kernel.attributes["aicf.schedule"] = StringAttr(
        s.describe() + f"; {len(gv.members)} phases over rows of {list(rest)}"
        + ("; " + "; ".join(gv.notes) if gv.notes else "")
    )
    nbytes = sum(num_elements(t) * element_bytes(t.get_element_type()) for t in types)  # type: ignore[union-attr]
    flops = sum(m.view.num_points() * body_flops(m.view) for m in gv.members)
    kernel.attributes["aicf.bytes"] = IntegerAttr(nbytes, i64)
    kernel.attributes["aicf.flops"] = IntegerAttr(flops, i64)
    args = list(kernel.body.block.args)
    arg_of = dict(zip(gv.params, args))
    for a, v in zip(args, gv.params):
        if v.name_hint:
            a.name_hint = v.name_hint

    kb = KernelBuilder(kernel.body.block)
    tid = kb.v(gpu.ThreadIdOp("x"))
    bid = kb.v(gpu.BlockIdOp("x"))
    lane = kb.v(gpu.LaneIdOp())
    warp = kb.div_i(tid, ws)
    if mode == "warp":
        row0, rstride, me = kb.add_i(kb.mul_i(bid, wpb), warp), grid * wpb, lane
        writer = kb.eq(lane, 0)
    else:
        row0, rstride, me = bid, grid, tid
        writer = kb.eq(tid, 0)
    # one set of 32 slots per reduction phase and output
    slots: dict[tuple[int, int], SSAValue] = {}
    if mode == "block":
        for i, m in enumerate(gv.members):
            if m.kind == REDUCE:
                for o, at in enumerate(m.view.acc_types):
                    st = MemRefType(at, [ws], memory_space=gpu.shared_space())
                    slots[(i, o)] = kb.v(gpu.AllocSharedOp(st))
    nphases = sum(1 for m in gv.members if m.kind == REDUCE)

    ragged = in_regs and per * lanes > Ng  # the last of a lane's vectors may be past the row

    def chunk(c: int) -> tuple[SSAValue, SSAValue | None]:
        """Lane `me`'s column group of its vector `c` (clamped into the row) and, for
        the guarded last vector of a ragged row, whether it lies in the row."""
        g = kb.add_i(me, c * lanes)
        if not ragged or c < per - 1:
            return g, None
        return kb.min_i(g, Ng - 1), kb.lt(g, Ng)

    def column_dims(sidx: list[SSAValue], g: SSAValue) -> list[SSAValue]:
        ridx = kb.delinearize(g, [*rest[:-1], rest[-1] // vec])
        ridx[-1] = kb.mul_i(ridx[-1], vec)
        return [*sidx, *ridx]

    def walks_row(v: NestView, o: Operand) -> bool:
        return bool(o.map.used_dims() & set(range(k, len(v.extents))))

    def load_lanes(v: NestView, o: Operand, dims: list[SSAValue], walks: bool) -> list[SSAValue]:
        """The operand's `vec` lanes at `dims`: one vector load where it is contiguous."""
        last = len(v.extents) - 1
        a = arg_of[o.host]
        cls = access_class(o, last, vec) if walks else SPLAT
        idx = [kb.affine(r, dims) for r in o.map.results]  # type: ignore[arg-type]
        if vec == 1 or cls == SPLAT:
            x = kb.load(a, idx)
            return [x] * vec
        if cls == VECTOR:
            vv = kb.load_vector(a, idx, vec)
            return [kb.extract(vv, j) for j in range(vec)]
        lanes_ = []
        for j in range(vec):
            dj = list(dims)
            dj[last] = kb.add_i(dims[last], j)  # type: ignore[arg-type]
            lanes_.append(kb.load(a, [kb.affine(r, dj) for r in o.map.results]))  # type: ignore[arg-type]
        return lanes_

    def row_loads(row: SSAValue) -> dict[tuple, list[SSAValue]]:
        """Every cached vector of `row` (rows=registers), all loads issued together: the
        pipelined loop issues the next row's before this row's reductions and stores."""
        sidx = kb.delinearize(row, list(gv.shared))
        out: dict[tuple, list[SSAValue]] = {}
        for m in gv.members:
            if m.kind == ROW:
                continue
            for o in m.view.inputs:
                if o.host not in arg_of or o.host in gv.written or not walks_row(m.view, o):
                    continue  # row values, group-local buffers, per-row operands
                for c in range(per):
                    ck = (o.host, _key(o.map), c)
                    if ck not in out:
                        out[ck] = load_lanes(m.view, o, column_dims(sidx, chunk(c)[0]), True)
        return out

    def row_body(row: SSAValue, pre: dict[tuple, list[SSAValue]]):
        sidx = kb.delinearize(row, list(gv.shared))
        row_vals: dict[tuple[SSAValue, tuple[str, ...]], SSAValue] = {}
        cache: dict[tuple, list[SSAValue]] = dict(pre)

        def inputs(v: NestView, dims: list[SSAValue | None], c) -> list[list[SSAValue]]:
            """Per input, `vec` lanes: row values, cached vectors, or loads."""
            out = []
            for o in v.inputs:
                key = (o.host, _key(o.map))
                if key in row_vals:
                    out.append([row_vals[key]] * vec)
                    continue
                walks = walks_row(v, o)
                ck = (*key, c if walks else None)
                if ck in cache:
                    out.append(cache[ck])
                    continue
                lanes_ = load_lanes(v, o, dims, walks)  # type: ignore[arg-type]
                if in_regs or not walks:
                    cache[ck] = lanes_
                out.append(lanes_)
            return out

        def store_row_values(i: int, v: NestView, finals: list[SSAValue]) -> None:
            todo = []
            for o, op in enumerate(v.outputs):
                row_vals[(op.host, _key(op.map))] = finals[o]
                if op.host in gv.written:
                    todo.append((op, finals[o]))
            if todo:

                def write():
                    for op, val in todo:
                        idx = [kb.affine(r, sidx) for r in op.map.results]
                        kb.store(convert(kb, val, op.type.get_element_type()), arg_of[op.host], idx)
                    return []

                kb.if_(writer, write)

        for i, m in enumerate(gv.members):
            v = m.view
            nout = len(v.outputs)
            if m.kind == ROW:
                vals = inputs(v, list(sidx), None)
                ys = v.body(kb, [x[0] for x in vals])
                store_row_values(i, v, ys)
                continue
            if m.kind == MAP:

                def map_chunk(g: SSAValue, c, valid: SSAValue | None = None) -> None:
                    dims = column_dims(sidx, g)
                    ys = body_lanes(kb, v, inputs(v, dims, c), vec)  # noqa: B023

                    def stores():
                        for o, op in enumerate(v.outputs):  # noqa: B023
                            store_lanes(kb, op, arg_of[op.host], dims, len(dims) - 1, ys[o])
                        return []

                    # computed outside the guard: the loads it caches serve later phases
                    if valid is None:
                        stores()
                    else:
                        kb.if_(valid, stores)

                if in_regs:
                    for c in range(per):
                        g, valid = chunk(c)
                        map_chunk(g, c, valid)
                else:

                    def sbody(g, _, map_chunk=map_chunk):
                        map_chunk(g, None)
                        return []

                    kb.for_(me, kb.index(Ng), lanes, [], sbody, unroll=s["unroll"])
                continue
            # REDUCE
            inits = []
            for o, at in enumerate(v.acc_types):
                inits += [kb.constant(identity_of(v.combiners[o], at), at)] * vec

            def fold(g: SSAValue, c, accs: list[SSAValue]) -> list[SSAValue]:
                dims = column_dims(sidx, g)
                ys = body_lanes(kb, v, inputs(v, dims, c), vec)  # noqa: B023
                return [
                    combine(kb, v.combiners[o], accs[o * vec + j], ys[o][j])  # noqa: B023
                    for o in range(nout)  # noqa: B023
                    for j in range(vec)
                ]

            if in_regs:
                accs = inits
                for c in range(per):
                    g, valid = chunk(c)
                    new = fold(g, c, accs)
                    accs = new if valid is None else [kb.select(valid, a, b) for a, b in zip(new, accs)]
            else:
                accs = kb.for_(me, kb.index(Ng), lanes, inits, lambda g, a, fold=fold: fold(g, None, a), unroll=s["unroll"])
            finals = warp_totals(kb, v.combiners, accs, vec, ws)
            if mode == "block":
                finals = block_totals(
                    kb, finals, [slots[(i, o)] for o in range(nout)], lane, warp, wpb,
                    v.combiners, v.acc_types, ws,
                )  # fmt: skip
            store_row_values(i, v, finals)
        if mode == "block" and nphases == 1:
            kb.add(gpu.BarrierOp())  # the slots are reused by the next row
        return []

    if pipeline:
        # software pipelining across rows: the loop carries the current row's cached
        # vectors and issues the next row's loads (clamped to the last row, an L2 hit,
        # on a block's last trip) before the current row's reductions and stores
        first = row_loads(kb.min_i(row0, M - 1))
        keys = list(first)

        def pbody(row: SSAValue, carried: list[SSAValue]):
            cur, at = {}, 0
            for ck in keys:
                cur[ck] = carried[at : at + vec]
                at += vec
            nxt = row_loads(kb.min_i(kb.add_i(row, rstride), M - 1))
            row_body(row, cur)
            return [x for ck in keys for x in nxt[ck]]

        kb.for_(row0, M, rstride, [x for ck in keys for x in first[ck]], pbody)
    else:
        kb.for_(row0, M, rstride, [], lambda row, _: row_body(row, {}))
    kb.add(gpu.ReturnOp())
    if s.get("math") == APPROX:
        mark_approximate(kernel.walk())
    lc.add_kernel(kernel)
    lc.launch(kernel, list(gv.params))


__all__ = ["GroupView", "Member", "analyze", "build"]
