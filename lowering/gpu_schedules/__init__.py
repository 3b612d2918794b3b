"""GPU schedule builders: each schedule kind (dialects/schedule.py) has a builder
that writes the kernels and host launches of one nest or group, exactly as its
schedule attribute says. Builders decide nothing: the parameters come from the
attribute, which `aicf-schedule` (passes/loop/schedule.py) writes or a user writes
by hand. Nothing here imports the cost package.

Nest kinds and their builders:
- `gpu.per_output` (per_output.py): threads own output vectors (elementwise nests,
  outer-axis reductions, the matmul fallback);
- `gpu.rows` (rows.py): a warp or block per row of an innermost-axis reduction;
- `gpu.matmul_tiled` (matmul.py): the CUDA-core tiled matmul;
- `gpu.wgmma` (wgmma.py): the tensor-core matmul of Hopper (bulk copies, mbarriers,
  warp-specialised wgmma);
- `gpu.mma_sync` (mma_sync.py): the portable tensor-core matmul of sm_80 and on
  (cp.async pipeline, ldmatrix, mma.sync);
- `gpu.transpose_tiled` (transpose.py): a tile through shared memory for nests
  whose inputs and outputs are contiguous along different dims.
Group kinds: `gpu.row_group` (row_group.py: one kernel for a softmax/layer norm
group); `gpu.members` (the group's nests run one by one, lowering/loop_to_gpu.py).

A split reduction (split > 1) is made into its partial and combine nests by
aicf-split-reductions before these run; the wgmma kernel's split-K alone combines its
partials through a view (`per_output.combine_view`) with its nested `combine` schedule.
A guarded nest (a split's partial) runs only as the kinds in GUARDED_KINDS.
"""

from __future__ import annotations

from collections.abc import Callable

from aicf.dialects.schedule import Schedule

from . import matmul, mma_sync, per_output, rows, transpose, wgmma
from .context import LoweringContext
from .view import NestView

NestBuilder = Callable[[NestView, Schedule, LoweringContext], None]

BUILDERS: dict[str, NestBuilder] = {
    "gpu.per_output": per_output.build,
    "gpu.rows": rows.build,
    "gpu.matmul_tiled": matmul.build,
    "gpu.transpose_tiled": transpose.build,
    "gpu.wgmma": wgmma.build,
    "gpu.mma_sync": mma_sync.build,
}
"""Schedule kind -> the builder of a nest with that schedule."""


def register_builder(kind: str, build: NestBuilder) -> None:
    BUILDERS[kind] = build


GUARDED_KINDS = ("gpu.per_output", "gpu.rows")
"""The kinds whose kernels walk a guarded dim to its bound."""


def build_view(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    builder = BUILDERS.get(s.kind)
    if builder is None:
        raise NotImplementedError(
            f"schedule kind {s.kind} has no GPU builder (GPU kinds: {', '.join(sorted(BUILDERS))})"
        )
    if view.bound is not None and (why := guard_refusal(s.kind)):
        raise NotImplementedError(why)
    builder(view, s, lc)


def guard_refusal(kind: str) -> str | None:
    """Why a guarded nest cannot run as `kind`; None where it can."""
    if kind in GUARDED_KINDS:
        return None
    return f"schedule kind {kind} cannot run a guarded nest (only {', '.join(GUARDED_KINDS)} can)"


__all__ = ["BUILDERS", "GUARDED_KINDS", "guard_refusal", "register_builder", "build_view", "NestView", "LoweringContext"]
