"""The `gpu.wgmma` schedule: a matmul nest on Hopper's tensor cores.

One kernel of bm/64 + 1 warpgroups (the tile parameters come from the schedule;
the legality rules are in wgmma_space.py):

- grid (tiles of M x N, 1, batch): block `pid` takes tile (tm, tn) in groups of
  `group_m` tile rows (consecutive blocks share B tiles in L2); blockIdx.z is the
  batch entry;
- warpgroup 0 is the producer: after giving registers back (setmaxnreg.dec) one thread
  loops over the k-tiles, waits until stage s is free (`empty[s]`), announces the
  stage's bytes on `full[s]` and issues the bulk tensor copies of A's bm x bk and
  B's bk x bn tiles into it (out-of-range elements arrive as zeros);
- warpgroups 1.. are consumers (setmaxnreg.inc): each waits on `full[s]`, issues
  bk/16 wgmma m64n{bn}k16 on its 64 rows of A and the whole B tile, waits for them
  and releases the stage (`empty[s]`, one arrival per consumer);
- the epilogue: each thread converts its accumulator fragment (dialects/gpu_async.py)
  to the output type and stores it, guarded only where M or N do not divide by the
  tile.

Shared memory: `stages` stages of [A tile | B tile], each tile in 128-byte swizzled
rows of bk elements as the copy engine writes them (an mn-major tile is 64-column
boxes of bk rows each), then 2 x stages mbarriers.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    Float32Type,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import SSAValue

from aicf.dialects import gpu
from aicf.dialects import gpu_async as ga
from aicf.dialects.schedule import Schedule
from aicf.math_precision import APPROX, mark_approximate

from . import mma_sync_space as ms
from . import wgmma_space as ws
from .builder import KernelBuilder, convert
from .context import LoweringContext
from .matmul import roles_of
from .view import NestView, annotate, layout_offset, strides_of, uses_64bit_index

F32 = Float32Type()
SCHEDULE_ATTR = "aicf.schedule"


def problem_of_view(view: NestView, allow_tf32: bool = False) -> ws.WgmmaProblem | str:
    roles = roles_of(view)
    if roles is None:
        return "the nest is not a matmul"
    ops = view.operands
    return ws.problem_of(view.extents, roles, [o.type for o in ops], [o.map for o in ops], view.acc_types[0],
                         allow_tf32)


def transpose_b_view(view: NestView, host=None) -> tuple[NestView, object]:
    """tf32's copy of an n-major B (K x N) into a k-major workspace (N x K): the view
    of that copy (domain (N, K)) and the workspace operand (`host`: its buffer, None
    while planning)."""
    from xdsl.ir.affine import AffineDimExpr, AffineMap

    from .view import Operand

    roles = roles_of(view)
    assert roles is not None
    B = view.inputs[roles.b]
    n, k = view.extents[roles.n], view.extents[roles.k]
    ws_t = MemRefType(B.type.get_element_type(), [n, k])
    ws_op = Operand(host, ws_t, AffineMap.identity(2))
    pos = {roles.n: AffineDimExpr(0), roles.k: AffineDimExpr(1)}
    src = Operand(B.host, B.type, AffineMap(2, 0, tuple(pos[r.position] for r in B.map.results)))  # type: ignore[attr-defined]
    copy = NestView(
        name=view.name + "_transpose_b",
        extents=(n, k),
        iterators=("parallel", "parallel"),
        inputs=[src],
        outputs=[ws_op],
        combiners=("none",),
        acc_types=[B.type.get_element_type()],
        body=lambda kb, xs: list(xs),
        notes=["tf32 reads B k-major: B copied to N x K"],
    )
    return copy, ws_op


def grouped_tile_origin(kb: KernelBuilder, t: SSAValue, tiles_m: int, tiles_n: int,
                        c: ws.WgmmaConfig | ms.MmaConfig) -> tuple[SSAValue, SSAValue]:
    """The first row and column (m0, n0) of tile `t` of a tiles_m x tiles_n grid of
    c.bm x c.bn tiles, walked column by column in groups of c.group_m tile rows so that
    consecutive tiles share B in L2 (gpu.wgmma's and gpu.mma_sync's tile order)."""
    group = c.group_m * tiles_n
    first_m = kb.mul_i(kb.div_i(t, group), c.group_m)
    rows = kb.min_i(kb.sub_i(tiles_m, first_m), c.group_m)
    inner = kb.rem_i(t, group)
    tm = kb.add_i(first_m, kb.v(arith.RemUIOp(inner, rows)))
    tn = kb.v(arith.DivUIOp(inner, rows))
    return kb.mul_i(tm, c.bm), kb.mul_i(tn, c.bn)


class _Kernel:
    def __init__(self, view: NestView, p: ws.WgmmaProblem, c: ws.WgmmaConfig, grid: int, kb: KernelBuilder,
                 A: SSAValue, B: SSAValue, epilogue: Epilogue, split: int = 1):
        self.v, self.p, self.c, self.grid, self.kb = view, p, c, grid, kb
        self.split = split
        roles = roles_of(view)
        assert roles is not None
        self.roles = roles
        self.A, self.B, self.out = A, B, epilogue
        self.elt = view.inputs[roles.a].type.get_element_type()
        self.stage_elems = (c.bm + c.bn) * c.bk
        self.kt_count = math.ceil(p.k / c.bk) // split  # k-tiles of one split (split divides them)
        self.tiles_m, self.tiles_n = math.ceil(p.m / c.bm), math.ceil(p.n / c.bn)
        self.total = self.tiles_m * self.tiles_n * p.batch * split

    # -- shared memory -------------------------------------------------------------------
    def alloc(self) -> None:
        c, eb = self.c, self.p.elem_bytes
        tiles_t = MemRefType(self.elt, [c.stages * self.stage_elems], memory_space=gpu.shared_space())
        bars_t = MemRefType(i64, [2 * c.stages], memory_space=gpu.shared_space())
        self.tiles = self.kb.v(gpu.AllocSharedOp(tiles_t, 0))
        self.bars = self.kb.v(gpu.AllocSharedOp(bars_t, c.stages * self.stage_elems * eb))
        if c.store == "smem":
            staging_t = MemRefType(F32, [c.consumers * ws.STAGING_BYTES_PER_CONSUMER // 4],
                                   memory_space=gpu.shared_space())
            self.staging = self.kb.v(gpu.AllocSharedOp(staging_t, c.staging_offset(eb)))

    def empty(self, s: SSAValue) -> SSAValue:
        return self.kb.add_i(s, self.c.stages)

    # -- the tiles this block computes -----------------------------------------------------
    def each_tile(self, body) -> None:
        """`body()` once per tile of this block: tiles pid, pid + grid, ... (one tile
        a block unless the schedule's grid is smaller than the tile count), with
        self.m0/n0/batch/it set (it: the block's tile count so far)."""
        kb, c, p = self.kb, self.c, self.p
        pid = kb.v(gpu.BlockIdOp("x"))
        per_batch = self.tiles_m * self.tiles_n

        def one(tile, _):
            self.it = kb.div_i(kb.sub_i(tile, pid), self.grid) if self.grid < self.total else kb.index(0)
            # split-K: the slowest part of the tile id picks the k range
            self.sidx = kb.div_i(tile, per_batch * p.batch)
            self.k_base = kb.mul_i(self.sidx, self.kt_count)
            tile = kb.rem_i(tile, per_batch * p.batch)
            z = kb.div_i(tile, per_batch)
            t = kb.rem_i(tile, per_batch)
            self.m0, self.n0 = grouped_tile_origin(kb, t, self.tiles_m, self.tiles_n, c)
            coords = kb.delinearize(z, p.batch_extents) if p.batch_dims else []
            self.batch = dict(zip(p.batch_dims, coords))
            body()
            return []

        if self.grid < self.total:
            kb.for_(pid, self.total, self.grid, [], one)
        else:
            one(pid, [])

    def stage_of(self, kt: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Stage and use count of k-tile `kt` of the current tile: the ring's position
        runs on across a block's tiles."""
        kb, c = self.kb, self.c
        g = kb.add_i(kb.mul_i(self.it, self.kt_count), kt)
        return kb.rem_i(g, c.stages), kb.div_i(g, c.stages)

    # -- producer ------------------------------------------------------------------------
    def load_stage(self, kt: SSAValue, s: SSAValue) -> None:
        kb, c, p, r = self.kb, self.c, self.p, self.roles
        k0 = kb.mul_i(kb.add_i(self.k_base, kt), c.bk)
        base = kb.mul_i(s, self.stage_elems)
        self._load(self.A, p.a, s, base, k0, self.m0, r.m, c.bm)
        self._load(self.B, p.b, s, kb.add_i(base, c.bm * c.bk), k0, self.n0, r.n, c.bn)

    def _load(self, src, op: ws.TmaOperand, s: SSAValue, base: SSAValue, k0: SSAValue, mn0: SSAValue,
              mn_dim: int, extent: int) -> None:
        kb, c, r = self.kb, self.c, self.roles
        boxes = [(0, extent)] if op.major == "k" else [(64 * j, 64) for j in range(extent // 64)]
        for off, width in boxes:
            at = {r.k: k0, mn_dim: kb.add_i(mn0, off), **self.batch}
            coords = [at[d] if d is not None else kb.index(cst) for d, cst in zip(op.roles, op.consts)]
            box = [c.bk, width] if op.major == "k" else [64, c.bk]
            box += [1] * (len(op.dims) - 2)
            dst = kb.add_i(base, off * c.bk)
            kb.add(ga.TmaLoadOp(src, coords, self.tiles, dst, self.bars, s, op.dims, box))

    def producer(self) -> None:
        kb, c, p = self.kb, self.c, self.p
        kb.add(ga.SetMaxNRegOp("dec", c.producer_regs))

        def tile():
            def body(kt, _):
                s, use = self.stage_of(kt)

                def wait_free():
                    # the consumers released this stage's previous use (parity of use - 1)
                    kb.add(ga.MbarrierWaitOp(self.bars, self.empty(s), kb.rem_i(kb.add_i(use, 1), 2)))
                    return []

                kb.if_(kb.v(_uge(use, kb.index(1))), wait_free)
                kb.add(ga.MbarrierArriveOp(self.bars, s, c.stage_bytes(p.elem_bytes)))
                self.load_stage(kt, s)
                return []

            kb.for_(0, self.kt_count, 1, [], body)

        def one_thread():
            self.each_tile(tile)
            return []

        kb.if_(kb.eq(self.tid, 0), one_thread)

    # -- consumers -----------------------------------------------------------------------
    def consumer(self) -> None:
        kb, c, p = self.kb, self.c, self.p
        kb.add(ga.SetMaxNRegOp("inc", c.consumer_regs))
        cw = kb.sub_i(self.wg, kb.index(1))
        acc = kb.v(memref.AllocaOp.get(F32, shape=[c.bn // 2]))
        zero = kb.constant(0.0, F32)
        kstep = ga.WGMMA_K[p.kind]  # 32 bytes of k per instruction
        eb = p.elem_bytes
        a_rows = kb.mul_i(cw, 64 * c.bk)  # this consumer's 64 rows (k-major) or box (mn-major)
        a_strides = [16, 1024] if p.a.major == "k" else [64 * c.bk * eb, 1024]
        b_strides = [16, 1024] if p.b.major == "k" else [64 * c.bk * eb, 1024]

        def release(s: SSAValue):
            def arrive():
                kb.add(ga.MbarrierArriveOp(self.bars, self.empty(s)))
                return []

            return arrive

        def tile():
            def clear(i, _):
                kb.store(zero, acc, [i])
                return []

            kb.for_(0, c.bn // 2, 1, [], clear, unroll=c.bn // 2)

            def body(kt, _):
                s, use = self.stage_of(kt)
                kb.add(ga.MbarrierWaitOp(self.bars, s, kb.rem_i(use, 2)))
                base = kb.mul_i(s, self.stage_elems)
                a_base = kb.add_i(base, a_rows)
                b_base = kb.add_i(base, c.bm * c.bk)
                kb.add(ga.WgmmaFenceOp())
                for kk in range(c.bk // kstep):
                    a_off = kb.add_i(a_base, kk * kstep if p.a.major == "k" else kk * kstep * 64)
                    b_off = kb.add_i(b_base, kk * kstep if p.b.major == "k" else kk * kstep * 64)
                    kb.add(ga.WgmmaOp(acc, self.tiles, a_off, self.tiles, b_off, n=c.bn, a_major=p.a.major,
                                      b_major=p.b.major, a_strides=a_strides, b_strides=b_strides))
                kb.add(ga.WgmmaCommitOp())
                # this k-tile's group stays in flight; the previous one is done, so its
                # stage goes back to the producer
                kb.add(ga.WgmmaWaitOp(1))
                prev = kb.rem_i(kb.add_i(s, c.stages - 1), c.stages)
                kb.if_(kb.v(arith.AndIOp(kb.eq(self.t, 0), kb.v(_uge(kt, kb.index(1))))), release(prev))
                return []

            kb.for_(0, self.kt_count, 1, [], body)
            kb.add(ga.WgmmaWaitOp(0))
            last, _ = self.stage_of(kb.index(self.kt_count - 1))
            kb.if_(kb.eq(self.t, 0), release(last))
            if c.store == "smem":
                self.epilogue_staged(cw, acc)
            else:
                self.epilogue(cw, acc)

        self.each_tile(tile)

    def epilogue(self, cw: SSAValue, acc: SSAValue) -> None:
        """Each thread's fragment: rows 16*warp + lane/4 (+8), columns 8j + 2*(lane%4)
        (+1) of its consumer's 64 rows, handed to the epilogue two columns at a time."""
        kb, c, p, r = self.kb, self.c, self.p, self.roles
        warp = kb.div_i(self.t, 32)
        lane = kb.rem_i(self.t, 32)
        row0 = kb.add_i(kb.add_i(self.m0, kb.mul_i(cw, 64)), kb.add_i(kb.mul_i(warp, 16), kb.div_i(lane, 4)))
        col0 = kb.add_i(self.n0, kb.mul_i(kb.rem_i(lane, 4), 2))
        guard_m, guard_n = p.m % c.bm != 0, p.n % c.bn != 0

        def body(j, _):
            for h in (0, 1):
                row = kb.add_i(row0, 8 * h)
                col = kb.add_i(col0, kb.mul_i(j, 8))
                first = kb.add_i(kb.mul_i(j, 4), 2 * h)
                vals = [kb.load(acc, [kb.add_i(first, q)]) for q in (0, 1)]
                self.out.store_pair(kb, {r.m: row, r.n: col, **self.batch, "split": self.sidx}, r.n, vals,
                                    p.m if guard_m else None, p.n if guard_n else None, r.m)
            return []

        kb.for_(0, c.bn // 8, 1, [], body, unroll=c.bn // 8)

    def epilogue_staged(self, cw: SSAValue, acc: SSAValue) -> None:
        """The consumer's 64 x bn accumulators, STAGE_COLS columns at a time: each thread
        writes its fragment of the columns into this consumer's shared staging rows;
        then each warp takes 16 of the rows and stores them a row at a time, lane l
        writing column l, so a warp's store covers consecutive elements of one row
        (whatever C's alignment), and the epilogue's other operands are read the same
        way. Named barrier 1 + cw orders the consumer's 128 threads around each use."""
        kb, c, p, r = self.kb, self.c, self.p, self.roles
        cols, pitch = ws.STAGE_COLS, ws.STAGE_PITCH
        warp = kb.div_i(self.t, 32)
        lane = kb.rem_i(self.t, 32)
        base = kb.mul_i(cw, 64 * pitch)
        frag_row = kb.add_i(kb.mul_i(warp, 16), kb.div_i(lane, 4))
        frag = kb.add_i(base, kb.add_i(kb.mul_i(frag_row, pitch), kb.mul_i(kb.rem_i(lane, 4), 2)))
        row_base = kb.add_i(self.m0, kb.mul_i(cw, 64))
        guard_m, guard_n = p.m % c.bm != 0, p.n % c.bn != 0

        def sync():
            # consumer cw's own barrier (ids 1..consumers; 0 is the block's): the id is
            # an immediate, so one guarded barrier per consumer
            for k in range(c.consumers):
                def one(k=k):
                    kb.add(gpu.NamedBarrierOp(1 + k, 128))
                    return []

                if c.consumers == 1:
                    one()
                else:
                    kb.if_(kb.eq(cw, k), one)
        for chunk in range(c.bn // cols):
            for jj in range(cols // 8):
                j = chunk * cols // 8 + jj
                for h in (0, 1):
                    vals = [kb.load(acc, [kb.index(4 * j + 2 * h + q)]) for q in (0, 1)]
                    kb.store_vector(kb.pack(vals), self.staging, [kb.add_i(frag, 8 * h * pitch + 8 * jj)])
            sync()

            def row(rr, _, chunk=chunk):
                local = kb.add_i(kb.mul_i(warp, 16), rr)
                v = kb.load(self.staging, [kb.add_i(kb.add_i(base, kb.mul_i(local, pitch)), lane)])
                at = {r.m: kb.add_i(row_base, local), r.n: kb.add_i(kb.add_i(self.n0, chunk * cols), lane),
                      **self.batch, "split": self.sidx}
                self.out.store_one(kb, at, r.n, v, p.m if guard_m else None, p.n if guard_n else None, r.m)
                return []

            kb.for_(0, 16, 1, [], row, unroll=16)
            sync()

    # -- the kernel ------------------------------------------------------------------------
    def run(self) -> None:
        kb, c = self.kb, self.c
        self.alloc()
        tid = kb.v(gpu.ThreadIdOp("x"))
        self.wg = kb.div_i(tid, 128)
        self.t = kb.rem_i(tid, 128)
        self.tid = tid

        def init():
            for s in range(c.stages):
                kb.add(ga.MbarrierInitOp(self.bars, kb.index(s), 1))
                kb.add(ga.MbarrierInitOp(self.bars, kb.index(c.stages + s), c.consumers))
            kb.add(ga.MbarrierInitFenceOp())
            return []

        kb.if_(kb.eq(tid, 0), init)
        kb.add(gpu.BarrierOp())

        def produce():
            self.producer()
            return []

        def consume():
            self.consumer()
            return []

        kb.if_(kb.eq(self.wg, 0), produce, consume)


class Epilogue:
    """What happens to two adjacent accumulator values (f32) at (row, col), (row,
    col + 1): `at` maps domain dims to index values."""

    def store_pair(self, kb, at, n_dim, vals, m_limit, n_limit, m_dim) -> None:
        raise NotImplementedError

    def store_one(self, kb, at, n_dim, val, m_limit, n_limit, m_dim) -> None:
        """One accumulator value at `at` (the staged epilogue)."""
        raise NotImplementedError


def _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, plus: int, store) -> None:
    conds = []
    if m_limit is not None:
        conds.append(kb.lt(at[m_dim], m_limit))
    if n_limit is not None:
        col = at[n_dim] if plus == 0 else kb.add_i(at[n_dim], plus)
        conds.append(kb.lt(col, n_limit))
    if not conds:
        store()
        return
    ok = conds[0] if len(conds) == 1 else kb.v(arith.AndIOp(conds[0], conds[1]))
    kb.if_(ok, store)


class StoreOutputs(Epilogue):
    """Write values to outputs [(kernel parameter, map, type)]. `values(kb, at, acc)`
    gives one value per output for an accumulator value at `at` (default: the
    accumulator itself); each is converted to its output's element type. When every
    output's rows are contiguous and even, a column pair goes out as one vector per
    output under one guard (the pair then never straddles N)."""

    def __init__(self, outputs: list[tuple[SSAValue, object, MemRefType]], n_dim: int, n: int, values=None):
        self.outputs = outputs
        self.pairs = all(_pairs_ok(t, m, n_dim, n) for _, m, t in outputs)
        self.values = values or (lambda kb, at, v: [v] * len(outputs))

    def _converted(self, kb, at, v) -> list[SSAValue]:
        return [convert(kb, x, t.get_element_type()) for x, (_, _, t) in zip(self.values(kb, at, v), self.outputs)]

    def store_pair(self, kb, at, n_dim, vals, m_limit, n_limit, m_dim) -> None:
        at = {d: v for d, v in at.items() if isinstance(d, int)}
        cols = [{**at, n_dim: at[n_dim] if e == 0 else kb.add_i(at[n_dim], 1)} for e in (0, 1)]
        if self.pairs:
            def both():
                per = [self._converted(kb, a, v) for a, v in zip(cols, vals)]
                for o, (ref, amap, _) in enumerate(self.outputs):
                    idx = [kb.affine(x, _dims(cols[0])) for x in amap.results]  # type: ignore[attr-defined]
                    kb.store_vector(kb.pack([per[0][o], per[1][o]]), ref, idx)
                return []

            _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, 0, both)
            return
        for e in (0, 1):
            def one(e=e):
                outs = self._converted(kb, cols[e], vals[e])
                for o, (ref, amap, _) in enumerate(self.outputs):
                    idx = [kb.affine(x, _dims(cols[e])) for x in amap.results]  # type: ignore[attr-defined]
                    kb.store(outs[o], ref, idx)
                return []

            _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, e, one)

    def store_one(self, kb, at, n_dim, val, m_limit, n_limit, m_dim) -> None:
        at = {d: v for d, v in at.items() if isinstance(d, int)}

        def one():
            outs = self._converted(kb, at, val)
            for o, (ref, amap, _) in enumerate(self.outputs):
                kb.store(outs[o], ref, [kb.affine(x, _dims(at)) for x in amap.results])  # type: ignore[attr-defined]
            return []

        _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, 0, one)


class StorePartials(Epilogue):
    """Split-K: the f32 accumulators of split s go to partials[s, flat(point)], flat
    over the nest's parallel dims in order (per_output.split_workspaces' layout),
    a column pair as one vector where N is even (the pair is then adjacent and
    8-byte aligned)."""

    def __init__(self, ws: SSAValue, view: NestView, n: int):
        self.ws = ws
        self.par = view.parallel_dims
        self.ext = [view.extents[d] for d in view.parallel_dims]
        self.pairs = n % 2 == 0

    def store_pair(self, kb, at, n_dim, vals, m_limit, n_limit, m_dim) -> None:
        flat = kb.index(0)
        for d, e in zip(self.par, self.ext):
            flat = kb.add_i(kb.mul_i(flat, e), at[d])
        if self.pairs:
            def both():
                kb.store_vector(kb.pack(vals), self.ws, [at["split"], flat])
                return []

            _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, 0, both)
            return
        for e in (0, 1):
            def one(e=e):
                kb.store(vals[e], self.ws, [at["split"], kb.add_i(flat, e)])
                return []

            _guarded(kb, at, m_dim, n_dim, m_limit, n_limit, e, one)


def _dims(at: dict) -> list[SSAValue]:
    """Index values of domain dims 0..n-1 (the parallel dims of the matmul)."""
    n = sum(1 for d in at if isinstance(d, int))
    return [at[d] for d in range(n)]


def _uge(a, b) -> arith.CmpiOp:
    return arith.CmpiOp(a, b, "uge")


def stores_pairs(view: NestView, outputs=None) -> bool:
    """Whether the fragment epilogue (StoreOutputs) of `view`, a matmul, stores column
    pairs into `outputs` (default: the matmul's own; a fused epilogue's outputs index
    the same leading dims); the cost model prices one-element stores apart."""
    roles = roles_of(view)
    assert roles is not None
    outs = view.outputs if outputs is None else outputs
    return all(_pairs_ok(o.type, o.map, roles.n, view.extents[roles.n]) for o in outs)  # type: ignore[arg-type]


def _pairs_ok(t: MemRefType, cmap, n_dim: int, n: int) -> bool:
    strides = strides_of(t)
    pos = [x.position for x in cmap.results].index(n_dim)  # type: ignore[attr-defined]
    if strides is None or pos != len(strides) - 1 or strides[pos] != 1 or n % 2:
        return False
    off = layout_offset(t)
    return all(s is not None and s % 2 == 0 for i, s in enumerate(strides) if i != pos) and off is not None and off % 2 == 0


def check(view: NestView, s: Schedule, lc: LoweringContext) -> tuple[ws.WgmmaProblem, ws.WgmmaConfig, int]:
    # a hand-written schedule on f32 inputs asks for TF32 by naming the kernel
    p = problem_of_view(view, allow_tf32=True)
    if isinstance(p, str):
        raise NotImplementedError(f"gpu.wgmma cannot run this nest: {p}")
    if not lc.target.has_wgmma:
        raise NotImplementedError(f"gpu.wgmma needs a Hopper GPU (sm_90a); the target is {lc.target.name}")
    if p.transpose_b and s.get("transpose_b") is None:
        raise NotImplementedError("gpu.wgmma on tf32 with B stored K x N needs a `transpose_b` schedule "
                                  "for the copy of B to N x K")
    c = ws.WgmmaConfig.from_params(s.params)
    bad = ws.check_config(c, p, lc.target.smem_per_block_optin, lc.target.registers_per_sm)
    if bad:
        raise NotImplementedError(f"gpu.wgmma {c.short()}: {bad}")
    split = s.get("split", 1)
    kt = math.ceil(p.k / c.bk)
    if split < 1 or kt % split:
        raise NotImplementedError(f"gpu.wgmma split = {split} must divide the {kt} k-tiles")
    if split > 1 and c.store == "smem":
        raise NotImplementedError("gpu.wgmma split > 1 stores f32 partials from the fragments (store = 'fragment')")
    if split > 1 and s.get("combine") is None:
        raise NotImplementedError(f"gpu.wgmma split = {split} needs a `combine` schedule for the second pass")
    total = c.tiles(p) * p.batch * split
    grid = s.get("grid", total)
    if not 1 <= grid <= total:
        raise NotImplementedError(f"gpu.wgmma grid = {grid}: between 1 and the {total} tiles")
    if grid > lc.target.max_grid_x:
        raise NotImplementedError(f"gpu.wgmma: {grid} blocks > the grid's x limit {lc.target.max_grid_x}")
    return p, c, grid


def make_kernel(view: NestView, s: Schedule, lc: LoweringContext, params, p, c, grid) -> gpu.KernelOp:
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        [grid, 1, 1],
        [c.threads, 1, 1],
        smem=c.smem_bytes(p.elem_bytes),
        launch_bounds=(c.threads, 1),  # setmaxnreg needs the cap at entry (HOPPER.md)
        index_bitwidth=64 if uses_64bit_index(view) else 32,
    )
    kernel.attributes[SCHEDULE_ATTR] = StringAttr(s.describe() + ("; " + "; ".join(view.notes) if view.notes else ""))
    kernel.attributes[gpu.FIXED_LAYOUTS_ATTR] = UnitAttr()  # the copy engine's swizzle, not ours
    return kernel


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    from .per_output import combine_view, split_workspaces
    from .view import Operand

    p, c, grid = check(view, s, lc)
    roles = roles_of(view)
    assert roles is not None
    split = s.get("split", 1)
    b_op = view.inputs[roles.b]
    if p.transpose_b:  # tf32: B to N x K first
        copy, ws_b = transpose_b_view(view)
        ws_b.host = lc.workspace(ws_b.type)  # type: ignore[attr-defined]
        copy.outputs[0] = ws_b  # type: ignore[index]
        lc.lower_view(copy, s["transpose_b"])
        b_op = ws_b  # type: ignore[assignment]
    if split > 1:  # partials [split, M*N] in f32, combined by a second nest
        ws_ops = [Operand(lc.workspace(w.type), w.type, w.map) for w in split_workspaces(view, split)]
        params = [view.inputs[roles.a], b_op, ws_ops[0]]
    else:
        params = [view.inputs[roles.a], b_op, view.outputs[0]]
    kernel = make_kernel(view, s, lc, params, p, c, grid)
    annotate(kernel, view, params)
    A, B, C = kernel.args
    kb = KernelBuilder(kernel.body.block)
    if split > 1:
        out: Epilogue = StorePartials(C, view, p.n)
    else:
        out = StoreOutputs([(C, view.outputs[0].map, view.outputs[0].type)], roles.n, p.n)
    _Kernel(view, p, c, grid, kb, A, B, out, split).run()
    kb.add(gpu.ReturnOp())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])
    if split > 1:
        lc.lower_view(combine_view(view, split, ws_ops), s["combine"])


# --------------------------------------------------------------------------------------
# The fused epilogue: a matmul and its elementwise consumer (aicf-fuse-epilogue)
# --------------------------------------------------------------------------------------


def epilogue_members(group) -> tuple[NestView, NestView, SSAValue] | str:
    """The matmul view, the epilogue view and the intermediate of a
    `gpu.wgmma_epilogue` group, or why the group is not one."""
    from aicf.dialects.loop import NestOp

    from .view import view_of

    nests = [o for o in group.body.block.ops if isinstance(o, NestOp)]
    if len(nests) != 2:
        return f"the group has {len(nests)} nests, not a matmul and its epilogue"
    mm, ep = view_of(nests[0], "mm"), view_of(nests[1], "epilogue")
    if roles_of(mm) is None:
        return "the group's first nest is not a matmul"
    t = nests[0].outputs[0]
    if t not in nests[1].inputs or any(i != "parallel" for i in ep.iterators):
        return "the second nest is not an elementwise consumer of the matmul"
    npar = len(ep.extents)
    if tuple(mm.iterators[:npar]) != ("parallel",) * npar or mm.extents[:npar] != ep.extents:
        return "the epilogue's domain is not the matmul's leading parallel dims"
    return mm, ep, t


def build_group(group, name: str, s: Schedule, lc: LoweringContext) -> None:
    found = epilogue_members(group)
    if isinstance(found, str):
        raise NotImplementedError(f"gpu.wgmma_epilogue: {found}")
    mm, ep, t = found
    mm.name = name
    if s.get("split", 1) > 1:
        raise NotImplementedError("gpu.wgmma_epilogue: split-K would apply the epilogue to partial sums")
    p, c, grid = check(mm, s, lc)
    params = epilogue_params(mm, ep, t)
    kernel = make_kernel(mm, s, lc, params, p, c, grid)
    annotate(kernel, mm, params)
    kb = KernelBuilder(kernel.body.block)
    A, B, out = epilogue_outputs(kernel, mm, ep, t, p.n)
    _Kernel(mm, p, c, grid, kb, A, B, out).run()
    kb.add(gpu.ReturnOp())
    if s.get("math") == APPROX:
        mark_approximate(kernel.walk())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])


def epilogue_params(mm: NestView, ep: NestView, t: SSAValue) -> list:
    """A fused epilogue kernel's parameters: A, B, the epilogue's other operands, its
    outputs."""
    roles = roles_of(mm)
    assert roles is not None
    others = [o for o in ep.inputs if o.host is not t]
    return [mm.inputs[roles.a], mm.inputs[roles.b], *others, *ep.outputs]


def epilogue_outputs(kernel: gpu.KernelOp, mm: NestView, ep: NestView, t: SSAValue, n: int):
    """A, B and the StoreOutputs of a fused epilogue kernel (parameters as
    `epilogue_params`): each stored element is the epilogue's body on the accumulator
    (rounded to the intermediate's type, as storing it would) and the other operands'
    elements at the same point."""
    roles = roles_of(mm)
    assert roles is not None
    others = [o for o in ep.inputs if o.host is not t]
    args = list(kernel.args)
    other_args = dict(zip((id(o) for o in others), args[2:2 + len(others)]))
    out_args = args[2 + len(others):]
    t_type = t.type.get_element_type()  # type: ignore[attr-defined]
    body = ep.body

    def values(kb, at, acc):
        dims = _dims(at)
        scalars = []
        for o in ep.inputs:
            if o.host is t:
                scalars.append(convert(kb, acc, t_type))
            else:
                scalars.append(kb.load(other_args[id(o)], [kb.affine(x, dims) for x in o.map.results]))
        return body(kb, scalars)

    out = StoreOutputs([(a, o.map, o.type) for a, o in zip(out_args, ep.outputs)], roles.n, n, values)
    return args[0], args[1], out
