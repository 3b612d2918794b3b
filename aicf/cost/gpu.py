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
# sharpness of the occupancy knee (see occupancy)
OCC_KNEE = 8
# loads in flight per thread in a split reduction's second pass (see plan_per_output)
SECOND_PASS_LOADS = 2
# most threads of a block sharing one output vector of a per-output reduction
MAX_SLICES = 32
# loads a thread of a reduction keeps in flight (the reduction loop's unroll): GEMV
# 1x4096x4096 f16 with slices ran 8.1-8.9 us at either (bench/gemv_sweep.py, 2026-11-24)
REDUCTION_UNROLLS = (4, 8)

# --- elementwise (parallel-only) nests: see plan_elementwise ------------------------------
from aicf.cost.ops import OP_INSTRUCTIONS  # noqa: E402  (re-exported for the planners)

LOOP_INSTRUCTIONS = 8  # per loop iteration: index update, compare, branch, base address
ACCESS_INSTRUCTIONS = 3  # per vector load/store: address arithmetic and the access
# Share of a scheduler's issue slots the math fills (the chain kernel's measured 0.813 ms
# against the 0.46 ms of issue it needs says most of the gap is latency, not issue).
ISSUE_EFFICIENCY = 0.9
# Vectors each thread loads, all before the math, per loop iteration (all in flight
# together): a thread's compute phase holds no loads, so more vectors per phase keep
# Little's law's bytes in flight while the math runs.
ELEMENTWISE_UNROLLS = (1, 2, 4, 8)
# Registers a thread of the unrolled loop needs: indices, pointers and the math's
# temporaries, plus one per 32-bit word loaded ahead (ptxas -v on the chain kernel:
# unroll 1/2/4/8 of float4 use 32/39/40/58; the base has 2 of margin so the launch
# bounds never force a spill).
REG_BASE = 26
# a block's launch and first index math, where blocks overlap (one-shot grids); small:
# 262144 blocks of 128 ran as fast as 65536 of 256 (bench/elementwise_variants.py, since replaced by bench/calibrate.py)
BLOCK_START_CYCLES = 50
# Share of the copy bandwidth a grid-stride loop on the resident blocks reaches over a
# large array, against one chunk per block: measured on the H100 (2026-11-22,
# bench/results/2026-11-22-elementwise-variants-H100.json), sin(1.7x+0.3) on 2^28 f32
# took 0.760-0.776 ms for every unroll 1-8 and block 128-512 grid-stride variant and
# 0.714-0.716 ms with one chunk per block (copy 0.720); the chain 0.792-0.803 vs
# 0.724-0.726. Unrolling did not move it (so not bytes in flight); the resident blocks
# drift apart over the loop and spread the accesses over more DRAM pages, where
# one-chunk blocks retire and start in address order.
STRIDE_DRAM_EFFICIENCY = 0.93
MAX_GRID_X = 2**31 - 1  # CUDA limit on gridDim.x
ELEMENTWISE_RESOLUTION = 5e-4  # estimates closer than this are a tie


@dataclass
class Plan:
    schedule: str
    params: dict
    cost: float
    why: list[str] = field(default_factory=list)
    space: list[Plan] = field(default_factory=list)  # every point priced, the chosen one included

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
    x = threads * bytes_in_flight_per_thread / need
    # a soft knee, not min(1, x): at x = 1 the queues are full and the latency under
    # load grows, so the last tenth of the bandwidth needs more bytes in flight
    # (calibration 2026-11-23: sum(axis=1) 1024x65536, a warp per row at x ~ 1 ran
    # 0.105 ms, a block per row at x ~ 8 0.0945 ms; 1 / 2**(1/OCC_KNEE) = 0.92)
    return max(1e-3, x / (1.0 + x**OCC_KNEE) ** (1.0 / OCC_KNEE))


def memory_time(t: GpuTarget, nbytes: int, occ: float, lane_eff: float = 1.0) -> float:
    return nbytes / (t.dram_bandwidth * occ * max(lane_eff, 1e-3))


def lane_efficiency(work: int, lanes: int) -> float:
    if work <= 0:
        return 1.0
    return work / (lanes * math.ceil(work / lanes))


def plan_per_output(
    t: GpuTarget, groups: int, vec_bytes: int, reduce_len: int, nbytes: int, partial_bytes: int,
    allow_split: bool = True, fold_bytes: int = 0,
) -> Plan:
    """Threads own `groups` output groups (one vector each) and loop over
    `reduce_len` reduction points. Picks block size, the threads of a block sharing an
    output (`slices`), the loads each keeps in flight (`unroll`) and the split over
    blocks (split > 1 adds a workspace of `partial_bytes` per split and a second pass;
    not with `allow_split` False). `fold_bytes`: the shared memory a thread's partials
    take when slices fold them (its vector of each accumulator)."""
    best: Plan | None = None
    why = []
    space: list[Plan] = []
    splits = [1]
    if reduce_len > 1 and allow_split:
        s = 2
        # chunks of at least two points: a split as long as the reduction only moves
        # the whole reduction to the second pass
        while s <= min(reduce_len // 2, 512):
            splits.append(s)
            s *= 2
    # threads of a block sharing an output vector (slices, folded through shared
    # memory): more threads on a reduction without a second kernel
    slices = [1]
    while reduce_len > 1 and slices[-1] < MAX_SLICES and slices[-1] * 2 <= reduce_len // 2:
        slices.append(slices[-1] * 2)
    unrolls = REDUCTION_UNROLLS if reduce_len > 1 else (UNROLL,)
    for bs in BLOCK_SIZES[:3]:
        cap = resident_threads(t, bs)
        for k in slices:
            if k > 1 and (bs % k or groups < bs // k or bs * fold_bytes > t.smem_per_block_default):
                continue
            for s in splits:
                for u in unrolls:
                    threads = min(groups * s * k, cap)
                    loads = min(u, max(1, reduce_len // (s * k))) if reduce_len > 1 else 1
                    if u > loads and u != unrolls[0]:
                        continue  # a deeper unroll than the walk has points: the same kernel
                    occ = occupancy(t, threads, vec_bytes * loads)
                    # blocks in the grid: a few blocks leave SMs idle, and one SM draws a
                    # bounded share of the DRAM bandwidth
                    blocks = math.ceil(groups * s * k / bs)
                    sm_share = min(1.0, blocks * t.sm_dram_share)
                    cost = memory_time(t, nbytes + (partial_bytes * s if s > 1 else 0), occ * sm_share)
                    cost += t.launch_overhead_s
                    if k > 1:
                        # the fold: log2(slices) steps of a shared-memory exchange and a barrier
                        cost += math.log2(k) * BLOCK_REDUCE_CYCLES / t.clock_hz
                    if s > 1:
                        # the second pass: `groups` threads each walking its `s` partials,
                        # latency bound; it keeps about SECOND_PASS_LOADS loads in flight,
                        # not UNROLL (calibration 2026-11-23, sum(axis=0) 4096x1000: 32 more
                        # partials cost 0.013 ms, ~0.4 us each; split=64 ran 0.056 ms,
                        # split=32 0.043)
                        occ2 = occupancy(t, min(groups, cap), vec_bytes * SECOND_PASS_LOADS)
                        cost += t.launch_overhead_s + memory_time(t, partial_bytes * s, occ2)
                    tiles = math.ceil(groups / (bs // k))
                    grid = max(1, min(tiles, cap // bs))
                    params = {"block": bs, "grid": grid, "split": s}
                    if k > 1:
                        params["slices"] = k
                    params["unroll"] = u
                    p = Plan("gpu.per_output", params, cost)
                    why.append(p.describe())
                    space.append(p)
                    if best is None or cost < best.cost * 0.98:
                        best = p
    assert best is not None
    best.why = why
    best.space = space
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
        cands.append(Plan("gpu.rows", {"mode": "warp", "block": bs, "grid": grid, "split": 1}, cost))
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
            cands.append(Plan("gpu.rows", {"mode": mode, "block": bs, "grid": grid, "split": s}, cost))
            s *= 2
            if s > 64 or per < bs * 2 or rows * s > 65535 * 4:
                break
    return pick(cands)


def pick(cands: list[Plan], resolution: float = 0.02) -> Plan:
    """The cheapest plan, keeping the earlier one when within the model's resolution
    (the space lists the preferred shapes first); it carries the whole space."""
    best = cands[0]
    for p in cands[1:]:
        if p.cost < best.cost * (1 - resolution):
            best = p
    best.why = [p.describe() for p in cands]
    best.space = cands
    return best


def blocks_by_registers(t: GpuTarget, regs: int, warps: int) -> int:
    """Blocks of `warps` warps at `regs` registers per thread that fit on one SM. Each
    sub-partition holds a quarter of the register file and the warps are spread over
    the sub-partitions, so the fullest one decides (this is also how ptxas turns
    `__launch_bounds__(threads, blocks)` into a register cap)."""
    per_warp = -(-regs * t.warp_size // t.reg_alloc_unit) * t.reg_alloc_unit
    per_part = t.registers_per_sm // t.sub_partitions
    b = 0
    while -(-(b + 1) * warps // t.sub_partitions) * per_warp <= per_part and b < t.max_blocks_per_sm:
        b += 1
    return b


def register_blocks(t: GpuTarget, block: int, regs: int) -> int:
    """Resident blocks per SM of `block` threads at `regs` registers each, by registers
    and threads; the launch-bounds minimum the emitter asks for."""
    return max(1, min(blocks_per_sm(t, block), blocks_by_registers(t, regs, block // t.warp_size)))


def elementwise_time(
    t: GpuTarget, groups: int, vec: int, load_bytes: int, nbytes: int, instr_per_point: float,
    accesses: int, block: int, unroll: int, one_shot: bool, mufu_per_point: float = 0.0,
) -> tuple[float, dict]:
    """Estimated time of a parallel-only nest run as `groups` vector groups, each thread
    loading `unroll` groups (load_bytes each, all inputs) before their math.

    Five limits, the largest wins:
      memory:  nbytes / (bandwidth * occupancy), occupancy from Little's law with the
               bytes a thread has in flight *while it waits*: a warp alternates a wait of
               one memory latency L and a compute phase C; only the wait holds loads, so
               in flight = threads * unroll * load_bytes * L / (L + C);
      issue:   warp instructions / (SMs * schedulers * clock * ISSUE_EFFICIENCY);
      MUFU:    special-function results / (SMs * mufu_per_sm_clock * clock): a body with
               a few MUFU ops a point (tanh: 2) is bound by them before issue;
      convoy:  a grid-stride loop's resident blocks start together and stay in step:
               each iteration the whole GPU loads (a burst of threads * unroll *
               load_bytes at the DRAM bandwidth, at least one latency) and only then
               computes, since nothing prefetches the next chunk during the math; so
               iterations * (burst + the SM's compute phase), which for a heavy body
               is far above either alone (the f16 chain of 2026-11-23's calibration:
               unroll 8 at 4 blocks an SM ran 0.168 ms against 0.116 ms for one chunk
               per block, whose blocks retire and start out of step and overlap one
               another's loads and math). The model prices full lock-step, so it
               over-predicts short phases (unroll 1: 0.18 predicted, 0.133 measured),
               where the warps drift apart; the ranking against one-chunk grids holds;
      C:       the phase's own instructions at one a clock (the measured variants say
               the scheduler's other warps do not stretch it much: unroll 1 and 8
               ran the chain equally fast).
    Grid shape: a grid-stride loop over chunks of block*unroll groups, either on the
    resident blocks with the chunks dealt evenly (waves = ceil(chunks / resident)), or
    one chunk per block (one_shot: each block pays its start; the last partial wave
    costs half a block's run). The grid-stride loop reaches STRIDE_DRAM_EFFICIENCY of
    the bandwidth once each block loops over several chunks."""
    chunk = block * unroll
    chunks = max(1, math.ceil(groups / chunk))
    regs = min(t.max_registers_per_thread, REG_BASE + unroll * math.ceil(load_bytes / 4))
    bps = register_blocks(t, block, regs)
    resident = t.num_sms * bps
    if one_shot:
        grid = chunks
        waves = chunks / resident
        shape = 1.0 + (0.5 / waves if waves > 1 else 0.0)
        shape_s = chunks * BLOCK_START_CYCLES / t.clock_hz / resident
    else:
        waves = math.ceil(chunks / resident)
        grid = math.ceil(chunks / waves)
        # the rest loop (groups past the last full chunk) adds at most one vector per thread
        shape = waves * grid * chunk / max(groups, 1)
        shape_s = 0.0
    threads = min(grid, resident) * block
    it_instr = unroll * (vec * instr_per_point + accesses * ACCESS_INSTRUCTIONS) + LOOP_INSTRUCTIONS
    warp_iters = groups / unroll / t.warp_size
    t_issue = warp_iters * it_instr / (t.num_sms * t.sub_partitions * t.clock_hz * ISSUE_EFFICIENCY)
    mufu_rate = t.num_sms * t.mufu_per_sm_clock * t.clock_hz
    t_mufu = groups * vec * mufu_per_point / mufu_rate
    lat = t.mem_latency_s
    phase = it_instr / t.clock_hz
    occ = occupancy(t, threads, unroll * load_bytes * lat / (lat + phase))
    eff = STRIDE_DRAM_EFFICIENCY if not one_shot and waves > 1 else 1.0
    t_convoy = 0.0
    if not one_shot and waves > 1:
        burst = max(lat, threads * unroll * load_bytes / t.dram_bandwidth)
        sm_warps = bps * block / t.warp_size
        compute = max(sm_warps / t.sub_partitions * it_instr / (t.clock_hz * ISSUE_EFFICIENCY),
                      sm_warps * t.warp_size * unroll * vec * mufu_per_point / (t.mufu_per_sm_clock * t.clock_hz))
        t_convoy = waves * (burst + compute)
    time = max(memory_time(t, nbytes, occ, eff), t_issue, t_mufu)
    cost = max(time * shape, t_convoy) + shape_s + t.launch_overhead_s
    params = {"block": block, "grid": grid, "split": 1, "unroll": unroll, "minblocks": bps}
    info = {"regs": regs, "occ": occ, "issue_us": t_issue * 1e6, "mufu_us": t_mufu * 1e6,
            "convoy_us": t_convoy * 1e6, "phase_us": phase * 1e6, "shape": shape, "eff": eff}
    return cost, {"params": params, "info": info}


def plan_elementwise(
    t: GpuTarget, groups: int, vec: int, load_bytes: int, nbytes: int, instr_per_point: float, accesses: int,
    mufu_per_point: float = 0.0,
) -> Plan:
    """Block size, unroll (vectors per thread per iteration), grid shape and the
    launch-bounds minimum of blocks for a parallel-only nest (see elementwise_time)."""
    best: Plan | None = None
    why = []
    space: list[Plan] = []
    for bs in BLOCK_SIZES[:3]:
        for u in ELEMENTWISE_UNROLLS:
            if u > 1 and groups < bs * u * t.num_sms:
                continue  # too few chunks to fill the GPU: unrolling only idles threads
            for one_shot in (False, True):
                if one_shot and math.ceil(groups / (bs * u)) > MAX_GRID_X:
                    continue
                cost, d = elementwise_time(t, groups, vec, load_bytes, nbytes, instr_per_point, accesses, bs, u, one_shot,
                                           mufu_per_point)
                p = Plan("gpu.per_output", {**d["params"], "grid_kind": "once" if one_shot else "stride"}, cost)
                why.append(p.describe())
                space.append(p)
                # within the model's resolution keep the earlier (block 256 first,
                # then fewer vectors a thread)
                if best is None or cost < best.cost * (1 - ELEMENTWISE_RESOLUTION):
                    best = p
    assert best is not None
    best.why = why
    best.space = space
    return best
