"""The price of the tensor-core schedules: `gpu.wgmma` (lowering/gpu_schedules/wgmma.py)
and, at the end, `gpu.mma_sync` (mma_sync.py; `mma_estimate`).

One block per SM (its shared ring takes most of the SM), so tiles run in waves of
`num_sms`; a tile costs its tensor-core work at the per-SM share of the rate our
kernel reaches (`GpuTarget.wgmma_efficiency` of `fp16_flops`, measured), plus filling
the pipeline (one stage's copy) and draining the epilogue (the tile's stores). The
DRAM roofline (A and B read once, C written once) bounds it from below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from aicf.lowering.gpu_schedules.mma_sync_space import MmaConfig, MmaProblem
from aicf.lowering.gpu_schedules.mma_sync_space import check_config as mma_check_config
from aicf.lowering.gpu_schedules.mma_sync_space import space as mma_space
from aicf.lowering.gpu_schedules.wgmma_space import WgmmaConfig, WgmmaProblem, check_config, space
from aicf.target import GpuTarget


# Throughput of a tile shape and of a pipeline depth, relative to 128 x 256 with 4
# stages (wider wgmma n reads less shared memory per FLOP; one consumer warpgroup
# hides less latency; 3 stages leave the copy engine too little lead), from the sweep
# of 4096^3 f16 on the lent H100 (bench/tensor_core.py --sweep,
# bench/results/2026-11-23-tensor-core-sweep-H100.json, best of persistent or not):
# 128x192 0.89, 128x128 0.90, 64x256 0.90; 3 stages 0.80-0.98 of 4, 5 stages 0.90-1.0.
# The smaller shapes are extrapolated.
TILE_EFFICIENCY = {(128, 256): 1.0, (128, 192): 0.89, (128, 128): 0.90, (128, 64): 0.75,
                   (64, 256): 0.90, (64, 192): 0.8, (64, 128): 0.75, (64, 64): 0.6}
STAGE_EFFICIENCY = {2: 0.6, 3: 0.85, 4: 1.0, 5: 0.97, 6: 0.95}


@dataclass(frozen=True)
class Estimate:
    config: WgmmaConfig
    total: float
    terms: dict
    reason: str = ""
    grid: int = 0  # blocks launched (fewer than the tiles: a persistent grid)
    split: int = 1  # split-K factor

    @property
    def feasible(self) -> bool:
        return not self.reason

    def params(self) -> dict:
        tiles = self.terms.get("tiles", 0)
        return {**self.config.params(), **({"grid": self.grid} if 0 < self.grid < tiles else {}),
                **({"split": self.split} if self.split > 1 else {})}

    def short(self) -> str:
        return (self.config.short() + (f" persistent grid={self.grid}" if self.grid < self.terms.get("tiles", 0) else "")
                + (f" split={self.split}" if self.split > 1 else ""))


def estimate(c: WgmmaConfig, p: WgmmaProblem, t: GpuTarget, out_bytes: int, persistent: bool = False,
             split: int = 1, scalar_stores: bool = False, epilogue_instructions: float = 0.0) -> Estimate:
    """Predicted seconds of `c` on `p`; `persistent`: one block per SM walking the
    tiles, so a tile's pipeline fill and epilogue overlap its neighbours' work;
    `split`: split-K, each tile's k-tiles shared by `split` blocks writing f32
    partials, summed by a second pass (priced here as its DRAM traffic and a launch);
    `scalar_stores`: C's rows do not take column pairs. The fragment epilogue pays a
    term on top of the drain (GpuTarget.wgmma_pair_store_slowdown, or
    wgmma_scalar_store_slowdown for one element at a time); the staged one
    (`store = "smem"`) none, whatever the alignment.

    `epilogue_instructions`: a fused epilogue's body, per element (aicf.cost.ops). The
    consumers run it between two tiles' mainloops, so the tensor cores wait for it:
    each tile pays bm*bn/32 warp instructions per instruction of the body at
    GpuTarget.wgmma_epilogue_issue_per_clock."""
    bad = check_config(c, p, t.smem_per_block_optin, t.registers_per_sm)
    if bad:
        return Estimate(c, math.inf, {}, bad)
    tiles = c.tiles(p) * p.batch * split
    waves = math.ceil(tiles / t.num_sms)
    eff = t.wgmma_efficiency * TILE_EFFICIENCY.get((c.bm, c.bn), 0.6) * STAGE_EFFICIENCY.get(c.stages, 0.9)
    peak = t.tf32_flops if p.kind == "tf32" else t.fp16_flops
    sm_rate = peak * eff / t.num_sms
    k_padded = math.ceil(p.k / c.bk) * c.bk // split
    tile_compute = 2 * c.bm * c.bn * k_padded / sm_rate
    sm_bw = t.dram_bandwidth / t.num_sms
    # a tile's operands stream through its SM at (at most) that SM's share of DRAM
    tile_load = (c.bm + c.bn) * k_padded * p.elem_bytes / sm_bw if tiles < t.num_sms else 0.0
    tile_compute = max(tile_compute, tile_load)
    epilogue = c.bm * c.bn / 32 * epilogue_instructions / (t.wgmma_epilogue_issue_per_clock * t.clock_hz)
    tile_compute += epilogue
    fill = c.stage_bytes(p.elem_bytes) / sm_bw
    drain = c.bm * c.bn * (4 if split > 1 else out_bytes) / sm_bw
    if persistent and waves > 1:
        compute = waves * tile_compute + fill + drain
        grid = t.num_sms
    else:
        compute = waves * (tile_compute + fill + drain)
        grid = tiles
    dram = (p.batch * (p.m * p.k + p.k * p.n) * p.elem_bytes + p.batch * p.m * p.n * out_bytes) / t.dram_bandwidth
    total = max(compute, dram) + t.launch_overhead_s
    if split > 1 and c.store == "smem":
        return Estimate(c, math.inf, {}, "split-K stores f32 partials from the fragments")
    stores = 0.0
    if c.store == "fragment" and split == 1:
        slowdown = t.wgmma_scalar_store_slowdown if scalar_stores else t.wgmma_pair_store_slowdown
        stores = p.batch * p.m * p.n * out_bytes * slowdown / t.dram_bandwidth
    total += stores
    combine = 0.0
    if split > 1:
        combine = (split * 4 + out_bytes) * p.batch * p.m * p.n / t.dram_bandwidth + t.launch_overhead_s
        total += combine
    terms = {"tiles": tiles, "waves": waves, "tile_us": tile_compute * 1e6, "compute": compute, "dram": dram,
             "combine": combine, "scalar_stores": stores, "epilogue_tile_us": epilogue * 1e6}
    return Estimate(c, total, terms, grid=grid, split=split)


def splits(c: WgmmaConfig, p: WgmmaProblem, t: GpuTarget) -> list[int]:
    """Split-K factors worth pricing: powers of two dividing the k-tiles, while the
    tiles do not yet fill the SMs twice over."""
    kt = math.ceil(p.k / c.bk)
    tiles = c.tiles(p) * p.batch
    out, s = [1], 2
    while kt % s == 0 and tiles * s <= 2 * t.num_sms and kt // s >= 2:
        out.append(s)
        s *= 2
    return out


def plan(p: WgmmaProblem, t: GpuTarget, out_bytes: int, allow_split: bool = True,
         scalar_stores: bool = False, epilogue_instructions: float = 0.0) -> list[Estimate]:  # fmt: skip
    """Every configuration of the space, persistent or not, split-K or not (where
    `allow_split`), cheapest first (infeasible ones last)."""
    est = [estimate(c, p, t, out_bytes, pers, sp, scalar_stores, epilogue_instructions)
           for c in space(p) for pers in (False, True)
           for sp in (splits(c, p, t) if allow_split else [1])
           if not (pers and sp > 1) and not (sp > 1 and c.store == "smem")]
    return sorted(est, key=lambda e: (not e.feasible, e.total))


# --------------------------------------------------------------------------------------
# gpu.mma_sync (lowering/gpu_schedules/mma_sync.py): warp-level tensor cores, sm_80 on
# --------------------------------------------------------------------------------------

# a pipeline this many k-tiles deep per SM (stages - 1 in flight per resident block,
# plus the one being multiplied) hides the copies' latency as wgmma's ring of that depth
# does (STAGE_EFFICIENCY, measured for gpu.wgmma; the same copy latency to hide); past 4
# the ring is deep enough (wgmma's 5 and 6 lose to its larger shared footprint, which
# mma_blocks_per_sm prices here)
MAX_DEPTH = 4


@dataclass(frozen=True)
class MmaEstimate:
    config: MmaConfig
    total: float
    terms: dict
    reason: str = ""

    @property
    def feasible(self) -> bool:
        return not self.reason

    def params(self) -> dict:
        return self.config.params()

    def short(self) -> str:
        return self.config.short()


def mma_blocks_per_sm(c: MmaConfig, p: MmaProblem, t: GpuTarget) -> int:
    """Blocks of `c` resident on one SM: threads, shared memory (with the driver's
    reservation) and registers (`regs()` rounded to the allocation unit per warp)."""
    per_warp = -(-c.regs() * t.warp_size // t.reg_alloc_unit) * t.reg_alloc_unit
    by_regs = t.registers_per_sm // (per_warp * c.warps)
    by_smem = t.smem_per_sm // (c.smem_bytes(p.elem_bytes) + t.smem_reserved_per_block)
    by_threads = t.max_threads_per_sm // c.threads
    return max(0, min(t.max_blocks_per_sm, by_regs, by_smem, by_threads))


def mma_estimate(c: MmaConfig, p: MmaProblem, t: GpuTarget, out_bytes: int, scalar_stores: bool = False,
                 epilogue_instructions: float = 0.0) -> MmaEstimate:
    """Predicted seconds of `c` on `p`. Blocks run in waves of `num_sms` x the blocks an
    SM holds; the blocks resident on an SM share its tensor cores (the per-SM share of
    `fp16_flops` x `GpuTarget.mma_sync_efficiency`) and its shared memory, which every
    16 of k moves each warp's fragments (ldmatrix: (wm + wn) x 16 elements) and the
    block's copies ((bm + bn) x 16) at `smem_bytes_per_clk`: a tile takes the longer of
    the two. The copies' latency is hidden as well as a pipeline of resident x (stages
    - 1) + 1 k-tiles hides it (STAGE_EFFICIENCY); fewer than one warp per SM
    sub-partition leaves tensor cores idle. Each tile also streams its (bm + bn) x K
    operands from L2, at the SM's share of `l2_bandwidth`. Filling the pipeline, the epilogue's drain
    and its stores as in `estimate`; the DRAM roofline bounds it from below."""
    bad = mma_check_config(c, p, t.smem_per_block_optin, t.registers_per_sm, t.max_registers_per_thread,
                           t.max_threads_per_block)
    if bad:
        return MmaEstimate(c, math.inf, {}, bad)
    bps = mma_blocks_per_sm(c, p, t)
    if bps < 1:
        return MmaEstimate(c, math.inf, {}, "no block fits on an SM")
    eb = p.elem_bytes
    tiles = c.tiles(p) * p.batch
    resident = min(bps, math.ceil(tiles / t.num_sms))
    waves = math.ceil(tiles / (t.num_sms * bps))
    depth = min(MAX_DEPTH, resident * (c.stages - 1) + 1)
    issue = min(1.0, resident * c.warps / t.sub_partitions)
    sm_rate = t.fp16_flops * t.mma_sync_efficiency * STAGE_EFFICIENCY.get(depth, 0.6) * issue / t.num_sms
    k_padded = math.ceil(p.k / c.bk) * c.bk
    steps = k_padded // 16
    # one wave on an SM: its resident blocks' tiles, side by side
    mma_time = resident * 2 * c.bm * c.bn * k_padded / sm_rate
    smem_per_step = (c.warps * (c.wm + c.wn) + (c.bm + c.bn)) * 16 * eb
    smem_time = resident * steps * smem_per_step / (t.smem_bytes_per_clk * t.clock_hz)
    sm_bw = t.dram_bandwidth / t.num_sms
    load_time = resident * (c.bm + c.bn) * k_padded * eb / sm_bw if tiles < t.num_sms else 0.0
    # every tile streams its A rows and B columns from L2 (small tiles re-read them often)
    l2_time = resident * (c.bm + c.bn) * k_padded * eb / (t.l2_bandwidth / t.num_sms)
    epilogue = resident * c.bm * c.bn / 32 * epilogue_instructions / (t.wgmma_epilogue_issue_per_clock * t.clock_hz)
    wave = max(mma_time, smem_time, load_time, l2_time) + epilogue
    fill = (c.stages - 1) * c.stage_bytes(eb) / sm_bw
    drain = c.bm * c.bn * out_bytes / sm_bw
    compute = waves * wave + fill + drain
    dram = (p.batch * (p.m * p.k + p.k * p.n) * eb + p.batch * p.m * p.n * out_bytes) / t.dram_bandwidth
    slowdown = t.wgmma_scalar_store_slowdown if scalar_stores else t.wgmma_pair_store_slowdown
    stores = p.batch * p.m * p.n * out_bytes * slowdown / t.dram_bandwidth
    total = max(compute, dram) + t.launch_overhead_s + stores
    terms = {"tiles": tiles, "blocks_per_sm": bps, "waves": waves, "wave_us": wave * 1e6,
             "mma_us": mma_time * 1e6, "smem_us": smem_time * 1e6, "l2_us": l2_time * 1e6, "compute": compute, "dram": dram,
             "stores": stores, "depth": depth}
    return MmaEstimate(c, total, terms)


def mma_plan(p: MmaProblem, t: GpuTarget, out_bytes: int, scalar_stores: bool = False,
             epilogue_instructions: float = 0.0) -> list[MmaEstimate]:
    """Every configuration of the mma.sync space, cheapest first (infeasible ones last)."""
    est = [mma_estimate(c, p, t, out_bytes, scalar_stores, epilogue_instructions) for c in mma_space(p)]
    return sorted(est, key=lambda e: (not e.feasible, e.total))
