"""The `gpu.mma_sync` schedule: a matmul nest on the warp-level tensor cores of sm_80
and on (A100; Hopper runs it too, at a lower share of its peak than `gpu.wgmma`).

One kernel, grid (tiles of M x N, 1, batch): block `pid` takes tile (tm, tn) in groups
of `group_m` tile rows (consecutive blocks share B tiles in L2); blockIdx.z is the
batch entry. Its (bm/wm) x (bn/wn) warps each own a wm x wn part of the tile:

- a ring of `stages` shared buffers, each [A tile | B tile] for one k-tile of bk,
  filled by every thread with `cp.async` (16, 8 or 4 bytes a copy, the widest the
  operand's layout allows; one element at a time through registers otherwise),
  zero-filled past M, N and K, one commit group per k-tile: the prologue issues
  stages - 1 k-tiles; iteration kt waits until k-tile kt has landed
  (wait_group stages - 2), passes a barrier (everyone's copies visible, everyone done
  with k-tile kt - 1), issues k-tile kt + stages - 1 into the buffer kt - 1 used, and
  multiplies k-tile kt;
- tiles in shared memory keep the operand's contiguous dim along their rows (A: bm
  rows of bk, or bk rows of bm when stored K x M; B likewise), XOR-swizzled in 16-byte
  chunks (mma_sync_space.swizzle), so ldmatrix's eight row addresses a phase and the
  copies hit 32 distinct banks;
- per 16 of k, each warp loads its A fragments (ldmatrix.x4, one per 16 rows; `.trans`
  for A stored K x M) and B fragments (ldmatrix.x4, two n8 blocks each; `.trans` for B
  stored K x N), then issues (wm/16) x (wn/8) mma.sync m16n8k16 into f32 accumulators;
  fragments are double-buffered (the next 16 of k loaded before these products);
- the epilogue stores each thread's accumulators where they lie (column pairs where
  C's rows allow them), guarded only where M or N do not divide by the tile.

The fragment layouts are in dialects/gpu_async.py.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Float32Type, IntegerAttr, IntegerType, MemRefType, StringAttr, UnitAttr
from xdsl.ir import SSAValue

from aicf.dialects import gpu
from aicf.dialects import gpu_async as ga
from aicf.dialects.schedule import Schedule
from aicf.math_precision import APPROX, mark_approximate

from . import mma_sync_space as ms
from .builder import KernelBuilder
from .context import LoweringContext
from .matmul import roles_of
from .view import NestView, annotate, uses_64bit_index
from .wgmma import (
    Epilogue,
    StoreOutputs,
    epilogue_members,
    epilogue_outputs,
    epilogue_params,
    grouped_tile_origin,
)

F32 = Float32Type()
I32 = IntegerType(32)
I1 = IntegerType(1)
KIND = "gpu.mma_sync"
SCHEDULE_ATTR = "aicf.schedule"


def problem_of_view(view: NestView) -> ms.MmaProblem | str:
    roles = roles_of(view)
    if roles is None:
        return "the nest is not a matmul"
    ops = view.operands
    return ms.problem_of(view.extents, roles, [o.type for o in ops], [o.map for o in ops], view.acc_types[0])


class _Kernel:
    def __init__(self, view: NestView, p: ms.MmaProblem, c: ms.MmaConfig, kb: KernelBuilder,
                 A: SSAValue, B: SSAValue, out: Epilogue):
        roles = roles_of(view)
        assert roles is not None
        self.v, self.p, self.c, self.kb, self.roles = view, p, c, kb, roles
        self.A, self.B, self.out = A, B, out
        self.elt = view.inputs[roles.a].type.get_element_type()
        self.maps = (view.inputs[roles.a].map, view.inputs[roles.b].map)
        self.ndims = len(view.extents)
        self.kt_count = math.ceil(p.k / c.bk)
        self.tiles_m, self.tiles_n = math.ceil(p.m / c.bm), math.ceil(p.n / c.bn)
        self.wa, self.wb = ms.tile_widths(c, p)
        self.mi, self.ni = c.wm // 16, c.wn // 8

    # -- small helpers ---------------------------------------------------------------------
    def xor(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        kb = self.kb
        if isinstance(b, int):
            if b == 0:
                return a
            b = kb.index(b)
        return kb.v(arith.XOrIOp(a, b))

    def key(self, row: SSAValue, width: int) -> SSAValue:
        """The row's chunk XOR in elements (mma_sync_space.swizzle)."""
        kb, eb = self.kb, self.p.elem_bytes
        ce = ms.CHUNK_BYTES // eb
        if width * eb == 64:
            k = kb.v(arith.AndIOp(kb.v(arith.ShRUIOp(row, kb.index(1))), kb.index(3)))
        else:
            k = kb.v(arith.AndIOp(row, kb.index(7)))
        return kb.mul_i(k, ce)

    def swizzle(self, row: SSAValue, col: SSAValue, width: int) -> SSAValue:
        kb = self.kb
        return kb.add_i(kb.mul_i(row, width), self.xor(col, self.key(row, width)))

    # -- the tile of this block ------------------------------------------------------------
    def tile(self) -> None:
        kb, c, p = self.kb, self.c, self.p
        pid = kb.v(gpu.BlockIdOp("x"))
        self.m0, self.n0 = grouped_tile_origin(kb, pid, self.tiles_m, self.tiles_n, c)
        if p.batch_dims:
            z = kb.v(gpu.BlockIdOp("z"))
            self.batch = dict(zip(p.batch_dims, kb.delinearize(z, p.batch_extents)))
        else:
            self.batch = {}

    # -- global -> shared ------------------------------------------------------------------
    def load_stage(self, kt: SSAValue, s: SSAValue) -> None:
        kb, c, r = self.kb, self.c, self.roles
        k0 = kb.mul_i(kt, c.bk)
        base = kb.mul_i(s, c.stage_elems)
        self._load(0, self.A, base, k0, self.m0, r.m, self.p.m, c.bm, self.wa)
        self._load(1, self.B, kb.add_i(base, c.bm * c.bk), k0, self.n0, r.n, self.p.n, c.bn, self.wb)

    def _load(self, which: int, src: SSAValue, base: SSAValue, k0: SSAValue, mn0: SSAValue, mn_dim: int,
              mn_extent: int, tile_mn: int, width: int) -> None:
        kb, c, p, r = self.kb, self.c, self.p, self.roles
        op = p.a if which == 0 else p.b
        vec, eb = op.vec, p.elem_bytes
        rows = (tile_mn if op.major == "k" else c.bk)
        per_row = width // vec
        total = rows * per_row
        count = -(-total // c.threads)
        guard_mn = mn_extent % tile_mn != 0
        guard_k = p.k % c.bk != 0
        amap = self.maps[which]

        def one(i, _):
            idx = kb.add_i(self.tid, kb.mul_i(i, c.threads))

            def copy():
                row = kb.div_i(idx, per_row)
                col = kb.mul_i(kb.rem_i(idx, per_row), vec)
                mn_off, k_off = (row, col) if op.major == "k" else (col, row)
                mn = kb.add_i(mn0, mn_off)
                kk = kb.add_i(k0, k_off)
                conds = ([kb.lt(mn, mn_extent)] if guard_mn else []) + ([kb.lt(kk, p.k)] if guard_k else [])
                if not conds:
                    pred = kb.v(arith.ConstantOp(IntegerAttr(1, I1)))
                else:
                    pred = conds[0] if len(conds) == 1 else kb.v(arith.AndIOp(conds[0], conds[1]))
                at = {mn_dim: mn, r.k: kk, **self.batch}
                dims = [at.get(d, kb.index(0)) for d in range(self.ndims)]
                gidx = [kb.affine(x, dims) for x in amap.results]  # type: ignore[attr-defined]
                dst = kb.add_i(base, self.swizzle(row, col, width))
                if vec > 1:
                    kb.add(ga.CpAsyncOp(src, gidx, self.tiles, dst, pred, vec * eb))
                    return []

                def load():
                    kb.store(kb.load(src, gidx), self.tiles, [dst])
                    return []

                def zero():
                    kb.store(kb.constant(0.0, self.elt), self.tiles, [dst])
                    return []

                if not conds:
                    load()
                else:
                    kb.if_(pred, load, zero)
                return []

            if total % c.threads:
                kb.if_(kb.lt(idx, total), copy)
            else:
                copy()
            return []

        kb.for_(0, count, 1, [], one, unroll=count)

    # -- the warp's fragments and products -------------------------------------------------
    def lane_offsets(self) -> None:
        """Per lane, loop-invariant parts of its ldmatrix row address, for A and B:
        (row part, chunk part already XORed with the row's key). Constant offsets of
        a fragment (16 rows or 16 of k further) keep the key (multiples of 8 rows) and
        touch column bits the lane's part does not (powers of two), so
        offset = row part + constant rows x width + (chunk part ^ constant columns)."""
        kb, c, p = self.kb, self.c, self.p
        lane = self.lane
        q = kb.div_i(lane, 8)
        r8 = kb.rem_i(lane, 8)
        qlo = kb.rem_i(q, 2)  # q & 1
        qhi = kb.div_i(q, 2)  # q >> 1
        wm0 = kb.mul_i(self.warp_m, c.wm)
        wn0 = kb.mul_i(self.warp_n, c.wn)
        # A: k-major rows are m (lane % 16), columns k ((lane / 16) * 8); m-major (.trans)
        # rows are k (8 (q >> 1) + lane % 8), columns m (8 (q & 1))
        if p.a.major == "k":
            a_row, a_col = kb.add_i(wm0, kb.rem_i(lane, 16)), kb.mul_i(kb.div_i(lane, 16), 8)
        else:
            a_row, a_col = kb.add_i(kb.mul_i(qhi, 8), r8), kb.add_i(wm0, kb.mul_i(qlo, 8))
        # B: k-major (stored N x K) rows are n (8 (q >> 1) + lane % 8), columns k (8 (q & 1));
        # n-major (.trans) rows are k (8 (q & 1) + lane % 8), columns n (8 (q >> 1))
        if p.b.major == "k":
            b_row, b_col = kb.add_i(wn0, kb.add_i(kb.mul_i(qhi, 8), r8)), kb.mul_i(qlo, 8)
        else:
            b_row, b_col = kb.add_i(kb.mul_i(qlo, 8), r8), kb.add_i(wn0, kb.mul_i(qhi, 8))
        self.a_lane = (kb.mul_i(a_row, self.wa), self.xor(a_col, self.key(a_row, self.wa)))
        self.b_lane = (kb.mul_i(b_row, self.wb), self.xor(b_col, self.key(b_row, self.wb)))

    def _frag_offset(self, base: SSAValue, lane: tuple[SSAValue, SSAValue], rows: int, cols: int,
                     width: int) -> SSAValue:
        kb = self.kb
        return kb.add_i(kb.add_i(base, kb.add_i(lane[0], rows * width)), self.xor(lane[1], cols))

    def compute(self, s: SSAValue) -> None:
        """The k-tile in stage `s`, 16 of k at a time. The fragments are double-buffered
        in program order: step kk + 1's ldmatrix are issued before step kk's mma.sync
        (both are volatile asm, which the compiler keeps in order), so their shared
        memory latency hides behind the products."""
        kb, c = self.kb, self.c
        a_base = kb.mul_i(s, c.stage_elems)
        b_base = kb.add_i(a_base, c.bm * c.bk)
        steps = c.bk // ms.MMA_K
        self.load_fragments(a_base, b_base, 0, 0)
        for kk in range(steps):
            if kk + 1 < steps:
                self.load_fragments(a_base, b_base, kk + 1, (kk + 1) % 2)
            self.multiply(kk % 2)

    def load_fragments(self, a_base: SSAValue, b_base: SSAValue, kk: int, buf: int) -> None:
        kb, p = self.kb, self.p
        k16 = kk * ms.MMA_K
        a0, b0 = buf * self.mi * 4, buf * self.ni * 2
        for i in range(self.mi):
            rows, cols = (i * 16, k16) if p.a.major == "k" else (k16, i * 16)
            off = self._frag_offset(a_base, self.a_lane, rows, cols, self.wa)
            kb.add(ga.LdmatrixOp(self.tiles, off, self.afrag, kb.index(a0 + 4 * i), 4, p.a.major != "k"))
        for j2 in range(self.ni // 2):
            rows, cols = (j2 * 16, k16) if p.b.major == "k" else (k16, j2 * 16)
            off = self._frag_offset(b_base, self.b_lane, rows, cols, self.wb)
            kb.add(ga.LdmatrixOp(self.tiles, off, self.bfrag, kb.index(b0 + 4 * j2), 4, p.b.major != "k"))

    def multiply(self, buf: int) -> None:
        kb, p = self.kb, self.p
        a0, b0 = buf * self.mi * 4, buf * self.ni * 2
        for i in range(self.mi):
            for j in range(self.ni):
                kb.add(ga.MmaSyncOp(self.acc, kb.index(4 * (i * self.ni + j)), self.afrag, kb.index(a0 + 4 * i),
                                    self.bfrag, kb.index(b0 + 4 * (j // 2) + 2 * (j % 2)), p.kind))

    # -- the epilogue ----------------------------------------------------------------------
    def epilogue(self) -> None:
        """Thread (g, t) = (lane / 4, lane % 4) holds, of the 16x8 product (i, j) of its
        warp, rows g and g + 8, columns 2t and 2t + 1: accumulators 4 (i ni + j) + 2h + e
        for row offset 8h and column offset e."""
        kb, c, p, r = self.kb, self.c, self.p, self.roles
        g, t = kb.div_i(self.lane, 4), kb.rem_i(self.lane, 4)
        row0 = kb.add_i(kb.add_i(self.m0, kb.mul_i(self.warp_m, c.wm)), g)
        col0 = kb.add_i(kb.add_i(self.n0, kb.mul_i(self.warp_n, c.wn)), kb.mul_i(t, 2))
        guard_m, guard_n = p.m % c.bm != 0, p.n % c.bn != 0

        def body(j, _):
            col = kb.add_i(col0, kb.mul_i(j, 8))
            for i in range(self.mi):
                for h in (0, 1):
                    row = kb.add_i(row0, 16 * i + 8 * h)
                    first = kb.add_i(kb.mul_i(j, 4), 4 * i * self.ni + 2 * h)
                    vals = [kb.load(self.acc, [kb.add_i(first, e)]) for e in (0, 1)]
                    self.out.store_pair(kb, {r.m: row, r.n: col, **self.batch, "split": kb.index(0)}, r.n, vals,
                                        p.m if guard_m else None, p.n if guard_n else None, r.m)
            return []

        kb.for_(0, self.ni, 1, [], body, unroll=self.ni)

    # -- the kernel ------------------------------------------------------------------------
    def run(self) -> None:
        kb, c, p = self.kb, self.c, self.p
        tiles_t = MemRefType(self.elt, [c.stages * c.stage_elems], memory_space=gpu.shared_space())
        self.tiles = kb.v(gpu.AllocSharedOp(tiles_t, 0))
        self.tid = kb.v(gpu.ThreadIdOp("x"))
        warp = kb.div_i(self.tid, 32)
        self.lane = kb.rem_i(self.tid, 32)
        self.warp_m = kb.div_i(warp, c.warps_n)
        self.warp_n = kb.rem_i(warp, c.warps_n)
        self.acc = kb.v(memref.AllocaOp.get(F32, shape=[c.acc_regs]))
        # two buffers of fragments (see `compute`)
        self.afrag = kb.v(memref.AllocaOp.get(I32, shape=[2 * self.mi * 4]))
        self.bfrag = kb.v(memref.AllocaOp.get(I32, shape=[2 * self.ni * 2]))
        self.tile()
        zero = kb.constant(0.0, F32)

        def clear(i, _):
            kb.store(zero, self.acc, [i])
            return []

        kb.for_(0, c.acc_regs, 1, [], clear, unroll=c.acc_regs)
        self.lane_offsets()
        # prologue: k-tiles 0 .. stages - 2, one commit group each (empty past the last)
        for s in range(c.stages - 1):
            if s < self.kt_count:
                self.load_stage(kb.index(s), kb.index(s))
            kb.add(ga.CpAsyncCommitOp())

        def body(kt, _):
            kb.add(ga.CpAsyncWaitOp(c.stages - 2))  # k-tile kt has landed (this thread's copies)
            kb.add(gpu.BarrierOp())  # ... everyone's; and k-tile kt - 1's buffer is free
            nk = kb.add_i(kt, c.stages - 1)

            def issue():
                self.load_stage(nk, kb.rem_i(nk, c.stages))
                return []

            kb.if_(kb.lt(nk, self.kt_count), issue)
            kb.add(ga.CpAsyncCommitOp())
            self.compute(kb.rem_i(kt, c.stages))
            return []

        kb.for_(0, self.kt_count, 1, [], body)
        kb.add(ga.CpAsyncWaitOp(0))
        self.epilogue()


def check(view: NestView, s: Schedule, lc: LoweringContext) -> tuple[ms.MmaProblem, ms.MmaConfig]:
    p = problem_of_view(view)
    if isinstance(p, str):
        raise NotImplementedError(f"gpu.mma_sync cannot run this nest: {p}")
    t = lc.target
    if not t.has_mma_sync:
        raise NotImplementedError(f"gpu.mma_sync needs sm_80 or later; the target is {t.name}")
    c = ms.MmaConfig.from_params(s.params)
    bad = ms.check_config(c, p, t.smem_per_block_optin, t.registers_per_sm, t.max_registers_per_thread,
                          t.max_threads_per_block)
    if bad:
        raise NotImplementedError(f"gpu.mma_sync {c.short()}: {bad}")
    if min(p.m, p.n, p.k, p.batch) == 0:
        raise NotImplementedError("gpu.mma_sync: the matmul has an empty dim")
    if c.tiles(p) > t.max_grid_x:
        raise NotImplementedError(f"gpu.mma_sync: {c.tiles(p)} tiles > the grid's x limit {t.max_grid_x}")
    if p.batch > t.max_grid_z:
        raise NotImplementedError(f"gpu.mma_sync: batch {p.batch} > the grid's z limit {t.max_grid_z}")
    return p, c


def make_kernel(view: NestView, s: Schedule, lc: LoweringContext, params, p: ms.MmaProblem,
                c: ms.MmaConfig) -> gpu.KernelOp:
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        [c.tiles(p), 1, p.batch],
        [c.threads, 1, 1],
        smem=c.smem_bytes(p.elem_bytes),
        launch_bounds=(c.threads, 1),
        index_bitwidth=64 if uses_64bit_index(view) else 32,
    )
    kernel.attributes[SCHEDULE_ATTR] = StringAttr(s.describe() + ("; " + "; ".join(view.notes) if view.notes else ""))
    kernel.attributes[gpu.FIXED_LAYOUTS_ATTR] = UnitAttr()  # the schedule swizzles its tiles itself
    return kernel


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    p, c = check(view, s, lc)
    roles = roles_of(view)
    assert roles is not None
    params = [view.inputs[roles.a], view.inputs[roles.b], view.outputs[0]]
    kernel = make_kernel(view, s, lc, params, p, c)
    annotate(kernel, view, params)
    A, B, C = kernel.args
    kb = KernelBuilder(kernel.body.block)
    out = StoreOutputs([(C, view.outputs[0].map, view.outputs[0].type)], roles.n, p.n)
    _Kernel(view, p, c, kb, A, B, out).run()
    kb.add(gpu.ReturnOp())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])


def build_group(group, name: str, s: Schedule, lc: LoweringContext) -> None:
    """`gpu.mma_sync_epilogue`: a matmul and its elementwise consumer as one kernel whose
    epilogue applies the consumer to the accumulators (as gpu.wgmma_epilogue does)."""
    found = epilogue_members(group)
    if isinstance(found, str):
        raise NotImplementedError(f"gpu.mma_sync_epilogue: {found}")
    mm, ep, t = found
    mm.name = name
    p, c = check(mm, s, lc)
    params = epilogue_params(mm, ep, t)
    kernel = make_kernel(mm, s, lc, params, p, c)
    annotate(kernel, mm, params)
    kb = KernelBuilder(kernel.body.block)
    A, B, out = epilogue_outputs(kernel, mm, ep, t, p.n)
    _Kernel(mm, p, c, kb, A, B, out).run()
    kb.add(gpu.ReturnOp())
    if s.get("math") == APPROX:
        mark_approximate(kernel.walk())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])
