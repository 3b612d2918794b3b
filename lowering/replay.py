"""Lower each distinct nest once: a nest or group structurally identical to one
already lowered (aicf/structural.py: the same computation and schedule on other
buffers, as a model's repeated layers are) gets the host ops the first one got
(launches, library calls, workspace allocations and frees), cloned onto its own
buffers, and launches the first one's kernels. So a 12-layer transformer builds,
verifies, emits and compiles each kernel once.

The GPU lowerings read only the nest (its operand types, maps, body and schedule)
and the target, which is what makes this sound; a lowering whose host ops read a
value from outside the nest's operands is not replayed (it is lowered again)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from aicf.structural import keyed


class _Lowered:
    def __init__(self, externals: list[SSAValue], host: list[Operation]):
        self.externals = externals
        self.host = host


class LoweringReplay:
    """Per function: `lower(op, lowering)` runs `lowering()` (which replaces `op` by
    host ops in place) for the first op of each structural key, and replays it for
    the others."""

    def __init__(self) -> None:
        self._seen: dict[tuple, _Lowered | None] = {}
        self.replayed = 0

    def lower(self, op: Operation, lowering: Callable[[], None]) -> None:
        key, externals = keyed(op)
        done = self._seen.get(key)
        if done is not None:
            self._replay(op, externals, done)
            return
        block = op.parent_block()
        assert block is not None
        before, after = op.prev_op, op.next_op
        lowering()
        first = before.next_op if before is not None else block.first_op
        host: list[Operation] = []
        o = first
        while o is not None and o is not after:
            host.append(o)
            o = o.next_op
        self._seen[key] = _Lowered(externals, host) if _closed(host, externals) else None

    def _replay(self, op: Operation, externals: list[SSAValue], done: _Lowered) -> None:
        block = op.parent_block()
        assert block is not None
        mapping: dict[SSAValue, SSAValue] = dict(zip(done.externals, externals))
        for h in done.host:
            block.insert_op_before(h.clone(value_mapper=mapping), op)
        op.detach()
        op.erase()
        self.replayed += 1


def _closed(host: list[Operation], externals: list[SSAValue]) -> bool:
    """Whether the host ops read only the nest's operands and their own results."""
    known = set(externals)
    for h in host:
        if h.regions or any(v not in known for v in h.operands):
            return False
        known.update(h.results)
    return True
