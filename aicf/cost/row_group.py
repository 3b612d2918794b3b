"""The row-group kernel's cost (lowering/gpu_schedules/row_group.py builds it): mode,
block, grid, register caching, launch shape and pipelining of one kernel for an
`aicf_loop.group`, over the target description with the building blocks of
aicf/cost/gpu.py (the formula and the measurements behind its constants are in the
schedule's module docstring).
"""

from __future__ import annotations

import itertools
import math

from aicf.cost.gpu import (
    BLOCK_REDUCE_CYCLES,
    BLOCK_START_CYCLES,
    STRIDE_DRAM_EFFICIENCY,
    UNROLL,
    WARP_REDUCE_CYCLES,
    Plan,
    lane_efficiency,
    register_blocks,
    memory_time,
    occupancy,
    pick,
)
from aicf.lowering.gpu_schedules.row_group import BLOCKS, LAUNCHES, REDUCE, ROW, GroupView
from aicf.lowering.gpu_schedules.view import element_bytes, num_elements
from aicf.target import GpuTarget

# Values a thread may hold for the cached row: with ~32 registers of bookkeeping a
# thread stays under 64 registers, so at least half the SM's threads stay resident.
CACHE_BUDGET = 32
# Registers a thread needs besides the cached row (indices, accumulators, the body's
# temporaries); the launch bound promises ptxas this many plus the cache, so it must
# not be tight (a 16x2048 layer norm with gamma/beta spilled at 32).
REGS_BASE = 40

# --- the cost model ------------------------------------------------------------------------


def plan_row_group(gv: GroupView, t: GpuTarget) -> Plan:
    eb = max(element_bytes(p.type.get_element_type()) for p in gv.params)  # type: ignore[union-attr]
    dram = sum(num_elements(p.type) * element_bytes(p.type.get_element_type()) for p in gv.params)  # type: ignore[union-attr]
    # bytes each extra phase reads of the row operands (stream mode re-reads them)
    row_in = sum(
        num_elements(p.type) * element_bytes(p.type.get_element_type())  # type: ignore[union-attr]
        for p in gv.params
        if p not in gv.written and num_elements(p.type) >= gv.rows * gv.row_len  # type: ignore[union-attr]
    )
    walking = [m for m in gv.members if m.kind != ROW]
    nred = sum(1 for m in gv.members if m.kind == REDUCE)
    M, Ng = gv.rows, gv.row_len // gv.vec
    vbytes = gv.vec * eb
    cands: list[Plan] = []
    for mode in ("warp", "block"):
        for bs in BLOCKS:
            if mode == "warp" and bs > 256:
                continue
            lanes = 32 if mode == "warp" else bs
            rows_per_block = 1 if mode == "block" else bs // 32
            per = math.ceil(Ng / lanes)
            fits = per * gv.vec * max(1, gv.cached) <= CACHE_BUDGET
            # registers where a lane's share fits: a row that does not divide among the
            # lanes gets a guarded last vector (lane_efficiency prices the idle lanes)
            # and competes with streaming on cost
            caching = ([True] if fits else []) + ([False] if not fits or Ng % lanes else [])
            for in_regs, launch in itertools.product(caching, LAUNCHES):
                for pipe in (0, 1):
                    if launch == "once" and math.ceil(M / rows_per_block) > 2**31 - 1:
                        continue
                    if pipe and (not in_regs or launch == "once"):
                        continue  # one row per block has no next row to prefetch
                    cached_vals = per * gv.vec * gv.cached * (1 + pipe)
                    regs = REGS_BASE + (cached_vals if in_regs else 4 * gv.vec)
                    regs = min(t.max_registers_per_thread, math.ceil(regs / 8) * 8)
                    bps = register_blocks(t, bs, regs)
                    resident = t.num_sms * bps * bs
                    rows_at_once = resident // lanes
                    threads = min(M * lanes, resident)
                    inflight = vbytes * (per if in_regs else min(UNROLL, per))
                    occ = occupancy(t, threads, inflight)
                    lane_eff = lane_efficiency(Ng, lanes)
                    blocks_needed = math.ceil(M / rows_per_block)
                    waves = blocks_needed / (t.num_sms * bps)
                    # long-lived blocks of a grid-stride loop drift apart (cost.py)
                    eff = lane_eff * (STRIDE_DRAM_EFFICIENCY if launch == "stride" and waves > 1 else 1.0)
                    reread = 0 if in_regs else row_in * (len(walking) - 1)
                    step = WARP_REDUCE_CYCLES if mode == "warp" else BLOCK_REDUCE_CYCLES
                    mem = memory_time(t, dram, occ, eff) + reread / t.l2_bandwidth
                    red = M * nred * step / t.clock_hz / max(1, min(M, rows_at_once))
                    # the reductions' barrier phases overlap the memory stream when
                    # another row on the SM has loads in flight meanwhile: a second
                    # resident row, or the next row of a pipelined loop (measured,
                    # bench/NOTES.md: with 3 blocks/SM pipelining gained 1%)
                    overlap = pipe or rows_at_once >= 2 * t.num_sms
                    body = max(mem, red) if overlap else mem + red
                    start = blocks_needed * BLOCK_START_CYCLES / t.clock_hz / (t.num_sms * bps) if launch == "once" else 0.0
                    cost = body + start + t.launch_overhead_s
                    if launch == "once":
                        grid = blocks_needed
                    elif mode == "block":
                        grid = max(1, min(M, t.num_sms * bps))
                    else:
                        grid = max(1, min(blocks_needed, t.num_sms * bps))
                    p = Plan(
                        "gpu.row_group",
                        {"mode": mode, "block": bs, "grid": grid, "vec": gv.vec,
                         "rows": "registers" if in_regs else "stream", "per": per, "bps": bps,
                         "launch": launch, "pipeline": pipe, "unroll": UNROLL},
                        cost,
                    )
                    cands.append(p)
    return pick(cands)


