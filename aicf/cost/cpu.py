"""The cpu target's cost: when a C loop nest is worth running on several threads, and
how many of its leading loops to share among them, over the host's description
(aicf.target.CpuTarget).

    point_rate = simd instruction rate of a core / instructions per point
    serial     = points / point_rate
    parallel   = launch_overhead + points / (point_rate * cores)

instructions per point: the body's ops from the one op-cost table (aicf/cost/ops.py)
plus a load or store per operand. A nest goes parallel when that saves time (the
break-even is launch_overhead * point_rate * cores / (cores - 1) points: ~2^15 for an
elementwise add on this project's 2-core AVX-512 machines, fewer for heavier
bodies), sharing as many leading parallel loops as give each thread CHUNKS_PER_CORE
iterations (static scheduling balances them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from aicf.target import CpuTarget

CHUNKS_PER_CORE = 32
ACCESS_INSTRUCTIONS = 2  # a load or store and its address arithmetic, per operand


def point_rate(t: CpuTarget, instructions: float) -> float:
    """Points a core runs per second: fp32_flops counts an FMA lane as 2 flops, and a
    vectorised body issues about one instruction per lane per FMA slot."""
    return t.fp32_flops / t.cores / 2 / max(instructions, 1.0)


def nest_time(t: CpuTarget, points: int, threads: int, instructions: float) -> float:
    if threads <= 1:
        return points / point_rate(t, instructions)
    return t.launch_overhead_s + points / (point_rate(t, instructions) * min(threads, t.cores))


def worth_parallel(t: CpuTarget, points: int, instructions: float) -> bool:
    return t.cores > 1 and nest_time(t, points, t.cores, instructions) < nest_time(t, points, 1, instructions)


def instructions_per_point(nests) -> float:
    """Body ops and operand accesses of every nest (a group: all its members)."""
    from aicf.cost.ops import scalar_cost

    n = 0.0
    for nest in nests:
        n += sum(scalar_cost(op.name) for op in nest.body.block.ops
                 if op.name not in ("arith.constant", "aicf_loop.yield"))
        n += ACCESS_INSTRUCTIONS * (len(nest.inputs) + len(nest.outputs))
    return n


def collapse_count(t: CpuTarget, extents: Sequence[int], limit: int) -> int:
    """How many leading loops (at most `limit`) to collapse so that each thread gets
    CHUNKS_PER_CORE iterations to share."""
    want = t.cores * CHUNKS_PER_CORE
    k, n = 0, 1
    while k < limit:
        n *= extents[k]
        k += 1
        if n >= want:
            break
    return max(k, 1)


def parallel_loops(t: CpuTarget, extents: Sequence[int], limit: int, instructions: float) -> int:
    """Leading loops of a nest to share among threads (0: run it on one thread)."""
    if limit < 1 or not worth_parallel(t, math.prod(extents), instructions):
        return 0
    return collapse_count(t, extents, limit)
