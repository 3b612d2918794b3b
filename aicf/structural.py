"""Structural identity of an op modulo the values it reads from outside.

Two ops have the same `structural_key` when they are the same computation on
possibly different buffers: the same op names, properties, attributes and result
types, the same regions, and operands that refer to the same local values and to
external values of the same types in the same pattern (which external operand is
which, in first-appearance order: `op(a, a)` and `op(a, b)` differ). A model's
repeated layers give nests with equal keys, so what is derived from a nest alone
(its schedule, its kernels) is derived once and reused (lowering/replay.py,
passes/loop/plan.py).

The key is a tuple of hashable xDSL attributes, compared exactly (no hash is
trusted alone); `external_values` lists the external values in the key's order.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue


class _Keyer:
    def __init__(self) -> None:
        self.local: dict[SSAValue, int] = {}
        self.external: dict[SSAValue, int] = {}

    def value(self, v: SSAValue) -> tuple:
        k = self.local.get(v)
        if k is not None:
            return ("l", k)
        k = self.external.get(v)
        if k is None:
            k = self.external[v] = len(self.external)
        return ("e", k, v.type)

    def block(self, b: Block) -> tuple:
        for a in b.args:
            self.local[a] = len(self.local)
        return (tuple(a.type for a in b.args), tuple(self.op(o) for o in b.ops))

    def op(self, o: Operation) -> tuple:
        operands = tuple(self.value(v) for v in o.operands)
        for r in o.results:
            self.local[r] = len(self.local)
        return (
            o.name,
            operands,
            tuple(r.type for r in o.results),
            tuple(sorted(o.properties.items())),
            tuple(sorted(o.attributes.items())),
            tuple(tuple(self.block(b) for b in r.blocks) for r in o.regions),
            len(o.successors),
        )


def structural_key(op: Operation) -> tuple:
    """`op` (with its regions) as a hashable value, its external operands numbered
    by first appearance (see the module docstring)."""
    return _Keyer().op(op)


def keyed(op: Operation) -> tuple[tuple, list[SSAValue]]:
    """`structural_key(op)` and the external values it numbers, in that order."""
    k = _Keyer()
    key = k.op(op)
    return key, list(k.external)
