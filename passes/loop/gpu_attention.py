"""The GPU's schedules for `aicf_loop.attention`: `gpu.flash_attention` on one of the
flash kernels (mma.sync: backend/cuda/flash_attention.py; wgmma:
backend/cuda/flash_attention_wgmma.py) when its guard holds
(lowering/gpu_schedules/flash_attention.py), and their costs."""

from __future__ import annotations

import math

from aicf.dialects.loop import AttentionOp, attention_key_steps
from aicf.dialects.schedule import Schedule
from aicf.lowering.gpu_schedules.flash_attention import KIND, MIN_SM, WGMMA_TILE, call_params, dtype_name, tensor_guard
from aicf.target import GpuTarget

from .candidates import Candidate

# Each kernel's share of the target's f16 tensor-core peak, measured on the H100
# (bench/results/2026-11-24-session8-H100.md, batch 8 x 16 heads x 4096, non-causal):
# mma.sync 64 x 64 single-buffered 195 TFLOP/s at head dim 128; wgmma 128 x 128
# (bulk tensor copies, two consumer warpgroups taking turns) 470 at head dim 128 and
# 370 at 64, where the softmax weighs twice as much per product.
EFFICIENCY = {("mma_sync", 64): 0.25, ("mma_sync", 128): 0.28, ("wgmma", 64): 0.53, ("wgmma", 128): 0.67}


def flash_candidates(op: AttentionOp, t: GpuTarget) -> list[Candidate]:
    """The flash kernels for `op` on `t`: the wgmma one where the target has it, the
    mma.sync one everywhere from sm_80 (each with the reason it does not apply)."""
    lq, lk, lv = op.logical_shapes()
    dtypes = tuple(dtype_name(x.type.get_element_type()) for x in (op.q, op.k, op.v))  # type: ignore[union-attr]
    out = tuple(op.output.type.get_shape())  # type: ignore[union-attr]
    why = tensor_guard(dtypes, lq[-1], lv[-1], op.mask is not None, op.perms(), len(out) - 2)
    if why is None and t.sm_arch < MIN_SM:
        why = f"the flash kernel needs mma.sync (sm_{MIN_SM} or later), not sm_{t.sm_arch}"
    if why is not None:
        return [Candidate(KIND, 0, reason=why)]
    found = [_candidate(op, t, "mma_sync", 64, 64)]
    if t.has_wgmma:  # first: a force of the kind takes the first that applies
        found.insert(0, _candidate(op, t, "wgmma", *WGMMA_TILE))
    return found


def _candidate(op: AttentionOp, t: GpuTarget, mma: str, block_m: int, block_n: int) -> Candidate:
    params = call_params(op, block_m, block_n, t, mma)
    if isinstance(params, str):
        return Candidate(KIND, 0, reason=params, label=f"{KIND} ({mma})")
    lq, lk, _ = op.logical_shapes()
    out = tuple(op.output.type.get_shape())  # type: ignore[union-attr]
    batch, sq, sk, d = math.prod(out[:-2]), lq[-2], lk[-2], lq[-1]
    pairs = batch * attention_key_steps(sq, sk, op.is_causal)
    flops = 4 * pairs * d
    blocks = math.ceil(sq / block_m) * batch
    waves = math.ceil(blocks / t.num_sms)
    compute = flops / (t.fp16_flops * EFFICIENCY[mma, d]) * (waves * t.num_sms / max(blocks, 1))
    nbytes = 2 * batch * (2 * sq * d + 2 * sk * d * math.ceil(sq / block_m))  # K, V read per query block
    cost = t.launch_overhead_s + max(compute, nbytes / t.dram_bandwidth)
    p = {"block_m": block_m, "block_n": block_n, "est_ns": int(round(cost * 1e9))}
    if mma != "mma_sync":
        p["mma"] = mma
    how = "wgmma, bulk tensor copies" if mma == "wgmma" else "mma.sync"
    return Candidate(KIND, 1, Schedule(KIND, p), cost,
                     reason=f"{block_m}x{block_n} tiles, {pairs} query-key pairs on {how}; the scores stay in registers",
                     label=f"{KIND} ({mma})")
