"""Building kernel bodies: a small insertion-point builder over xDSL ops, and the
lowering of affine access expressions to `arith` index arithmetic."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
)

from aicf.dialects import gpu
from aicf.dialects.affine_intervals import never_negative

INDEX = IndexType()


class KernelBuilder:
    """Appends ops at the end of the current block; nested regions are built by
    callbacks (`for_`, `if_`) that run with the insertion point inside them.
    Index constants are created once, at the top of the kernel's entry block."""

    def __init__(self, entry: Block):
        self.entry = entry
        self.block = entry
        self._consts: dict[tuple[int, str], SSAValue] = {}
        self._const_anchor: Operation | None = None

    # -- plumbing ------------------------------------------------------------------------
    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def v(self, op: Operation) -> SSAValue:
        self.add(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        key = (value, "index")
        if key not in self._consts:
            op = arith.ConstantOp(IntegerAttr(value, INDEX))
            if self._const_anchor is None:
                first = self.entry.first_op
                if first is None:
                    self.entry.add_op(op)
                else:
                    self.entry.insert_op_before(op, first)
            else:
                self.entry.insert_op_after(op, self._const_anchor)
            self._const_anchor = op
            self._consts[key] = op.result
        return self._consts[key]

    def constant(self, value: float | int, type: Attribute) -> SSAValue:
        if isinstance(type, AnyFloat):
            return self.v(arith.ConstantOp(FloatAttr(float(value), type)))
        if isinstance(type, IndexType):
            return self.index(int(value))
        assert isinstance(type, IntegerType)
        return self.v(arith.ConstantOp(IntegerAttr(int(value), type)))

    # -- index arithmetic (values are non-negative: unsigned div/rem) ---------------------
    def add_i(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 0:
                return a
            b = self.index(b)
        return self.v(arith.AddiOp(a, b))

    def mul_i(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 1:
                return a
            if b == 0:
                return self.index(0)
            b = self.index(b)
        return self.v(arith.MuliOp(a, b))

    def sub_i(self, a: SSAValue | int, b: SSAValue) -> SSAValue:
        """a - b, for a >= b (index values stay non-negative)."""
        return self.v(arith.SubiOp(self.index(a) if isinstance(a, int) else a, b))

    def div_i(self, a: SSAValue, b: int) -> SSAValue:
        return a if b == 1 else self.v(arith.DivUIOp(a, self.index(b)))

    def rem_i(self, a: SSAValue, b: int) -> SSAValue:
        return self.index(0) if b == 1 else self.v(arith.RemUIOp(a, self.index(b)))

    def min_i(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            b = self.index(b)
        return self.v(arith.MinUIOp(a, b))

    def lt(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            b = self.index(b)
        return self.v(arith.CmpiOp(a, b, "ult"))

    def eq(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            b = self.index(b)
        return self.v(arith.CmpiOp(a, b, "eq"))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(arith.SelectOp(cond, a, b))

    def delinearize(self, flat: SSAValue, extents: Sequence[int]) -> list[SSAValue]:
        """Row-major multi-index of `flat` over `extents`."""
        idx: list[SSAValue] = []
        rest = flat
        for k in reversed(range(len(extents))):
            e = extents[k]
            if k == 0:
                idx.append(rest)
            else:
                idx.append(self.rem_i(rest, e))
                rest = self.div_i(rest, e)
        return list(reversed(idx))

    def affine(self, expr: AffineExpr, dims: Sequence[SSAValue]) -> SSAValue:
        """`expr` at the (non-negative) index values `dims`. Division and mod are the
        affine ones (floordiv rounds toward -inf, mod has the divisor's sign): unsigned
        where the dividend can never be negative and the divisor is positive, else
        through the signed helpers. The kernel's index width must hold every
        subexpression (view.uses_64bit_index checks that)."""
        if isinstance(expr, AffineDimExpr):
            return dims[expr.position]
        if isinstance(expr, AffineConstantExpr):
            return self.index(expr.value)
        assert isinstance(expr, AffineBinaryOpExpr), f"unsupported affine expression {expr}"
        if isinstance(expr.rhs, AffineConstantExpr):
            c = expr.rhs.value
            lhs = self.affine(expr.lhs, dims)
            if expr.kind == AffineBinaryOpKind.Add:
                return self.add_i(lhs, c)
            if expr.kind == AffineBinaryOpKind.Mul:
                return self.mul_i(lhs, c)
            unsigned = c == 1 or (c > 0 and never_negative(expr.lhs))
            if expr.kind == AffineBinaryOpKind.FloorDiv:
                return self.div_i(lhs, c) if unsigned else self.v(arith.FloorDivSIOp(lhs, self.index(c)))
            if expr.kind == AffineBinaryOpKind.Mod:
                if unsigned:
                    return self.rem_i(lhs, c)
                # the truncated remainder r (|r| < |c|, 0 for c = -1), moved by c where
                # its sign is not the divisor's: r + c only where it cannot overflow
                r = self.v(arith.RemSIOp(lhs, self.index(c)))
                wrong_sign = self.v(arith.CmpiOp(r, self.index(0), "slt" if c > 0 else "sgt"))
                return self.v(arith.AddiOp(r, self.select(wrong_sign, self.index(c), self.index(0))))
            if expr.kind == AffineBinaryOpKind.CeilDiv:
                if unsigned:
                    return self.div_i(self.add_i(lhs, c - 1), c)
                return self.v(arith.CeilDivSIOp(lhs, self.index(c)))
        lhs = self.affine(expr.lhs, dims)
        rhs = self.affine(expr.rhs, dims)
        if expr.kind == AffineBinaryOpKind.Add:
            return self.add_i(lhs, rhs)
        if expr.kind == AffineBinaryOpKind.Mul:
            return self.mul_i(lhs, rhs)
        raise NotImplementedError(f"affine expression {expr}")

    # -- memory ----------------------------------------------------------------------------
    def load(self, ref: SSAValue, idx: Sequence[SSAValue]) -> SSAValue:
        return self.v(memref.LoadOp.get(ref, list(idx)))

    def store(self, value: SSAValue, ref: SSAValue, idx: Sequence[SSAValue]) -> None:
        self.add(memref.StoreOp.get(value, ref, list(idx)))

    def load_vector(self, ref: SSAValue, idx: Sequence[SSAValue], n: int) -> SSAValue:
        t = ref.type
        assert isinstance(t, MemRefType)
        return self.v(gpu.LoadVectorOp(ref, list(idx), VectorType(t.get_element_type(), [n])))

    def store_vector(self, value: SSAValue, ref: SSAValue, idx: Sequence[SSAValue]) -> None:
        self.add(gpu.StoreVectorOp(value, ref, list(idx)))

    def extract(self, vec: SSAValue, k: int) -> SSAValue:
        t = vec.type
        assert isinstance(t, VectorType)
        return self.v(vector.ExtractOp(vec, [k], t.get_element_type()))

    def pack(self, scalars: Sequence[SSAValue]) -> SSAValue:
        """A vector of the given scalars (broadcast of the first, then inserts)."""
        vt = VectorType(scalars[0].type, [len(scalars)])
        vec = self.v(vector.BroadcastOp(scalars[0], vt))
        for k, s in enumerate(scalars[1:], start=1):
            vec = self.v(vector.InsertOp(s, vec, [k], vt))
        return vec

    # -- structured control flow -----------------------------------------------------------
    def for_(
        self,
        lb: SSAValue | int,
        ub: SSAValue | int,
        step: SSAValue | int,
        inits: Sequence[SSAValue],
        body: Callable[[SSAValue, list[SSAValue]], Sequence[SSAValue]],
        unroll: int | None = None,
    ) -> list[SSAValue]:
        lb = self.index(lb) if isinstance(lb, int) else lb
        ub = self.index(ub) if isinstance(ub, int) else ub
        step = self.index(step) if isinstance(step, int) else step
        blk = Block(arg_types=[INDEX, *[v.type for v in inits]])
        saved = self.block
        self.block = blk
        outs = body(blk.args[0], list(blk.args[1:]))
        self.block.add_op(scf.YieldOp(*outs))
        self.block = saved
        op = scf.ForOp(lb, ub, step, list(inits), Region(blk))
        if unroll:
            op.attributes["aicf_gpu.unroll"] = IntegerAttr(unroll, 64)
        self.add(op)
        return list(op.results)

    def if_(
        self,
        cond: SSAValue,
        then: Callable[[], Sequence[SSAValue]],
        else_: Callable[[], Sequence[SSAValue]] | None = None,
        result_types: Sequence[Attribute] = (),
    ) -> list[SSAValue]:
        saved = self.block
        tb = Block()
        self.block = tb
        outs = then()
        tb.add_op(scf.YieldOp(*outs))
        regions = [Region(tb)]
        if else_ is not None:
            eb = Block()
            self.block = eb
            outs = else_()
            eb.add_op(scf.YieldOp(*outs))
            regions.append(Region(eb))
        self.block = saved
        op = scf.IfOp(cond, list(result_types), regions[0], regions[1] if len(regions) > 1 else None)
        self.add(op)
        return list(op.results)


def combine(kb: KernelBuilder, kind: str, a: SSAValue, b: SSAValue) -> SSAValue:
    """Fold two accumulator values with a nest combiner (NaN-propagating max/min, as
    NumPy's reductions)."""
    is_float = isinstance(a.type, AnyFloat)
    if a.type == IntegerType(1):  # the nest's i1 folds: or for add and max, and for mul and min
        return kb.v(arith.OrIOp(a, b) if kind in ("add", "max") else arith.AndIOp(a, b))
    if kind == "add":
        return kb.v(arith.AddfOp(a, b) if is_float else arith.AddiOp(a, b))
    if kind == "mul":
        return kb.v(arith.MulfOp(a, b) if is_float else arith.MuliOp(a, b))
    if kind == "max":
        return kb.v(arith.MaximumfOp(a, b) if is_float else arith.MaxSIOp(a, b))
    if kind == "min":
        return kb.v(arith.MinimumfOp(a, b) if is_float else arith.MinSIOp(a, b))
    raise ValueError(kind)


def convert(kb: KernelBuilder, value: SSAValue, to: Attribute) -> SSAValue:
    """Accumulator -> output element type (the nest's store-time conversion)."""
    src = value.type
    if src == to:
        return value
    if isinstance(src, AnyFloat) and isinstance(to, AnyFloat):
        if src.bitwidth > to.bitwidth:
            return kb.v(arith.TruncFOp(value, to))
        return kb.v(arith.ExtFOp(value, to))
    if isinstance(src, IntegerType) and isinstance(to, AnyFloat):
        return kb.v(arith.UIToFPOp(value, to) if src.width.data == 1 else arith.SIToFPOp(value, to))  # true is 1
    if isinstance(src, AnyFloat) and isinstance(to, IntegerType):
        return kb.v(arith.FPToSIOp(value, to))
    if isinstance(src, IntegerType) and isinstance(to, IntegerType):
        if src.width.data > to.width.data:
            return kb.v(arith.TruncIOp(value, to))
        return kb.v(arith.ExtUIOp(value, to) if src.width.data == 1 else arith.ExtSIOp(value, to))
    raise NotImplementedError(f"convert {src} to {to}")
