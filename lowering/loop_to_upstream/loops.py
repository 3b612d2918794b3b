"""Counted `scf.for` loops and affine index expressions spelled in `arith` on
`index`, so that the output needs neither the affine dialect nor a map attribute."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint, Rewriter

Body = Callable[[Builder, Sequence[SSAValue], Sequence[SSAValue]], Sequence[SSAValue]]
"""Builds the innermost body from the induction variables and the carried values, and
returns the values to carry on (what the loops' scf.yield passes)."""


class IndexConstants:
    """`arith.constant N : index` ops, each made once, together before the loops built
    for one op (each after the last made, so all dominate those loops)."""

    def __init__(self, at: InsertPoint):
        self.made: dict[int, SSAValue] = {}
        self.last = arith.ConstantOp(IntegerAttr(0, IndexType()), IndexType())
        Rewriter.insert_op(self.last, at)
        self.made[0] = self.last.result

    def __call__(self, value: int) -> SSAValue:
        if value not in self.made:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()), IndexType())
            # after the last constant as it is now (loops may follow it by now)
            Rewriter.insert_op(op, InsertPoint.after(self.last))
            self.last = op
            self.made[value] = op.result
        return self.made[value]


def build_loops(b: Builder, extents: Sequence[int], carried: Sequence[SSAValue],
                const: IndexConstants, body: Body,
                ivs: Sequence[SSAValue] = ()) -> Sequence[SSAValue]:  # fmt: skip
    """`scf.for` loops from 0 to each extent (outermost first) at `b`, carrying
    `carried` through them (iter_args); `body(builder, ivs, carried)` fills the
    innermost one. Returns the values the loops produce (`carried` if there are no
    loops)."""
    if not extents:
        return body(b, ivs, carried)
    block = Block(arg_types=[IndexType(), *(v.type for v in carried)])
    loop = b.insert(scf.ForOp(const(0), const(extents[0]), const(1), list(carried), Region(block)))
    inner = Builder(InsertPoint.at_end(block))
    results = build_loops(inner, extents[1:], block.args[1:], const, body, (*ivs, block.args[0]))
    inner.insert(scf.YieldOp(*results))
    return loop.results


def index_of(b: Builder, e: AffineExpr, dims: Sequence[SSAValue], const: IndexConstants) -> SSAValue:
    """The value of the affine expression `e` over the dims' induction variables.
    Affine `mod` is never negative, so it is spelled `a - floordiv(a, b) * b`."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineConstantExpr):
        return const(e.value)
    assert isinstance(e, AffineBinaryOpExpr), e
    lhs = index_of(b, e.lhs, dims, const)
    rhs = index_of(b, e.rhs, dims, const)
    match e.kind:
        case AffineBinaryOpKind.Add:
            return b.insert(arith.AddiOp(lhs, rhs)).result
        case AffineBinaryOpKind.Mul:
            return b.insert(arith.MuliOp(lhs, rhs)).result
        case AffineBinaryOpKind.FloorDiv:
            return b.insert(arith.FloorDivSIOp(lhs, rhs)).result
        case AffineBinaryOpKind.CeilDiv:
            return b.insert(arith.CeilDivSIOp(lhs, rhs)).result
        case AffineBinaryOpKind.Mod:
            q = b.insert(arith.FloorDivSIOp(lhs, rhs)).result
            qb = b.insert(arith.MuliOp(q, rhs)).result
            return b.insert(arith.SubiOp(lhs, qb)).result
    raise ValueError(f"unknown affine expression {e}")


def indices_of(b: Builder, m: AffineMap, dims: Sequence[SSAValue], const: IndexConstants) -> list[SSAValue]:
    return [index_of(b, e, dims, const) for e in m.results]


def load(b: Builder, buf: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return b.insert(memref.LoadOp.get(buf, indices)).res


def store(b: Builder, value: SSAValue, buf: SSAValue, indices: Sequence[SSAValue]) -> None:
    b.insert(memref.StoreOp.get(value, buf, indices))
