"""The boundary of a loop nest or group: the buffers it reads and writes that live
outside it, in one fixed order.

That order is what a program of the op alone takes as its arguments (tuning times
such programs, the kernel gate runs them) and what an external kernel is called
with (a `cpu.external` / `gpu.external` schedule's `args` index into it), so it is
defined once, here: the inputs (buffers only read) in order of first use, then the
outputs (buffers written) in order of first write. Buffers allocated inside a group
are its own and not on the boundary.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from aicf.dialects.loop import GroupOp


def boundary(op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    """(inputs, outputs) of a nest, group or attention op, as the module docstring
    orders them."""
    nests = list(op.nests) if isinstance(op, GroupOp) else [op]  # type: ignore[attr-defined]
    local: set[SSAValue] = set()
    if isinstance(op, GroupOp):
        local = {o.results[0] for o in op.body.block.ops if o.name == "memref.alloc"}
    ins: list[SSAValue] = []
    outs: list[SSAValue] = []
    for n in nests:
        for v in n.inputs:
            if v not in local and v not in ins and v not in outs:
                ins.append(v)
        for v in _outputs(n):
            if v not in local and v not in outs:
                outs.append(v)
    return [v for v in ins if v not in outs], outs


def _outputs(op: Operation) -> tuple[SSAValue, ...]:
    """What a nest writes, or an attention op its one output."""
    outs = getattr(op, "outputs", None)
    return tuple(outs) if outs is not None else (op.output,)  # type: ignore[attr-defined]


def read_and_written(op: Operation) -> list[SSAValue]:
    """Boundary buffers the op both reads and writes (an in-place update)."""
    nests = list(op.nests) if isinstance(op, GroupOp) else [op]  # type: ignore[attr-defined]
    read = {v for n in nests for v in n.inputs}
    _, outs = boundary(op)
    return [v for v in outs if v in read]


def standalone(op: Operation, name: str = "main") -> ModuleOp:
    """A module whose @name runs a copy of `op` alone on its boundary buffers (the
    arguments: inputs, then outputs, `aicf.num_outputs` set)."""
    ins, outs = boundary(op)
    args = ins + outs
    block = Block(arg_types=[v.type for v in args])
    mapping = dict(zip(args, block.args))
    block.add_op(op.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp())
    fn = func.FuncOp(name, FunctionType.from_lists([v.type for v in args], []), Region(block))
    fn.attributes["aicf.num_outputs"] = IntegerAttr(len(outs), i64)
    return ModuleOp([fn])
