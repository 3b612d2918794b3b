"""The GPU's schedule for `aicf_loop.attention`: `gpu.flash_attention`, the flash
kernel of backend/cuda/flash_attention.py, when its guard holds
(lowering/gpu_schedules/flash_attention.py), and its cost."""

from __future__ import annotations

import math

from aicf.dialects.loop import AttentionOp, attention_key_steps
from aicf.dialects.schedule import Schedule
from aicf.lowering.gpu_schedules.flash_attention import KIND, MIN_SM, call_params, dtype_name, tensor_guard
from aicf.target import GpuTarget

from .candidates import Candidate

# mma.sync's share of the f16 tensor-core peak that the single-buffered kernel is
# expected to reach (FlashAttention-2, also mma.sync, reaches ~0.4 on the H100):
# an estimate until it is measured (bench/results)
MMA_SYNC_EFFICIENCY = 0.3


def flash_candidate(op: AttentionOp, t: GpuTarget) -> Candidate:
    lq, lk, lv = op.logical_shapes()
    dtypes = tuple(dtype_name(x.type.get_element_type()) for x in (op.q, op.k, op.v))  # type: ignore[union-attr]
    out = tuple(op.output.type.get_shape())  # type: ignore[union-attr]
    why = tensor_guard(dtypes, lq[-1], lv[-1], op.mask is not None, op.perms(), len(out) - 2)
    if why is None and t.sm_arch < MIN_SM:
        why = f"the flash kernel needs mma.sync (sm_{MIN_SM} or later), not sm_{t.sm_arch}"
    block_m, block_n = 64, 64
    if why is None:
        params = call_params(op, block_m, block_n, t)
        why = params if isinstance(params, str) else None
    if why is not None:
        return Candidate(KIND, 0, reason=why)
    batch, sq, sk, d = math.prod(out[:-2]), lq[-2], lk[-2], lq[-1]
    pairs = batch * attention_key_steps(sq, sk, op.is_causal)
    flops = 4 * pairs * d
    blocks = math.ceil(sq / block_m) * batch
    waves = math.ceil(blocks / t.num_sms)
    compute = flops / (t.fp16_flops * MMA_SYNC_EFFICIENCY) * (waves * t.num_sms / max(blocks, 1))
    nbytes = 2 * batch * (2 * sq * d + 2 * sk * d * math.ceil(sq / block_m))  # K, V read per query block
    cost = t.launch_overhead_s + max(compute, nbytes / t.dram_bandwidth)
    s = Schedule(KIND, {"block_m": block_m, "block_n": block_n, "est_ns": int(round(cost * 1e9))})
    return Candidate(KIND, 1, s, cost, reason=f"{block_m}x{block_n} tiles, {pairs} query-key pairs on mma.sync; "
                                              "the scores stay in registers")
