"""The cost model that picks launch and tile parameters for the memory-bound schedules.

Every parameter a schedule uses (block size, vector width, rows per block, split
factor, unroll) is chosen here by comparing estimated times, from the numbers in
aicf/target.py. The estimate, in seconds, is

    time = bytes / (bandwidth * occupancy * lane_efficiency)     memory traffic
         + launches * launch_overhead                            each kernel launch
         + reduction_steps * step_cycles / clock / concurrency   warp/block combine

- bytes: the fewest bytes the kernel moves (each operand once, plus workspace).
- occupancy (the parallelism term): DRAM only reaches its bandwidth with
  `bandwidth * latency` bytes in flight (Little's law, ~2 MB on an H100); a
  kernel keeps `threads * bytes_per_access * loads_in_flight` in flight, capped by
  how many threads the GPU holds at once.
- lane_efficiency: the share of lanes doing useful loads when a row's work does not
  divide evenly among the lanes that share it.
- reduction steps: a warp shuffle tree costs ~5 shuffles; a block step adds shared
  memory and two barriers.

`Plan.why` keeps the costs of the alternatives so `aicf-opt` output (the kernel's
`aicf.schedule` attribute) says why a kernel got its parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from aicf.target import GpuTarget

# Cycle counts of the combine steps (measured order of magnitude on sm_90).
WARP_REDUCE_CYCLES = 5 * 30
BLOCK_REDUCE_CYCLES = 2 * 200 + WARP_REDUCE_CYCLES * 2
# Independent loads a thread keeps in flight in an unrolled loop.
UNROLL = 4
BLOCK_SIZES = (256, 128, 512, 1024)


@dataclass
class Plan:
    schedule: str
    params: dict
    cost: float
    why: list[str] = field(default_factory=list)

    def describe(self) -> str:
        ps = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.schedule} {ps} est={self.cost * 1e6:.2f}us"


def blocks_per_sm(t: GpuTarget, block: int) -> int:
    return max(1, min(t.max_blocks_per_sm, t.max_threads_per_sm // block))


def resident_threads(t: GpuTarget, block: int) -> int:
    return t.num_sms * blocks_per_sm(t, block) * block


def occupancy(t: GpuTarget, threads: int, bytes_in_flight_per_thread: float) -> float:
    """Share of DRAM bandwidth reachable with `threads` threads each keeping
    `bytes_in_flight_per_thread` bytes of loads outstanding."""
    if threads <= 0:
        return 1.0
    need = t.dram_bandwidth * t.mem_latency_s
    return max(1e-3, min(1.0, threads * bytes_in_flight_per_thread / need))


def memory_time(t: GpuTarget, nbytes: int, occ: float, lane_eff: float = 1.0) -> float:
    return nbytes / (t.dram_bandwidth * occ * max(lane_eff, 1e-3))


def lane_efficiency(work: int, lanes: int) -> float:
    if work <= 0:
        return 1.0
    return work / (lanes * math.ceil(work / lanes))


def plan_per_output(
    t: GpuTarget, groups: int, vec_bytes: int, reduce_len: int, nbytes: int, partial_bytes: int
) -> Plan:
    """Threads own `groups` output groups (one vector each) and loop over
    `reduce_len` reduction points. Picks block size and the split over the
    reduction (split > 1 adds a workspace of `partial_bytes` per split and a second
    pass)."""
    best: Plan | None = None
    why = []
    splits = [1]
    if reduce_len > 1:
        s = 2
        while s <= min(reduce_len, 512):
            splits.append(s)
            s *= 2
    for bs in BLOCK_SIZES[:3]:
        cap = resident_threads(t, bs)
        for s in splits:
            threads = min(groups * s, cap)
            loads = min(UNROLL, max(1, reduce_len // s)) if reduce_len > 1 else 1
            occ = occupancy(t, threads, vec_bytes * loads)
            extra = partial_bytes * s * 2 if s > 1 else 0
            cost = memory_time(t, nbytes + extra, occ) + t.launch_overhead_s * (2 if s > 1 else 1)
            if s > 1:  # the second pass is itself latency bound on few outputs
                cost += memory_time(t, partial_bytes * s, occupancy(t, min(groups, cap), vec_bytes * UNROLL))
            grid = max(1, min(math.ceil(groups / bs), cap // bs))
            p = Plan("per-output", {"block": bs, "grid": grid, "split": s}, cost)
            why.append(p.describe())
            if best is None or cost < best.cost * 0.98:
                best = p
    assert best is not None
    best.why = why
    return best


def plan_rows(
    t: GpuTarget, rows: int, row_groups: int, vec_bytes: int, nbytes: int, acc_bytes: int
) -> Plan:
    """Cooperative row reduction: `rows` rows of `row_groups` vector groups each.
    Modes: a warp per row, a block per row, or a block-split row with a workspace
    second pass."""
    cands: list[Plan] = []
    clk = t.clock_hz
    # a warp per row
    for bs in BLOCK_SIZES[:3]:
        wpb = bs // t.warp_size
        cap = resident_threads(t, bs)
        threads = min(rows * t.warp_size, cap)
        loads = min(UNROLL, max(1, math.ceil(row_groups / t.warp_size)))
        occ = occupancy(t, threads, vec_bytes * loads)
        eff = lane_efficiency(row_groups, t.warp_size)
        warps = max(1, threads // t.warp_size)
        cost = (
            memory_time(t, nbytes, occ, eff)
            + t.launch_overhead_s
            + rows * WARP_REDUCE_CYCLES / clk / warps
        )
        grid = max(1, min(math.ceil(rows / wpb), cap // bs))
        cands.append(Plan("rows", {"mode": "warp", "block": bs, "grid": grid, "split": 1}, cost))
    # a block per row (split over blocks when rows are few)
    for bs in BLOCK_SIZES:
        cap = resident_threads(t, bs)
        s = 1
        while True:
            threads = min(rows * bs * s, cap)
            per = math.ceil(row_groups / s)
            loads = min(UNROLL, max(1, math.ceil(per / bs)))
            occ = occupancy(t, threads, vec_bytes * loads)
            eff = lane_efficiency(per, bs)
            blocks = max(1, threads // bs)
            extra = rows * s * acc_bytes * 2 if s > 1 else 0
            cost = (
                memory_time(t, nbytes + extra, occ, eff)
                + t.launch_overhead_s * (2 if s > 1 else 1)
                + rows * s * BLOCK_REDUCE_CYCLES / clk / blocks
            )
            mode = "block" if s == 1 else "split"
            grid = max(1, min(rows, cap // bs)) if s == 1 else rows
            cands.append(Plan("rows", {"mode": mode, "block": bs, "grid": grid, "split": s}, cost))
            s *= 2
            if s > 64 or per < bs * 2 or rows * s > 65535 * 4:
                break
    best = cands[0]
    for p in cands[1:]:
        if p.cost < best.cost * 0.98:
            best = p
    best.why = [p.describe() for p in cands]
    return best
