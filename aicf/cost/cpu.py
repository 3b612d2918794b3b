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

# the stack the C emitter's tiles take, and its bound (the emitter refuses tiles past it)
from aicf.backend.c.attention import STACK_BYTES, stack_bytes
from aicf.dialects.loop import attention_key_steps  # noqa: F401  (the cost's readers import it from here too)
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


# --- attention (aicf_loop.attention as cpu.attention) ------------------------------------

ATTENTION_STACK_BYTES = STACK_BYTES
ATTENTION_BLOCK_Q = (64, 32, 16, 8, 4, 2, 1)
ATTENTION_BLOCK_K = (256, 128, 64, 32, 16, 8, 4, 2, 1)


attention_stack_bytes = stack_bytes


def attention_tiles(t: CpuTarget, tasks_per_q_tile: int, sq: int, sk: int, d: int, dv: int,
                    elt_bytes: int) -> tuple[int, int] | str:  # fmt: skip
    """(block_q, block_k): the K and V tiles the rows walk fill L1 (each is read once
    per query of the tile; 64 x 64 measured best for head dim 64 on a 32 KiB L1,
    bench/NOTES.md "CPU attention"), the query tile and its accumulators stay in L2,
    and there are tiles enough to share among the threads; or why no tiling fits the
    stack."""
    bk = next((b for b in ATTENTION_BLOCK_K if b * (d + dv) * elt_bytes <= t.l1d_bytes), 1)
    bk = min(bk, max(sk, 1))
    want = t.cores * CHUNKS_PER_CORE // 4
    for bq in ATTENTION_BLOCK_Q:
        bq = min(bq, max(sq, 1))
        fits = (attention_stack_bytes(bq, bk, d, dv, elt_bytes) <= ATTENTION_STACK_BYTES
                and bq * (d + dv + bk) * elt_bytes <= t.l2_bytes // 2)  # fmt: skip
        if fits and (tasks_per_q_tile * -(-sq // bq) >= want or bq <= 8):
            return bq, bk
    if attention_stack_bytes(1, 1, d, dv, elt_bytes) > ATTENTION_STACK_BYTES:
        return f"head dims {d}, {dv} need more than {ATTENTION_STACK_BYTES} bytes of stack per thread"
    return 1, 1


def attention_time(t: CpuTarget, pairs: int, d: int, dv: int, threads: int) -> float:
    """A multiply-add per pair and head-dim element of each product, and an exp per
    pair, at the rate the emitted tiles reach on a core (aicf.target)."""
    flops = 2 * pairs * (d + dv) + pairs * ACCESS_INSTRUCTIONS
    one = flops / t.attention_flops_per_core
    return one if threads <= 1 else t.launch_overhead_s + one / min(threads, t.cores)
