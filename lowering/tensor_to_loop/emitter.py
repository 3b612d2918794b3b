"""Where the lowering writes: the new function body (allocations, nests,
deallocations) and the module (globals for constants)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap, AffineSet
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from aicf.dialects.loop import Combiner, Iterator, NestOp, YieldOp, make_body

BodyFn = Callable[[Builder, Sequence[SSAValue]], Sequence[SSAValue]]
"""Builds a nest's scalar body from its block arguments; returns the yielded values."""


@functools.lru_cache(maxsize=4096)
def identity_memref(elt: Attribute, shape: tuple[int, ...]) -> MemRefType:
    """`memref<shape x elt>`, built once per type: xDSL's type constructor checks its
    parameters generically (a third of lowering a 1000-nest program), and a program
    uses a few types over and over (types are immutable values, so one is shared)."""
    return MemRefType(elt, list(shape))


def elt_of(buf: SSAValue) -> Attribute:
    assert isinstance(buf.type, MemRefType)
    return buf.type.get_element_type()


def shape_of(buf: SSAValue) -> tuple[int, ...]:
    assert isinstance(buf.type, MemRefType)
    return tuple(buf.type.get_shape())


class Emitter:
    def __init__(self, block: Block, func: Operation, prefix: str):
        self.builder = Builder(InsertPoint.at_end(block))
        self.func = func
        self.prefix = prefix
        # IotaTable's tables, one per (extent, element type) in a function
        self.iota_tables: dict[tuple[int, Attribute], SSAValue] = {}

    def nest(
        self,
        origin: Operation,
        ins: Sequence[SSAValue],
        in_maps: Sequence[AffineMap],
        outs: Sequence[SSAValue],
        out_maps: Sequence[AffineMap],
        domain: Sequence[int],
        iterators: Sequence[Iterator],
        combiners: Sequence[Combiner],
        body: BodyFn,
        guard: AffineSet | None = None,
    ) -> NestOp:
        region, block = make_body([elt_of(v) for v in ins])
        b = Builder(InsertPoint.at_end(block))
        b.insert(YieldOp(*body(b, block.args)))
        op = NestOp(
            ins, outs, domain, iterators, [*in_maps, *out_maps], combiners, region, guard
        )
        op.location = origin.location
        return self.builder.insert(op)

    def parallel_nest(
        self,
        origin: Operation,
        ins: Sequence[SSAValue],
        in_maps: Sequence[AffineMap],
        out: SSAValue,
        body: BodyFn,
    ) -> NestOp:
        """A nest over `out`'s shape, all parallel, writing `out` at the identity."""
        shape = shape_of(out)
        return self.nest(
            origin, ins, in_maps, [out], [AffineMap.identity(len(shape))], shape,
            [Iterator.PARALLEL] * len(shape), [Combiner.NONE], body,
        )  # fmt: skip

    def copy(self, origin: Operation, src: SSAValue, dst: SSAValue) -> NestOp:
        rank = len(shape_of(dst))
        return self.parallel_nest(
            origin, [src], [AffineMap.identity(rank)], dst, lambda b, args: [args[0]]
        )

    def alloc(self, shape: Sequence[int], elt: Attribute, origin: Operation) -> SSAValue:
        op = memref.AllocOp([], [], identity_memref(elt, tuple(shape)))
        op.location = origin.location
        return self.builder.insert(op).memref

    def dealloc(self, buf: SSAValue) -> None:
        self.builder.insert(memref.DeallocOp.get(buf))

    def global_constant(self, value: DenseIntOrFPElementsAttr, origin: Operation) -> SSAValue:
        """A private constant `memref.global` holding `value`, placed before the
        function, and the `memref.get_global` that reads it."""
        k = 0
        while SymbolTable.lookup_symbol(self.func, name := f"{self.prefix}_cst{k}"):
            k += 1
        mtype = MemRefType(value.get_element_type(), list(value.get_shape()))
        glob = memref.GlobalOp.get(StringAttr(name), mtype, value, constant=UnitAttr())
        glob.location = origin.location
        parent = self.func.parent_block()
        assert parent is not None
        parent.insert_op_before(glob, self.func)
        get = memref.GetGlobalOp(name, mtype)
        get.location = origin.location
        return self.builder.insert(get).memref
