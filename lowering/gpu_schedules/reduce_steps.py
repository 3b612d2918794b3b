"""The steps of a reduction inside a kernel that several schedules share (row
reductions in rows.py, row groups in row_group.py): lane accumulators -> warp totals
-> block totals through one shared slot per warp."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import Attribute, SSAValue

from aicf.dialects import gpu

from .builder import KernelBuilder, combine
from .view import identity_of


def warp_totals(
    kb: KernelBuilder, combiners: Sequence[str], accs: Sequence[SSAValue], vec: int, width: int
) -> list[SSAValue]:
    """Fold each output's `vec` lane accumulators (accs[o * vec + j]), then reduce across
    `width` lanes: every lane ends up with its warp's total."""
    totals = []
    for o, kind in enumerate(combiners):
        a = accs[o * vec]
        for j in range(1, vec):
            a = combine(kb, kind, a, accs[o * vec + j])
        totals.append(kb.v(gpu.WarpReduceOp(kind, a, width)))
    return totals


def block_totals(
    kb: KernelBuilder,
    warp_vals: Sequence[SSAValue],
    slots: Sequence[SSAValue],
    lane: SSAValue,
    warp: SSAValue,
    nwarps: int,
    combiners: Sequence[str],
    acc_types: Sequence[Attribute],
    width: int,
) -> list[SSAValue]:
    """Warp totals -> the block's: lane 0 of each warp writes its total to its slot in
    shared memory, a barrier, then each warp reduces the `nwarps` slots (lanes past them
    read the combiner's identity). Every thread ends up with the block's total. The
    caller puts a barrier before the slots are written again."""
    is_lane0 = kb.eq(lane, 0)

    def to_shared():
        for value, slot in zip(warp_vals, slots):
            kb.store(value, slot, [warp])
        return []

    kb.if_(is_lane0, to_shared)
    kb.add(gpu.BarrierOp())
    li = kb.min_i(lane, nwarps - 1)
    inside = kb.lt(lane, nwarps)
    totals = []
    for slot, kind, at in zip(slots, combiners, acc_types):
        x = kb.load(slot, [li])
        x = kb.v(arith.SelectOp(inside, x, kb.constant(identity_of(kind, at), at)))
        totals.append(kb.v(gpu.WarpReduceOp(kind, x, width)))
    return totals
