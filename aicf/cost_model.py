"""The matmul cost model: which tiled kernel, and why.

A matmul-shaped `aicf_loop.nest` (one reduction dim k, two inputs A[.., m, .., k] and
B[.., k, .., n], output C[.., m, n], body `a * b` after an optional `extf`, combiner
`add`) has a space of tiled kernels. A candidate is a point of it:

- block tile BM x BN x BK (a block computes a BM x BN tile of C, stepping over k in
  BK slices staged through shared memory), per-thread register tile TM x TN, hence
  (BM/TM)*(BN/TN) threads;
- `stages` shared-memory buffers per operand (2: the next slice is loaded from
  global memory into registers while the current one is computed);
- the vector width of the global loads of A and B (the widest the operand's layout
  allows along k or along m/n) and whether the shared tiles are swizzled.

Each candidate gets an estimated time from the numbers of the target description
(aicf/target.py), as the maximum of three rooflines plus the launch:

    fma      waves * k_tiles * bps * (BM*BN*BK / fma_per_clk) / issue_eff / clock
    smem     waves * k_tiles * bps * shared-memory wavefronts per k-tile / clock
    latency  waves * k_tiles * (global latency not hidden by the other `stages`-1
             slices in flight)
    dram     bytes that must come from DRAM (A, B read once, C written) / bandwidth
    l2       bytes the tiles read (A once per column of blocks, B once per row) / L2 bw
    sync     each k-tile's barrier drains the SM's pipes: SYNC_CYCLES / bps exposed

    total = max(sm, mem) + min(sm, mem)^2 / max(sm, mem) + launch,
            sm = max(fma, smem, latency) + sync, mem = max(dram, l2)

  (the contention term: when the SM and the memory side are both near saturation,
  the stalls of one are no longer hidden behind the other; it vanishes when one
  side dominates and reaches full serialisation when they are equal)

- waves = ceil(blocks / (SMs * bps)): the tail effect of the last partial wave;
- a scheduler holding fewer than WARPS_TO_HIDE warps issues its FMAs at a
  proportionally lower rate (one warp stalls on its own fragment loads);
- bps (blocks per SM, the occupancy) is limited by registers (estimated per thread),
  shared memory and threads; candidates over 255 registers per thread or over the
  shared memory a block may statically hold are rejected, with the reason;
- issue_eff: FMAs over all instructions of a k-tile (fragment loads from shared
  memory, global loads, shared stores, the barrier);
- shared-memory wavefronts come from the bank-conflict model
  (passes/gpu/bank_conflicts.py) applied to the candidate's own thread mapping and
  the layout `aicf-swizzle-smem` would give it, so a conflicting layout costs time.

`plan()` ranks the candidates; `explain(nest)` prints the ranking with every term,
so a user can see why a kernel got its parameters (`aicf-plan{explain=true}` prints
the same table).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, MemRefType, NoneAttr
from xdsl.ir import Attribute, Block
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from aicf.target import DEFAULT_GPU, GpuTarget

# --------------------------------------------------------------------------------------
# Recognising a matmul
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulRoles:
    """Which domain dim plays which part, and which input is A (owns m)."""

    m: int
    n: int
    k: int
    batch: tuple[int, ...]
    a: int  # input index of A
    b: int  # input index of B


def _bare_dims(m: AffineMap) -> list[int] | None:
    """Positions of the dims the map's results name; None if a result is neither a
    bare dim nor a constant."""
    out = []
    for r in m.results:
        if isinstance(r, AffineDimExpr):
            out.append(r.position)
        elif not isinstance(r, AffineConstantExpr):
            return None
    return out


def _body_is_product(block: Block) -> bool:
    """args -> (extf)* -> mulf(a, b) -> yield, nothing else."""
    ops = list(block.ops)
    if len(ops) < 2 or len(block.args) != 2:
        return False
    *work, yld = ops
    if len(yld.operands) != 1:
        return False
    mul = work[-1]
    if not isinstance(mul, arith.MulfOp) or yld.operands[0] is not mul.result:
        return False
    for op in work[:-1]:
        if not isinstance(op, arith.ExtFOp) or op.input not in block.args:
            return False

    def root(v):
        o = getattr(v, "op", None)
        return o.input if isinstance(o, arith.ExtFOp) else v

    return {root(mul.lhs), root(mul.rhs)} == set(block.args)


def match_matmul(
    extents: Sequence[int],
    iterators: Sequence[str],
    input_maps: Sequence[AffineMap],
    output_maps: Sequence[AffineMap],
    combiners: Sequence[str],
    body: Block | None,
) -> MatmulRoles | None:
    """The roles of a matmul-shaped nest, or None when it is not one."""
    if len(input_maps) != 2 or len(output_maps) != 1 or list(combiners) != ["add"]:
        return None
    red = [d for d, it in enumerate(iterators) if it == "reduction"]
    par = [d for d, it in enumerate(iterators) if it == "parallel"]
    if len(red) != 1:
        return None
    k = red[0]
    if body is not None and not _body_is_product(body):
        return None
    out = _bare_dims(output_maps[0])
    if out is None or sorted(out) != par or len(out) != len(output_maps[0].results):
        return None
    ins = [_bare_dims(m) for m in input_maps]
    if any(i is None or len(set(i)) != len(i) for i in ins):
        return None
    used = [set(i) for i in ins]  # type: ignore[arg-type]
    if not all(k in u for u in used):
        return None
    if len(out) < 2:
        return None
    # n: C's innermost dim (its rows are contiguous), m: the one before; each must be
    # read by exactly one input, a different one; every other parallel dim is batch
    m_dim, n_dim = out[-2], out[-1]
    owner = {}
    for d in (m_dim, n_dim):
        users = [j for j in (0, 1) if d in used[j]]
        if len(users) != 1:
            return None
        owner[d] = users[0]
    if owner[m_dim] == owner[n_dim]:
        return None
    a, b = owner[m_dim], owner[n_dim]
    batch = tuple(d for d in out if d not in (m_dim, n_dim))
    return MatmulRoles(m_dim, n_dim, k, batch, a, b)


# --------------------------------------------------------------------------------------
# The problem as the cost model sees it
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulProblem:
    batch: int
    m: int
    n: int
    k: int
    a_bytes: int  # element sizes
    b_bytes: int
    c_bytes: int
    # widest legal vector (elements) of a global access along each role, 1 if none
    a_vec: dict[str, int] = field(default_factory=lambda: {"k": 1, "m": 1})
    b_vec: dict[str, int] = field(default_factory=lambda: {"k": 1, "n": 1})
    c_vec: int = 1

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.m * self.n * self.k

    def describe(self) -> str:
        b = f"{self.batch}x" if self.batch > 1 else ""
        return f"{b}{self.m}x{self.n}x{self.k} (M x N x K)"


def _elem_bytes(t: Attribute) -> int:
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    w = getattr(t, "width", None)
    return max(1, w.data // 8) if w is not None else 4


def problem_of(
    extents: Sequence[int],
    roles: MatmulRoles,
    types: Sequence[MemRefType],
    maps: Sequence[AffineMap],
    max_vector_bytes: int = 16,
) -> MatmulProblem:
    """The problem of a matched nest: `types`/`maps` are A-or-B inputs then the output
    in the nest's operand order."""
    from aicf.lowering.gpu_schedules.view import VECTOR, Operand, access_class

    ops = [Operand(None, t, m) for t, m in zip(types, maps)]  # type: ignore[arg-type]
    A, B, C = ops[roles.a], ops[roles.b], ops[2]

    def widest(o: Operand, dim: int) -> int:
        eb = _elem_bytes(o.type.get_element_type())
        v = max(1, max_vector_bytes // eb)
        while v > 1:
            if extents[dim] % v == 0 and access_class(o, dim, v) == VECTOR:
                return v
            v //= 2
        return 1

    batch = 1
    for d in roles.batch:
        batch *= extents[d]
    return MatmulProblem(
        batch=batch,
        m=extents[roles.m],
        n=extents[roles.n],
        k=extents[roles.k],
        a_bytes=_elem_bytes(A.type.get_element_type()),
        b_bytes=_elem_bytes(B.type.get_element_type()),
        c_bytes=_elem_bytes(C.type.get_element_type()),
        a_vec={"k": widest(A, roles.k), "m": widest(A, roles.m)},
        b_vec={"k": widest(B, roles.k), "n": widest(B, roles.n)},
        c_vec=min(4, widest(C, roles.n)),
    )


def nest_problem(nest, target: GpuTarget = DEFAULT_GPU) -> tuple[MatmulRoles, MatmulProblem] | None:
    """Roles and problem of an `aicf_loop.nest`, or None if it is not a matmul."""
    roles = match_matmul(
        nest.extents,
        [i.value for i in nest.iterators],
        nest.input_maps,
        nest.output_maps,
        [c.value for c in nest.combiner_kinds],
        nest.body.block,
    )
    if roles is None:
        return None
    types = [v.type for v in (*nest.inputs, *nest.outputs)]
    if not all(isinstance(t, MemRefType) for t in types):
        return None
    return roles, problem_of(nest.extents, roles, types, nest.maps, target.max_vector_bytes)


# --------------------------------------------------------------------------------------
# Candidates and the schedule's thread mapping (shared with the GPU schedule)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    bm: int
    bn: int
    bk: int
    tm: int
    tn: int
    stages: int = 2
    vec_a: int = 1
    vec_b: int = 1
    dim_a: str = "k"  # the dim A's global vectors run along: "k" or "m"
    dim_b: str = "n"  # "k" or "n"
    vec_c: int = 1
    swizzle: bool = True

    @property
    def threads(self) -> int:
        return (self.bm // self.tm) * (self.bn // self.tn)

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def threads_n(self) -> int:
        """Threads along n (consecutive thread ids)."""
        return self.bn // self.tn

    def loads_per_thread(self, which: str) -> int:
        r, v = (self.bm, self.vec_a) if which == "a" else (self.bn, self.vec_b)
        return (r * self.bk) // (self.threads * v)

    def smem_tile_bytes(self) -> int:
        """Shared tiles hold f32 (f16/bf16 are widened when staged)."""
        return self.stages * self.bk * (self.bm + self.bn) * 4

    def params(self) -> dict[str, int | str | bool]:
        return {
            "bm": self.bm, "bn": self.bn, "bk": self.bk, "tm": self.tm, "tn": self.tn,
            "threads": self.threads, "stages": self.stages,
            "vec_a": self.vec_a, "dim_a": self.dim_a, "vec_b": self.vec_b, "dim_b": self.dim_b,
            "vec_c": self.vec_c, "swizzle": self.swizzle,
        }

    def short(self) -> str:
        sw = "swz" if self.swizzle else "row"
        return (
            f"{self.bm}x{self.bn}x{self.bk} t{self.tm}x{self.tn} w{self.warps} s{self.stages} "
            f"vA{self.vec_a}{self.dim_a} vB{self.vec_b}{self.dim_b} {sw}"
        )


def load_coords(c: Candidate, which: str, tid: int, it: int) -> tuple[int, int]:
    """(k, r) of the first element that thread `tid` loads in its `it`-th global
    access of the A (r = m) or B (r = n) tile. Consecutive threads take consecutive
    vectors along the vector dim, so a warp's loads are coalesced."""
    r_ext, v, along = (c.bm, c.vec_a, c.dim_a) if which == "a" else (c.bn, c.vec_b, c.dim_b)
    lin = it * c.threads + tid
    if along == "k":
        per_row = c.bk // v
        return (lin % per_row) * v, lin // per_row
    per_row = r_ext // v
    return lin // per_row, (lin % per_row) * v


def frag_rows(c: Candidate, which: str, tid: int) -> list[int]:
    """First row (m for A, n for B) of each 4-wide fragment a thread reads from shared
    memory: TM/4 groups spaced BM/(TM/4) apart (so a warp's reads of one group are
    contiguous and conflict-free)."""
    if which == "a":
        t, ext, n = tid // c.threads_n, c.bm, c.tm
    else:
        t, ext, n = tid % c.threads_n, c.bn, c.tn
    groups = n // 4
    span = ext // groups
    return [g * span + t * 4 for g in range(groups)]


def smem_accesses(c: Candidate, which: str, warp: int = 0):
    """The warp accesses of one shared tile [stages, BK, R] in one k-tile, as
    (name, index_of_lane, vec, count per warp per k-tile) tuples."""
    v, along = (c.vec_a, c.dim_a) if which == "a" else (c.vec_b, c.dim_b)
    acc = []
    for it in range(c.loads_per_thread(which)):
        kr = [load_coords(c, which, warp * 32 + l, it) for l in range(32)]
        if along == "k":  # transposed: v scalar stores down k
            for j in range(v):
                tab = [(0, k + j, r) for k, r in kr]
                acc.append((f"store {which} (transposed) #{it}.{j}", tab.__getitem__, 1, 1))
        else:
            sv = min(v, 4)
            for j in range(0, v, sv):
                tab = [(0, k, r + j) for k, r in kr]
                acc.append((f"store {which} #{it}.{j}", tab.__getitem__, sv, 1))
    n_groups = (c.tm if which == "a" else c.tn) // 4
    for g in range(n_groups):
        tab = [(0, 0, frag_rows(c, which, warp * 32 + l)[g]) for l in range(32)]
        acc.append((f"read {which} fragment {g}", tab.__getitem__, 4, c.bk))
    return acc


# --------------------------------------------------------------------------------------
# Estimating
# --------------------------------------------------------------------------------------

BM_CHOICES = (32, 64, 128, 256)
BK_CHOICES = (8, 16, 32)
T_CHOICES = (4, 8)
STAGES = (2,)  # register-prefetch double buffering: what the schedule generates
REG_OVERHEAD = 28  # addresses, loop counters, indices (seen in ptxas -v reports)
# Headroom kept under the per-thread cap: 128x256x16 with 8x8 per thread was estimated
# at 120 registers and spilled 8 bytes under a 128 cap (ptxas -v, sm_90).
REG_MARGIN = 16
GUARD_REGS = 4
# Prefetched slices live across a whole k-tile of unrolled FMAs; past this many
# registers ptxas spilled even under a 255 cap (64x32x32, 8x8, one warp: 276 bytes).
MAX_PREFETCH_REGS = 64
INSTR_PER_KTILE = 16  # barrier, loop, address updates of one k-tile
# Cycles an SM idles at each k-tile's barrier (the last FMAs, the shared stores and
# the first fragment loads drain in sequence); other resident blocks fill it, so a
# block exposes SYNC_CYCLES / bps.
SYNC_CYCLES = 200
# Warps a scheduler needs so that its FMAs issue back to back (8x8 register tiles give
# each warp ILP; 1 warp per scheduler measured 17.4 TFLOP/s at 1024^3 where 34 was
# predicted without this term, H100, 2026-11-22).
WARPS_TO_HIDE = 2


@dataclass
class Estimate:
    cand: Candidate
    feasible: bool
    reason: str = ""
    regs: int = 0
    smem: int = 0
    bps: int = 0  # resident blocks per SM
    blocks: int = 0
    waves: int = 0
    tail: float = 0.0  # useful share of the last-wave-padded grid
    issue_eff: float = 0.0
    pad_eff: float = 0.0  # useful share of the padded tile work
    smem_wavefronts: int = 0  # per warp per k-tile
    conflicts: int = 0  # extra wavefronts per warp per k-tile from bank conflicts
    layouts: dict[str, Attribute] = field(default_factory=dict)
    terms: dict[str, float] = field(default_factory=dict)  # seconds
    total: float = math.inf

    @property
    def bound(self) -> str:
        t = {k: v for k, v in self.terms.items() if k not in ("launch", "sync", "contention")}
        return max(t, key=t.get) if t else "-"


def _vec_choice(p: MatmulProblem, which: str, rows: int, bk: int, threads: int) -> tuple[int, str]:
    """Widest vector that divides the tile among the threads, preferring the dim that
    is contiguous in shared memory (r) on a tie."""
    vecs = p.a_vec if which == "a" else p.b_vec
    r_name = "m" if which == "a" else "n"
    best = (1, "k")
    for dim_name, ext in ((r_name, rows), ("k", bk)):
        v = vecs[dim_name]
        while v > 1 and (ext % v or (rows * bk) % (threads * v)):
            v //= 2
        if v > best[0] or (v == best[0] and dim_name == r_name and v > 1):
            best = (v, dim_name)
    if best[0] == 1:
        # scalar loads: walk the operand's contiguous dim if it has one
        cont = r_name if vecs[r_name] > 1 else ("k" if vecs["k"] > 1 else r_name)
        best = (1, cont)
    return best


def candidates(p: MatmulProblem) -> list[Candidate]:
    out = []
    for bm in BM_CHOICES:
        for bn in BM_CHOICES:
            for bk in BK_CHOICES:
                for tm in T_CHOICES:
                    for tn in T_CHOICES:
                        threads = (bm // tm) * (bn // tn)
                        if threads < 32 or threads > 1024 or threads % 32:
                            continue
                        for st in STAGES:
                            va, da = _vec_choice(p, "a", bm, bk, threads)
                            vb, db = _vec_choice(p, "b", bn, bk, threads)
                            for sw in (True, False):
                                out.append(Candidate(bm, bn, bk, tm, tn, st, va, vb, da, db, p.c_vec, sw))
    return out


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


_LAYOUT_CACHE: dict[tuple, tuple[Attribute, int, int]] = {}


def _tile_layout(c: Candidate, which: str, swizzle: bool) -> tuple[Attribute, int, int]:
    """(layout, smem cycles per warp per k-tile, conflict wavefronts per warp per k-tile)
    of one shared tile under the layout `aicf-swizzle-smem` picks (or row-major)."""
    from aicf.passes.gpu.bank_conflicts import threads_per_phase
    from aicf.passes.gpu.swizzle_smem import choose_layout

    if which == "a":
        key = ("a", c.bm, c.bk, c.tm, c.threads_n, c.threads, c.vec_a, c.dim_a, c.stages, swizzle)
    else:
        key = ("b", c.bn, c.bk, c.tn, c.threads_n, c.threads, c.vec_b, c.dim_b, c.stages, swizzle)
    if key in _LAYOUT_CACHE:
        return _LAYOUT_CACHE[key]
    r_ext = c.bm if which == "a" else c.bn
    shape = (c.stages, c.bk, r_ext)
    acc = smem_accesses(c, which)
    if swizzle:
        layout = choose_layout(shape, 4, [(f, v) for _, f, v, _ in acc]).layout
    else:
        layout = NoneAttr()
    cycles = conflicts = 0
    import numpy as np

    from aicf.passes.gpu.bank_conflicts import layout_offsets, wavefronts_many

    for v in sorted({a[2] for a in acc}):
        group = [a for a in acc if a[2] == v]
        idx = np.array([[f(lane) for lane in range(32)] for _, f, _, _ in group], dtype=np.int64)
        counts = np.array([n for *_, n in group], dtype=np.int64)
        addrs = layout_offsets(layout, idx, shape) * 4
        waves = wavefronts_many(addrs, np.ones(addrs.shape, dtype=bool), 4 * v)
        phases = 32 // threads_per_phase(4 * v)
        words = (addrs // 4)[..., None] + np.arange(v)
        uniq = np.array([len(np.unique(w)) for w in words.reshape(len(group), -1)])
        ideal = -(-uniq * 4 // 128)
        extra = waves - phases  # wavefronts beyond one per phase: the conflicts
        cycles += int(((ideal + extra) * counts).sum())
        conflicts += int((extra * counts).sum())
    res = (layout, cycles, conflicts)
    _LAYOUT_CACHE[key] = res
    return res


def blocks_by_registers(t: GpuTarget, regs: int, warps: int) -> int:
    """Blocks of `warps` warps at `regs` registers per thread that fit on one SM. Each
    sub-partition holds a quarter of the register file and the warps are spread over
    the sub-partitions, so the fullest one decides (this is also how ptxas turns
    `__launch_bounds__(threads, blocks)` into a register cap)."""
    per_warp = _cdiv(regs * 32, t.reg_alloc_unit) * t.reg_alloc_unit
    per_part = t.registers_per_sm // t.sub_partitions
    b = 0
    while _cdiv((b + 1) * warps, t.sub_partitions) * per_warp <= per_part and b < t.max_blocks_per_sm:
        b += 1
    return b


def estimate(c: Candidate, p: MatmulProblem, t: GpuTarget = DEFAULT_GPU) -> Estimate:
    e = Estimate(c, feasible=False)
    threads = c.threads
    la, lb = c.loads_per_thread("a"), c.loads_per_thread("b")
    if la < 1 or lb < 1 or (c.bm * c.bk) % (threads * c.vec_a) or (c.bn * c.bk) % (threads * c.vec_b):
        e.reason = "the A/B tiles do not divide evenly among the threads"
        return e
    # registers: accumulators, fragments, prefetched slices, overhead
    # each prefetched access holds its value (a 16-bit scalar still takes a whole
    # register) and the offset it was loaded from
    # (a scalar access also keeps its own 64-bit address and bound: calibrated on
    # tiles of 16-32 guarded scalar loads that spilled under ptxas -v)
    # (16-bit elements count as f32: ptxas widens them as soon as they arrive)
    def held(v: int, eb: int) -> int:
        return v + (1 if v > 1 else 3)

    pre = la * held(c.vec_a, p.a_bytes) + lb * held(c.vec_b, p.b_bytes)
    # partial tiles keep their bounds live (4097x4095x1000 at 128x128x8 spilled 4 bytes
    # under a 128 cap without this)
    guarded = p.m % c.bm or p.n % c.bn or p.k % c.bk
    regs = c.tm * c.tn + c.tm + c.tn + pre + REG_OVERHEAD + (GUARD_REGS if guarded else 0)
    e.regs = regs = _cdiv(regs, 8) * 8
    e.smem = c.smem_tile_bytes()
    cap = min(t.max_registers_per_thread, t.registers_per_sm // threads // 8 * 8)
    if regs + REG_MARGIN > cap:
        e.reason = f"needs ~{regs}+{REG_MARGIN} registers per thread > {cap} (would spill)"
        return e
    if pre > MAX_PREFETCH_REGS:
        e.reason = (
            f"holds ~{pre} registers of prefetched tiles across the k-tile "
            f"(> {MAX_PREFETCH_REGS}: ptxas spills)"
        )
        return e
    if e.smem > t.smem_per_block_default:
        e.reason = (
            f"{e.smem // 1024} KB of shared tiles > {t.smem_per_block_default // 1024} KB "
            f"a block holds statically"
        )
        return e
    by_regs = blocks_by_registers(t, regs, c.warps)
    by_smem = t.smem_per_sm // (e.smem + t.smem_reserved_per_block)
    by_threads = t.max_threads_per_sm // threads
    e.bps = min(by_regs, by_smem, by_threads, t.max_blocks_per_sm)
    if e.bps < 1:
        e.reason = f"no block fits on an SM ({regs} registers x {threads} threads)"
        return e
    e.feasible = True

    gm, gn = _cdiv(p.m, c.bm), _cdiv(p.n, c.bn)
    e.blocks = p.batch * gm * gn
    conc = t.num_sms * e.bps
    e.waves = _cdiv(e.blocks, conc)
    e.tail = e.blocks / (e.waves * conc)
    ktiles = _cdiv(p.k, c.bk)
    e.pad_eff = (p.m * p.n * p.k) / (gm * c.bm * gn * c.bn * ktiles * c.bk) if p.k else 1.0

    # instruction mix of one k-tile per thread
    fma = c.bk * c.tm * c.tn
    lds = c.bk * (c.tm + c.tn) // 4
    sts_a = la * (c.vec_a if c.dim_a == "k" else max(1, c.vec_a // 4))
    sts_b = lb * (c.vec_b if c.dim_b == "k" else max(1, c.vec_b // 4))
    other = la + lb + sts_a + sts_b + INSTR_PER_KTILE
    e.issue_eff = fma / (fma + lds + other)

    # shared memory: wavefronts per warp per k-tile, under the candidate's layouts
    lay_a, cyc_a, con_a = _tile_layout(c, "a", c.swizzle)
    lay_b, cyc_b, con_b = _tile_layout(c, "b", c.swizzle)
    e.layouts = {"a": lay_a, "b": lay_b}
    from aicf.dialects.gpu import PaddedLayoutAttr

    for lay, r_ext in ((lay_a, c.bm), (lay_b, c.bn)):
        if isinstance(lay, PaddedLayoutAttr):  # padded rows take a little more memory
            e.smem += 4 * lay.footprint(c.stages * c.bk * r_ext) - 4 * c.stages * c.bk * r_ext
    if e.smem > t.smem_per_block_default:
        e.feasible = False
        e.reason = f"{e.smem} bytes of padded shared tiles > {t.smem_per_block_default // 1024} KB"
        return e
    e.smem_wavefronts = cyc_a + cyc_b
    e.conflicts = con_a + con_b

    clk = t.clock_hz
    fma_per_clk = t.fp32_flops / 2 / t.num_sms / clk  # measured FFMA rate per SM
    fma_cyc = c.bm * c.bn * c.bk / fma_per_clk / e.issue_eff
    smem_cyc = e.smem_wavefronts * c.warps * t.smem_bytes_per_clk / 128
    lat_cyc = t.mem_latency_s * clk / max(1, c.stages - 1)

    def per_tile(resident: int) -> dict[str, float]:
        """Cycles of one k-tile on an SM holding `resident` blocks of this kernel. A
        scheduler with fewer than WARPS_TO_HIDE warps stalls on its own shared-memory
        loads and barrier: its FMA rate drops in proportion."""
        per_sched = resident * c.warps / t.sub_partitions
        hide = min(1.0, per_sched / WARPS_TO_HIDE)
        return {
            "fma": resident * fma_cyc / hide,
            "smem": resident * smem_cyc,
            "latency": lat_cyc,
            "sync": SYNC_CYCLES / resident,
        }

    # full waves hold bps blocks per SM; the last, partial wave fewer (the tail)
    full, rest = divmod(e.blocks, conc)
    wave_s = {k: full * ktiles * v / clk for k, v in per_tile(e.bps).items()}
    if rest:
        for k, v in per_tile(_cdiv(rest, t.num_sms)).items():
            wave_s[k] += ktiles * v / clk
    dram = p.batch * (p.m * p.k * p.a_bytes + p.k * p.n * p.b_bytes + p.m * p.n * p.c_bytes)
    l2 = p.batch * (gn * p.m * p.k * p.a_bytes + gm * p.k * p.n * p.b_bytes) + p.batch * p.m * p.n * p.c_bytes
    e.terms = {
        **wave_s,
        "dram": dram / t.dram_bandwidth,
        "l2": l2 / t.l2_bandwidth,
        "launch": t.launch_overhead_s,
    }
    sm_time = max(e.terms["fma"], e.terms["smem"], e.terms["latency"]) + e.terms["sync"]
    mem_time = max(e.terms["dram"], e.terms["l2"])
    hi, lo = max(sm_time, mem_time), min(sm_time, mem_time)
    e.terms["contention"] = lo * lo / hi if hi > 0 else 0.0
    e.total = hi + e.terms["contention"] + t.launch_overhead_s
    return e


def plan(p: MatmulProblem, t: GpuTarget = DEFAULT_GPU) -> list[Estimate]:
    """Every candidate, feasible ones first, cheapest first (ties: fewer conflicts,
    then fewer threads and smaller tiles, for a deterministic choice)."""
    ests = [estimate(c, p, t) for c in candidates(p)]
    return sorted(
        ests,
        key=lambda e: (
            not e.feasible,
            round(e.total, 9),
            e.conflicts,
            not e.cand.swizzle,
            e.cand.threads,
            e.cand.bm * e.cand.bn * e.cand.bk,
        ),
    )


def best(p: MatmulProblem, t: GpuTarget = DEFAULT_GPU) -> Estimate:
    return plan(p, t)[0]


def candidate_from_params(params: dict, p: MatmulProblem) -> Candidate:
    """The candidate a schedule attribute names (missing keys: defaults of the problem)."""
    c = Candidate(
        bm=int(params["bm"]), bn=int(params["bn"]), bk=int(params["bk"]),
        tm=int(params["tm"]), tn=int(params["tn"]),
        stages=int(params.get("stages", 2)),
    )
    va, da = _vec_choice(p, "a", c.bm, c.bk, c.threads)
    vb, db = _vec_choice(p, "b", c.bn, c.bk, c.threads)
    return replace(
        c,
        vec_a=int(params.get("vec_a", va)), dim_a=str(params.get("dim_a", da)),
        vec_b=int(params.get("vec_b", vb)), dim_b=str(params.get("dim_b", db)),
        vec_c=int(params.get("vec_c", p.c_vec)), swizzle=bool(params.get("swizzle", True)),
    )


# --------------------------------------------------------------------------------------
# Explaining
# --------------------------------------------------------------------------------------


def format_table(p: MatmulProblem, ests: Sequence[Estimate], top: int = 8, t: GpuTarget = DEFAULT_GPU) -> str:
    feas = [e for e in ests if e.feasible]
    rej = [e for e in ests if not e.feasible]
    lines = [
        f"matmul {p.describe()} on {t.name} ({t.num_sms} SMs): "
        f"{len(feas)} feasible candidates, {len(rej)} rejected",
        f"{'#':>2} {'candidate':<40} {'regs':>4} {'smem':>6} {'bps':>3} {'waves':>5} {'tail':>5} "
        f"{'issue':>5} {'confl':>5} {'fma_us':>8} {'smem_us':>8} {'lat_us':>8} {'sync_us':>8} {'dram_us':>8} "
        f"{'l2_us':>8} {'cont_us':>8} {'total_us':>9} {'TFLOP/s':>7} bound",
    ]
    for i, e in enumerate(feas[:top]):
        tf = p.flops / e.total / 1e12 if e.total > 0 else 0.0
        tm = e.terms
        lines.append(
            f"{i:>2} {e.cand.short():<40} {e.regs:>4} {e.smem:>6} {e.bps:>3} {e.waves:>5} "
            f"{e.tail:>5.2f} {e.issue_eff:>5.2f} {e.conflicts:>5} {tm['fma'] * 1e6:>8.2f} "
            f"{tm['smem'] * 1e6:>8.2f} {tm['latency'] * 1e6:>8.2f} {tm['sync'] * 1e6:>8.2f} {tm['dram'] * 1e6:>8.2f} "
            f"{tm['l2'] * 1e6:>8.2f} {tm['contention'] * 1e6:>8.2f} {e.total * 1e6:>9.2f} {tf:>7.2f} {e.bound}"
        )
    if feas:
        b = feas[0]
        lines.append(
            f"chosen: {b.cand.short()}, {b.cand.threads} threads; bound by {b.bound}; "
            f"layouts A={b.layouts.get('a')} B={b.layouts.get('b')}"
        )
    # one line per kind of rejection: how many, and the first example
    kinds: dict[str, list[Estimate]] = {}
    for e in rej:
        kind = ("registers" if "registers" in e.reason else
                "shared memory" if "shared" in e.reason else "thread split")
        kinds.setdefault(kind, []).append(e)
    for kind, es in kinds.items():
        lines.append(f"rejected ({kind}, {len(es)}): e.g. {es[0].cand.short()}: {es[0].reason}")
    return "\n".join(lines)


def explain(nest, top: int = 8, target: GpuTarget = DEFAULT_GPU) -> str:
    """A readable table of the best candidates for a matmul-shaped `aicf_loop.nest`,
    with every cost term, and the rejected ones with their reasons."""
    found = nest_problem(nest, target)
    if found is None:
        return "not a matmul-shaped nest: no tiled-matmul candidates"
    _, p = found
    if min(p.m, p.n, p.k, p.batch) == 0:
        return f"matmul {p.describe()} has an empty dim: nothing to tile"
    return format_table(p, plan(p, target), top, target)
