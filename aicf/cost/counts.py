"""What a loop-level step must move and compute, for the profiler's achieved rates and
roofline (aicf/profiling.py): the fewest bytes (every buffer it touches, once) and the
floating-point operations (the body's float arith/math ops, conversions and
constants left out, plus one per reducing combiner, per domain point). The same
rule as the GPU kernels' `aicf.bytes`/`aicf.flops` annotations.

A step is what the cpu target runs as one function (backend/c): a nest, a group
(its member nests; group-local buffers live in registers or on the stack per slice,
so they move nothing), a gather or a copy.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import memref
from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType
from xdsl.ir import Attribute, Operation, SSAValue

from aicf.dialects.loop import AttentionOp, Combiner, GatherOp, GroupOp, NestOp

_NOT_FLOPS = ("arith.constant", "arith.extf", "arith.truncf")


def _element_bytes(t: Attribute) -> int:
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    if isinstance(t, IntegerType):
        return (t.width.data + 7) // 8  # i1 is stored in a byte
    return 8


def buffer_bytes(v: SSAValue) -> int:
    t = v.type
    assert isinstance(t, MemRefType)
    return prod(t.get_shape()) * _element_bytes(t.get_element_type())


def flops_per_point(nest: NestOp) -> int:
    n = sum(1 for op in nest.body.block.ops
            if op.name.startswith(("arith.", "math.")) and op.name not in _NOT_FLOPS
            and any(isinstance(r.type, AnyFloat) for r in op.results))  # fmt: skip
    return n + sum(1 for c in nest.combiner_kinds if c is not Combiner.NONE)


def step_counts(op: Operation) -> tuple[int, int]:
    """(bytes, flops) of one step; (0, 0) for an op that is no step."""
    if isinstance(op, NestOp):
        buffers = {*op.inputs, *op.outputs}
        return sum(buffer_bytes(b) for b in buffers), op.num_points() * flops_per_point(op)
    if isinstance(op, GroupOp):
        local = {o.memref for o in op.body.block.ops if isinstance(o, memref.AllocOp)}
        buffers = {b for n in op.nests for b in (*n.inputs, *n.outputs)} - local
        flops = sum(n.num_points() * flops_per_point(n) for n in op.nests)
        return sum(buffer_bytes(b) for b in buffers), flops
    if isinstance(op, GatherOp):  # the rows it reads are as many as it writes
        return 2 * buffer_bytes(op.output) + buffer_bytes(op.indices), 0
    if isinstance(op, memref.CopyOp):
        return buffer_bytes(op.source) + buffer_bytes(op.destination), 0
    if isinstance(op, AttentionOp):  # Q, K, V (and a mask) read once, O written once
        from aicf.cost.cpu import attention_key_steps

        lq, lk, lv = op.logical_shapes()
        out = op.output.type.get_shape()  # type: ignore[union-attr]
        pairs = prod(out[:-2]) * attention_key_steps(lq[-2], lk[-2], op.is_causal)
        nbytes = sum(buffer_bytes(b) for b in {*op.inputs, op.output})
        return nbytes, 2 * pairs * (lq[-1] + lv[-1])  # the two products' multiply-adds
    return 0, 0
