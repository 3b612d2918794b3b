"""The tiled matmul schedule: register-blocked GEMM on CUDA cores, f32 accumulation.

For a matmul-shaped nest (matmul_space.py: `match_matmul`) with the parameters of its
`gpu.matmul_tiled` schedule (written by `aicf-plan` or by hand; tile extents refined
by `aicf.tiling`, written by `aicf-tile`), one kernel:

- grid (ceil(N/BN), ceil(M/BM), batch): block (x, y) computes the BM x BN tile of C
  at (y*BM, x*BN) of batch entry z (z delinearised over the batch dims; a broadcast
  batch dim is a constant index in the operand's map, so it costs nothing);
- (BM/TM)*(BN/TN) threads, each accumulating TM x TN outputs in registers (loop-
  carried values of the k loop), from 4-wide fragments: thread (ty, tx) owns rows
  g*BM/(TM/4) + 4*ty + i and columns g*BN/(TN/4) + 4*tx + j;
- shared tiles As[stages][BK][BM] (A stored K-major, i.e. transposed, so that a
  thread's TM rows at one k are contiguous and read with 16-byte loads) and
  Bs[stages][BK][BN], both f32 (f16/bf16 inputs are widened when staged); their
  layouts are assigned by `aicf-swizzle-smem` from these very accesses;
- two stages: the slice k+1 is loaded from global memory into registers while slice
  k is computed from shared memory, then stored to the other buffer; one barrier per
  slice. The last slice is peeled (no prefetch past the end);
- global loads are vectors (16 bytes where the operand's layout allows, along k or
  along m/n), coalesced (consecutive threads take consecutive vectors) and guarded
  only where M, N or K do not divide by the tile (out-of-range elements read as 0);
  C is stored with vectors along n, guarded the same way.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, vector
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, SSAValue

from aicf.dialects import gpu
from aicf.dialects.schedule import Schedule
from aicf.target import GpuTarget

from . import matmul_space as cm

from .builder import KernelBuilder, convert
from .context import LoweringContext
from .view import NestView, Operand, annotate, uses_64bit_index

F32 = Float32Type()
TILING_ATTR = "aicf.tiling"


def roles_of(view: NestView) -> cm.MatmulRoles | None:
    body = view.source.body.block if view.source is not None else None
    return cm.match_matmul(
        view.extents,
        view.iterators,
        [o.map for o in view.inputs],
        [o.map for o in view.outputs],
        view.combiners,
        body,
    )


def problem_of_view(view: NestView, roles: cm.MatmulRoles, target: GpuTarget) -> cm.MatmulProblem:
    ops = view.operands
    return cm.problem_of(view.extents, roles, [o.type for o in ops], [o.map for o in ops], target.max_vector_bytes)


def applies(view: NestView) -> bool:
    return roles_of(view) is not None


def f64_reason(view: NestView) -> str | None:
    """Why the kernel cannot run an f64 matmul: its tiles and accumulators are f32, so
    it would round every f64 operand and product to f32 without a word."""
    types = [*view.acc_types, *(o.type.get_element_type() for o in view.operands)]  # type: ignore[union-attr]
    if any(isinstance(t, Float64Type) for t in types):
        return "f64 operands: its shared tiles and accumulators are f32"
    return None


def refined_params(view: NestView, s: Schedule) -> dict:
    """The schedule's parameters refined by `aicf.tiling` (the tile extents per role,
    which `aicf-tile` writes and the lowering follows)."""
    p = dict(s.params)
    src = view.source
    tiling = src.attributes.get(TILING_ATTR) if src is not None else None
    if isinstance(tiling, DictionaryAttr):
        t = {k: _attr_value(v) for k, v in tiling.data.items()}
        roles_list, block, thread = t.get("roles"), t.get("tile"), t.get("thread")
        if roles_list and block and thread:
            for name, key, tkey in (("m", "bm", "tm"), ("n", "bn", "tn"), ("k", "bk", None)):
                if name in roles_list:
                    i = roles_list.index(name)
                    p[key] = block[i]
                    if tkey:
                        p[tkey] = thread[i]
    return p


def _attr_value(a: Attribute):
    if isinstance(a, IntegerAttr):
        return a.value.data
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, ArrayAttr):
        return [_attr_value(x) for x in a.data]
    if hasattr(a, "get_values"):
        return list(a.get_values())  # type: ignore[attr-defined]
    return None


# --------------------------------------------------------------------------------------
# The kernel
# --------------------------------------------------------------------------------------


class _Gen:
    def __init__(self, view: NestView, roles: cm.MatmulRoles, prob: cm.MatmulProblem, c: cm.Candidate, kb: KernelBuilder, args):
        self.v, self.r, self.p, self.c, self.kb = view, roles, prob, c, kb
        self.A = view.inputs[roles.a]
        self.B = view.inputs[roles.b]
        self.C = view.outputs[0]
        self.a_arg = args[roles.a]
        self.b_arg = args[roles.b]
        self.c_arg = args[len(view.inputs)]

    # -- global -> registers ---------------------------------------------------------------
    def tile_coords(self, which: str, tid: SSAValue, it: int) -> tuple[SSAValue, SSAValue]:
        """(k, r) offsets inside the tile of this thread's `it`-th access: the IR
        form of matmul_space.load_coords."""
        c, kb = self.c, self.kb
        r_ext, v, along = (c.bm, c.vec_a, c.dim_a) if which == "a" else (c.bn, c.vec_b, c.dim_b)
        lin = kb.add_i(tid, it * c.threads)
        if along == "k":
            per_row = c.bk // v
            return kb.mul_i(kb.rem_i(lin, per_row), v), kb.div_i(lin, per_row)
        per_row = r_ext // v
        return kb.div_i(lin, per_row), kb.mul_i(kb.rem_i(lin, per_row), v)

    def global_index(self, op: Operand, dims: dict[int, SSAValue]) -> list[SSAValue]:
        full = [dims.get(d) for d in range(len(self.v.extents))]
        return [self.kb.affine(e, full) for e in op.map.results]  # type: ignore[arg-type]

    def load_tile(self, which: str, k0: SSAValue | int, r0: SSAValue, coords) -> list:
        """Raw values (vectors or scalars, in the operand's element type) of this
        thread's share of the tile starting at (k0, r0)."""
        c, kb, r = self.c, self.kb, self.r
        op, arg = (self.A, self.a_arg) if which == "a" else (self.B, self.b_arg)
        r_dim, r_ext, R = (r.m, c.bm, self.p.m) if which == "a" else (r.n, c.bn, self.p.n)
        v, along = (c.vec_a, c.dim_a) if which == "a" else (c.vec_b, c.dim_b)
        elt = op.type.get_element_type()
        K = self.p.k
        guard_k, guard_r = K % c.bk != 0, R % r_ext != 0
        out = []
        for kk, rr in coords:
            kg = kb.add_i(kk, k0)
            rg = kb.add_i(rr, r0)
            dims = {**self.batch_dims, r.k: kg, r_dim: rg}
            idx = self.global_index(op, dims)
            conds = []
            if guard_k:
                conds.append(kb.lt(kg, K))
            if guard_r:
                conds.append(kb.lt(rg, R))
            cond = None
            for cnd in conds:
                cond = cnd if cond is None else kb.v(arith.AndIOp(cond, cnd))
            if v > 1:
                vt = VectorType(elt, [v])
                if cond is None:
                    out.append(kb.load_vector(arg, idx, v))
                else:
                    zero = kb.constant(0.0, elt)
                    res = kb.if_(
                        cond,
                        lambda: [kb.load_vector(arg, idx, v)],
                        lambda: [kb.v(vector.BroadcastOp(zero, vt))],
                        [vt],
                    )
                    out.append(res[0])
            else:
                if cond is None:
                    out.append(kb.load(arg, idx))
                else:
                    zero = kb.constant(0.0, elt)
                    out.append(kb.if_(cond, lambda: [kb.load(arg, idx)], lambda: [zero], [elt])[0])
        return out

    # -- registers -> shared -------------------------------------------------------------
    def store_tile(self, which: str, smem: SSAValue, stage: SSAValue, coords, raw: list) -> None:
        c, kb = self.c, self.kb
        v, along = (c.vec_a, c.dim_a) if which == "a" else (c.vec_b, c.dim_b)
        for (kk, rr), val in zip(coords, raw):
            if v > 1:
                scalars = [kb.extract(val, j) for j in range(v)]
            else:
                scalars = [val]
            scalars = [convert(kb, s, F32) for s in scalars]
            if along == "k":
                for j, s in enumerate(scalars):
                    kb.store(s, smem, [stage, kb.add_i(kk, j), rr])
            else:
                j = 0
                while j < len(scalars):
                    w = min(4, len(scalars) - j)
                    if w == 4:
                        kb.store_vector(kb.pack(scalars[j : j + 4]), smem, [stage, kk, kb.add_i(rr, j)])
                    else:
                        for q in range(w):
                            kb.store(scalars[j + q], smem, [stage, kk, kb.add_i(rr, j + q)])
                    j += w

    # -- shared -> FMAs -------------------------------------------------------------------
    def compute(self, As: SSAValue, Bs: SSAValue, stage: SSAValue, ty: SSAValue, tx: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        c, kb = self.c, self.kb
        ga, gb = c.tm // 4, c.tn // 4
        span_a, span_b = c.bm // ga, c.bn // gb
        a_rows = [kb.add_i(kb.mul_i(ty, 4), g * span_a) for g in range(ga)]
        b_cols = [kb.add_i(kb.mul_i(tx, 4), g * span_b) for g in range(gb)]
        acc = list(acc)
        for k in range(c.bk):
            kk = kb.index(k)
            af: list[SSAValue] = []
            for r0 in a_rows:
                vec = kb.load_vector(As, [stage, kk, r0], 4)
                af += [kb.extract(vec, j) for j in range(4)]
            bf: list[SSAValue] = []
            for c0 in b_cols:
                vec = kb.load_vector(Bs, [stage, kk, c0], 4)
                bf += [kb.extract(vec, j) for j in range(4)]
            for i in range(c.tm):
                for j in range(c.tn):
                    q = i * c.tn + j
                    acc[q] = kb.v(mathd.FmaOp(af[i], bf[j], acc[q]))
        return acc

    # -- registers -> C ------------------------------------------------------------------
    def epilogue(self, m0: SSAValue, n0: SSAValue, ty: SSAValue, tx: SSAValue, acc: list[SSAValue]) -> None:
        c, kb, r, p = self.c, self.kb, self.r, self.p
        ga, gb = c.tm // 4, c.tn // 4
        span_a, span_b = c.bm // ga, c.bn // gb
        elt = self.C.type.get_element_type()
        guard_m, guard_n = p.m % c.bm != 0, p.n % c.bn != 0
        vec = c.vec_c if c.vec_c == 4 else 1
        for i in range(c.tm):
            g, ii = divmod(i, 4)
            row = kb.add_i(kb.add_i(kb.mul_i(ty, 4), g * span_a + ii), m0)
            for gj in range(gb):
                col0 = kb.add_i(kb.add_i(kb.mul_i(tx, 4), gj * span_b), n0)
                vals = [convert(kb, acc[i * c.tn + gj * 4 + j], elt) for j in range(4)]

                def store_group(row=row, col0=col0, vals=vals):
                    if vec == 4:
                        idx = self.global_index(self.C, {**self.batch_dims, r.m: row, r.n: col0})
                        kb.store_vector(kb.pack(vals), self.c_arg, idx)
                        return []
                    for j in range(4):
                        col = kb.add_i(col0, j)

                        def one(col=col, j=j):
                            idx = self.global_index(self.C, {**self.batch_dims, r.m: row, r.n: col})
                            kb.store(vals[j], self.c_arg, idx)
                            return []

                        if guard_n:
                            kb.if_(kb.lt(col, p.n), one)
                        else:
                            one()
                    return []

                conds = []
                if guard_m:
                    conds.append(kb.lt(row, p.m))
                if guard_n and vec == 4:
                    conds.append(kb.lt(col0, p.n))
                cond = None
                for cnd in conds:
                    cond = cnd if cond is None else kb.v(arith.AndIOp(cond, cnd))
                if cond is None:
                    store_group()
                else:
                    kb.if_(cond, store_group)

    # -- the whole kernel ----------------------------------------------------------------
    def run(self) -> tuple[SSAValue, SSAValue]:
        c, kb, r, p = self.c, self.kb, self.r, self.p
        tid = kb.v(gpu.ThreadIdOp("x"))
        bx = kb.v(gpu.BlockIdOp("x"))
        by = kb.v(gpu.BlockIdOp("y"))
        self.batch_dims: dict[int, SSAValue] = {}
        if r.batch:
            bz = kb.v(gpu.BlockIdOp("z"))
            ext = [self.v.extents[d] for d in r.batch]
            for d, val in zip(r.batch, kb.delinearize(bz, ext)):
                self.batch_dims[d] = val
        m0 = kb.mul_i(by, c.bm)
        n0 = kb.mul_i(bx, c.bn)
        As = kb.v(gpu.AllocSharedOp(MemRefType(F32, [c.stages, c.bk, c.bm], memory_space=gpu.shared_space())))
        Bs = kb.v(gpu.AllocSharedOp(MemRefType(F32, [c.stages, c.bk, c.bn], memory_space=gpu.shared_space())))
        ca = [self.tile_coords("a", tid, it) for it in range(c.loads_per_thread("a"))]
        cb = [self.tile_coords("b", tid, it) for it in range(c.loads_per_thread("b"))]
        tx = kb.rem_i(tid, c.threads_n)
        ty = kb.div_i(tid, c.threads_n)
        ktiles = math.ceil(p.k / c.bk)

        s0 = kb.index(0)
        ra = self.load_tile("a", s0, m0, ca)
        rb = self.load_tile("b", s0, n0, cb)
        self.store_tile("a", As, s0, ca, ra)
        self.store_tile("b", Bs, s0, cb, rb)
        kb.add(gpu.BarrierOp())
        zero = kb.constant(0.0, F32)
        acc = [zero] * (c.tm * c.tn)

        if ktiles > 1:
            def body(kt: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                stage = kb.rem_i(kt, 2)
                nxt = kb.rem_i(kb.add_i(kt, 1), 2)
                k_next = kb.mul_i(kb.add_i(kt, 1), c.bk)
                na = self.load_tile("a", k_next, m0, ca)
                nb = self.load_tile("b", k_next, n0, cb)
                out = self.compute(As, Bs, stage, ty, tx, carried)
                self.store_tile("a", As, nxt, ca, na)
                self.store_tile("b", Bs, nxt, cb, nb)
                kb.add(gpu.BarrierOp())
                return out

            acc = kb.for_(0, ktiles - 1, 1, acc, body)
        last = kb.index((ktiles - 1) % 2)
        acc = self.compute(As, Bs, last, ty, tx, acc)
        self.epilogue(m0, n0, ty, tx, acc)
        return As, Bs


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    roles = roles_of(view)
    if roles is None:
        raise NotImplementedError("gpu.matmul_tiled needs a matmul-shaped nest")
    if f64_reason(view):
        raise NotImplementedError(f"gpu.matmul_tiled: {f64_reason(view)}")
    prob = problem_of_view(view, roles, lc.target)
    c = cm.candidate_from_params(refined_params(view, s), prob)
    bad = cm.check_candidate(c, prob)
    if not bad and c.threads > lc.target.max_threads_per_block:
        bad = f"{c.threads} threads > {lc.target.max_threads_per_block} a block may have"
    if not bad and s.get("threads", c.threads) != c.threads:
        bad = f"threads = {s['threads']}, but (bm/tm)*(bn/tn) = {c.threads} threads compute the tile"
    if not bad and c.smem_tile_bytes() > lc.target.smem_per_block_default:
        bad = (f"{c.smem_tile_bytes()} bytes of shared tiles > the "
               f"{lc.target.smem_per_block_default} a block holds statically")
    if bad:
        raise NotImplementedError(f"gpu.matmul_tiled {c.short()}: {bad}")
    params = [*view.inputs, *view.outputs]
    grid = [math.ceil(prob.n / c.bn), math.ceil(prob.m / c.bm), prob.batch]
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        grid,
        [c.threads, 1, 1],
        launch_bounds=(c.threads, s.get("bps", 1)),
        index_bitwidth=64 if uses_64bit_index(view) else 32,
    )
    kernel.attributes["aicf.schedule"] = StringAttr(
        s.describe() + ("; " + "; ".join(view.notes) if view.notes else "")
    )
    if not c.swizzle:  # the schedule asks for row-major tiles: aicf-swizzle-smem keeps them
        kernel.attributes[gpu.FIXED_LAYOUTS_ATTR] = UnitAttr()
    annotate(kernel, view, params)
    kb = KernelBuilder(kernel.body.block)
    gen = _Gen(view, roles, prob, c, kb, list(kernel.args))
    gen.run()
    kb.add(gpu.ReturnOp())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])
