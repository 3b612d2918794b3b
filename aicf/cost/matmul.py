"""The tiled matmul's cost: which point of its space (lowering/gpu_schedules/
matmul_space.py), and why.

A point of the space (block and register tiles, stages, vector widths, swizzle:
see matmul_space.py) is a `Candidate`. Each candidate gets an estimated time from the numbers of the target description
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

from xdsl.dialects.builtin import AnyFloat, MemRefType, NoneAttr
from xdsl.ir import Attribute, Block
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from aicf.target import GpuTarget
from aicf.cost.gpu import blocks_by_registers
from aicf.lowering.gpu_schedules.matmul_space import (
    BK_CHOICES,
    BM_CHOICES,
    STAGES,
    T_CHOICES,
    Candidate,
    MatmulProblem,
    MatmulRoles,
    _vec_choice,
    candidate_from_params,
    candidates,
    check_candidate,
    match_matmul,
    nest_problem,
    problem_of,
    smem_accesses,
)

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


def estimate(c: Candidate, p: MatmulProblem, t: GpuTarget) -> Estimate:
    e = Estimate(c, feasible=False)
    threads = c.threads
    la, lb = c.loads_per_thread("a"), c.loads_per_thread("b")
    bad = check_candidate(c, p)
    if bad:
        e.reason = bad
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


def plan(p: MatmulProblem, t: GpuTarget) -> list[Estimate]:
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


def best(p: MatmulProblem, t: GpuTarget) -> Estimate:
    return plan(p, t)[0]


# --------------------------------------------------------------------------------------
# Explaining
# --------------------------------------------------------------------------------------


def format_table(p: MatmulProblem, ests: Sequence[Estimate], t: GpuTarget, top: int = 8) -> str:
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


def explain(nest, target: GpuTarget, top: int = 8) -> str:
    """A readable table of the best candidates for a matmul-shaped `aicf_loop.nest`,
    with every cost term, and the rejected ones with their reasons."""
    found = nest_problem(nest, target.max_vector_bytes)
    if found is None:
        return "not a matmul-shaped nest: no tiled-matmul candidates"
    _, p = found
    if min(p.m, p.n, p.k, p.batch) == 0:
        return f"matmul {p.describe()} has an empty dim: nothing to tile"
    return format_table(p, plan(p, target), target, top)
