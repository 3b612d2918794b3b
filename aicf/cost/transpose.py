"""The price of a `gpu.transpose_tiled` point (lowering/gpu_schedules/transpose.py).

    time = max(dram, smem, issue) * tail + launch

- dram: the operands' bytes once, at the DRAM bandwidth times the occupancy term of
  gpu.py (Little's law: a thread has its phase-1 loads in flight, all issued before
  the barrier, over the resident threads, held back by registers and shared memory)
  and a segment term: each tile row is one run of tile_i (loads) or tile_o (stores)
  contiguous elements, and short runs spread a warp's accesses over more DRAM pages
  (SEGMENT_OVERHEAD_BYTES, to calibrate: bench/calibrate.py's transpose case);
- smem: the shared-memory wavefronts of every warp access of a tile (phase-1 vector
  stores along the rows, phase-2 scalar reads down the columns) under the tile's
  layout, from the bank-conflict model, at one wavefront per clock per SM;
- issue: per element moved, the access and index instructions of both phases;
- tail: the last partial wave of blocks; launch: the launch overhead.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from aicf.cost.gpu import ACCESS_INSTRUCTIONS, ISSUE_EFFICIENCY, Plan, memory_time, occupancy, pick
from aicf.target import GpuTarget

# A DRAM run of b contiguous bytes reaches b / (b + SEGMENT_OVERHEAD_BYTES) of the copy
# bandwidth (a guess from the classic 32x32 f32 transpose's ~90% of copy on recent
# GPUs; to calibrate)
SEGMENT_OVERHEAD_BYTES = 12
LOADS_IN_FLIGHT = 8
INDEX_INSTRUCTIONS = 6  # per access: the tile coordinates and the edge guard
REG_BASE = 24  # ptxas -v: the 64x64 f32 tile, 16 loads a thread, used 72
TILES = ((32, 32), (64, 64), (32, 64), (64, 32), (128, 32), (32, 128))
THREADS = (256, 128, 512)
VECS = (1, 2, 4)


@dataclass(frozen=True)
class TransposeProblem:
    load_extent: int  # along the staged inputs' contiguous dim
    store_extent: int  # along the outputs'
    batch: int
    nbytes: int  # every operand once
    staged_bytes: tuple[int, ...]  # element bytes of each staged input
    body_instructions: float


def smem_wavefronts(p: dict, elem_bytes: int, layout) -> int:
    """Wavefronts of all warp accesses to one staged tile (both phases; the same for
    any thread count: a warp's lanes are consecutive slots either way)."""
    return _wavefronts(p["tile_i"], p["tile_o"], p["vec_in"], p["vec_out"], elem_bytes, layout)


@functools.lru_cache(maxsize=1024)
def _wavefronts(ti: int, to: int, vi: int, vo: int, elem_bytes: int, layout) -> int:
    from aicf.passes.gpu.bank_conflicts import layout_offsets, wavefronts_many

    shape = (to, ti)
    lin = np.arange(ti * to // vi).reshape(-1, 32)  # phase 1: one row per warp access
    idx = np.stack([lin // (ti // vi), (lin % (ti // vi)) * vi], axis=-1)
    offs = layout_offsets(layout, idx, shape) * elem_bytes
    total = int(wavefronts_many(offs, np.ones(offs.shape, bool), vi * elem_bytes).sum())
    lin = np.arange(ti * to // vo).reshape(-1, 32)  # phase 2: vo scalar reads
    for j in range(vo):
        idx = np.stack([(lin % (to // vo)) * vo + j, lin // (to // vo)], axis=-1)
        offs = layout_offsets(layout, idx, shape) * elem_bytes
        total += int(wavefronts_many(offs, np.ones(offs.shape, bool), elem_bytes).sum())
    return total


def transpose_time(t: GpuTarget, prob: TransposeProblem, p: dict, layouts: list) -> tuple[float, dict]:
    """Predicted seconds of one point, and its terms; `layouts`: each staged tile's."""
    ti, to, th, vi, vo = p["tile_i"], p["tile_o"], p["threads"], p["vec_in"], p["vec_out"]
    blocks = math.ceil(prob.load_extent / ti) * math.ceil(prob.store_extent / to) * prob.batch
    smem_block = sum(to * (ti + vi) * eb for eb in prob.staged_bytes) + t.smem_reserved_per_block
    loads = ti * to // (vi * th)  # phase-1 accesses a thread issues before the barrier
    # ptxas keeps every phase-1 value and its address live: ~3 registers a 32-bit word
    regs = REG_BASE + 3 * loads * max(1, vi * max(prob.staged_bytes) // 4) * len(prob.staged_bytes)
    bps = max(1, min(t.max_blocks_per_sm, t.max_threads_per_sm // th, t.smem_per_sm // smem_block,
                     t.registers_per_sm // (regs * th)))
    resident = t.num_sms * bps
    threads = min(blocks, resident) * th
    # a thread does not keep all its phase-1 loads in flight: past LOADS_IN_FLIGHT,
    # ptxas issues them in batches (calibration, 4097x1000: 32 loads a thread ran
    # 2.3x slower than the all-in-flight model said, 8 or fewer as predicted)
    in_flight = min(loads, LOADS_IN_FLIGHT) * vi * sum(prob.staged_bytes)
    occ = occupancy(t, threads, in_flight / 2)  # the block holds no loads while it stores
    seg = min(ti * max(prob.staged_bytes), to * 4)  # the shorter of the contiguous runs (bytes)
    eff = seg / (seg + SEGMENT_OVERHEAD_BYTES)
    dram = memory_time(t, prob.nbytes, occ, eff)
    waves_smem = sum(smem_wavefronts(p, eb, lay) for eb, lay in zip(prob.staged_bytes, layouts))
    smem = blocks * waves_smem / (t.num_sms * t.clock_hz)
    elems = blocks * ti * to
    instr = elems * (prob.body_instructions + ACCESS_INSTRUCTIONS * (1 / vi + 1 / vo + 2)
                     + INDEX_INSTRUCTIONS * (1 / vi + 1 / vo))
    issue = instr / t.warp_size / (t.num_sms * t.sub_partitions * t.clock_hz * ISSUE_EFFICIENCY)
    waves = blocks / resident
    tail = math.ceil(waves) / waves if waves < 4 else 1.0 + 0.5 / waves
    cost = max(dram, smem, issue) * tail + t.launch_overhead_s
    terms = {"dram_us": dram * 1e6, "smem_us": smem * 1e6, "issue_us": issue * 1e6, "occ": occ,
             "seg_eff": eff, "tail": tail, "bps": bps}
    return cost, terms


def plan_transpose(t: GpuTarget, prob: TransposeProblem, points: list[tuple[dict, list]]) -> tuple[Plan, list]:
    """The cheapest of the legal points (each with its staged tiles' layouts; the
    earlier point wins within the model's resolution) and every point's terms."""
    cands, table = [], []
    for p, layouts in points:
        cost, terms = transpose_time(t, prob, p, layouts)
        cands.append(Plan("gpu.transpose_tiled", dict(p), cost))
        table.append((cost, p, terms))
    return pick(cands), table


def format_table(table: list, top: int) -> str:
    """The `top` cheapest points with their terms (aicf-plan explain)."""
    keys = ("dram_us", "smem_us", "issue_us", "occ", "seg_eff", "tail", "bps")
    lines = ["tile_i x tile_o threads vec_in/out smem  " + " ".join(keys) + " total_us"]
    for cost, p, terms in sorted(table, key=lambda r: r[0])[:top]:
        lines.append(f"{p['tile_i']}x{p['tile_o']} {p['threads']} {p['vec_in']}/{p['vec_out']} {p['smem']}  "
                     + " ".join(f"{terms[k]:.3g}" for k in keys) + f" {cost * 1e6:.2f}")
    return "\n".join(lines)
