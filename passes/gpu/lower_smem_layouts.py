"""`aicf-lower-smem-layouts`: shared buffers with a layout become flat buffers whose
accesses compute their index in `arith`.

Runs after `aicf-swizzle-smem` (the last pass of the cuda pipeline). Every
`aicf_gpu.alloc_shared` whose type carries `#aicf_gpu.swizzle` or `#aicf_gpu.padded`
becomes a 1-D buffer with the identity layout, sized to the layout's footprint
(`gpu.layout_footprint`; the same `dynamic_offset` and attributes), and every access
to it (`memref.load`/`store`, `aicf_gpu.load_vector`/`store_vector`; the table
`ACCESS_REWRITES`) an access at one index: the layout's `offset()` (dialects/gpu.py,
the one definition of each layout's index function) evaluated on the access's index
values, each of its `+ * // % ^` an arith op on `index` inserted before the access.
Constant operands fold (`x * 1`, `x // 1`, `0 + x`, ...; an `arith.constant` index is
a constant); a division or remainder by a power of two is `arith.shrui` / `arith.andi`
(indices are non-negative); within one buffer, a value already computed where it
dominates the access is reused. After this pass the layout exists only as that
arith: the CUDA emitter prints it as it prints any index arithmetic, and the
per-lane bank-conflict counter (passes/gpu/swizzle_smem.py: `access_costs`)
evaluates those very ops, so what is measured is what is emitted.

Before:

    %s = aicf_gpu.alloc_shared : memref<64x32xf32, #aicf_gpu.swizzle<vec = 4,
           per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
    memref.store %x, %s[%r, %c] : memref<64x32xf32, #aicf_gpu.swizzle<...>, ...>

After (r * 32 + ((c / 4) ^ (r % 8)) * 4 + c % 4):

    %s = aicf_gpu.alloc_shared : memref<2048xf32, #aicf_gpu.address_space<shared>>
    %c32 = arith.constant 32 : index
    %0 = arith.muli %r, %c32 : index
    %c2 = arith.constant 2 : index
    %1 = arith.shrui %c, %c2 : index
    %c7 = arith.constant 7 : index
    %2 = arith.andi %r, %c7 : index
    %3 = arith.xori %1, %2 : index
    %c4 = arith.constant 4 : index
    %4 = arith.muli %3, %c4 : index
    %c3 = arith.constant 3 : index
    %5 = arith.andi %c, %c3 : index
    %6 = arith.addi %4, %5 : index
    %7 = arith.addi %0, %6 : index
    memref.store %x, %s[%7] : memref<2048xf32, #aicf_gpu.address_space<shared>>

A laid-out buffer used by any other op (one that takes the buffer whole) is an
error: such an op would need its own rewrite in `ACCESS_REWRITES`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from aicf.diagnostics import op_error
from aicf.dialects import gpu

LAID_OUT = (gpu.SwizzleLayoutAttr, gpu.PaddedLayoutAttr)
"""The shared-memory layouts this pass lowers (the emitter prints none of them)."""


def is_laid_out(t) -> bool:
    """A memref type whose layout is an `aicf_gpu` shared-memory layout."""
    return isinstance(t, MemRefType) and isinstance(t.layout, LAID_OUT)


# --------------------------------------------------------------------------------------
# The accesses: how each reads its buffer and index, and its flat form
# --------------------------------------------------------------------------------------

ACCESS_REWRITES: dict[type[Operation], Callable[[Operation, SSAValue, SSAValue], Operation]] = {
    memref.LoadOp: lambda op, ref, i: memref.LoadOp.get(ref, [i]),
    memref.StoreOp: lambda op, ref, i: memref.StoreOp.get(op.value, ref, [i]),  # type: ignore[attr-defined]
    gpu.LoadVectorOp: lambda op, ref, i: gpu.LoadVectorOp(ref, [i], op.result.type),  # type: ignore[attr-defined]
    gpu.StoreVectorOp: lambda op, ref, i: gpu.StoreVectorOp(op.value, ref, [i]),  # type: ignore[attr-defined]
}
"""Per access op (each has `memref` and `indices` operands): the same access of the flat
buffer `ref` at element `i`. Another op that indexes shared buffers registers here."""


# --------------------------------------------------------------------------------------
# arith from a layout's index function
# --------------------------------------------------------------------------------------


class IndexValue:
    """An `index` SSA value under construction: the operators a layout's `offset()` is
    written with (+ * // % ^ on non-negative integers) each insert one arith op
    through the builder, or fold when an operand is a constant."""

    __slots__ = ("b", "v")

    def __init__(self, builder: IndexBuilder, value: SSAValue):
        self.b = builder
        self.v = value

    def __add__(self, o):
        return self.b.binary("+", self, o)

    def __radd__(self, o):
        return self.b.binary("+", o, self)

    def __mul__(self, o):
        return self.b.binary("*", self, o)

    def __rmul__(self, o):
        return self.b.binary("*", o, self)

    def __floordiv__(self, o):
        return self.b.binary("//", self, o)

    def __rfloordiv__(self, o):
        return self.b.binary("//", o, self)

    def __mod__(self, o):
        return self.b.binary("%", self, o)

    def __rmod__(self, o):
        return self.b.binary("%", o, self)

    def __xor__(self, o):
        return self.b.binary("^", self, o)

    def __rxor__(self, o):
        return self.b.binary("^", o, self)


_OPS: dict[str, type[Operation]] = {
    "+": arith.AddiOp, "*": arith.MuliOp, "//": arith.DivUIOp, "%": arith.RemUIOp,
    "^": arith.XOrIOp, ">>": arith.ShRUIOp, "&": arith.AndIOp,
}  # fmt: skip


def _power_of_two(n) -> int | None:
    return n.bit_length() - 1 if isinstance(n, int) and n > 0 and n & (n - 1) == 0 else None


class IndexBuilder:
    """Inserts the arith ops of index expressions before one access at a time
    (`at`), reusing what an earlier access of the same walk computed where it
    dominates (accesses are visited in program order, so a value in a block that
    encloses the access was defined before it)."""

    def __init__(self, rewriter: PatternRewriter | None = None):
        self.rewriter = rewriter
        self.memo: dict[tuple, SSAValue] = {}
        self.point: Operation | None = None
        self.scope: set[Block] = set()

    def at(self, op: Operation) -> None:
        self.point = op
        self.scope = set()
        x: Operation | None = op
        while x is not None and (b := x.parent_block()) is not None:
            self.scope.add(b)
            x = b.parent_op()

    def wrap(self, v: SSAValue) -> IndexValue | int:
        """An index operand of the access: an int when it is an `arith.constant`."""
        if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
            return v.op.value.value.data
        return IndexValue(self, v)

    def value(self, x: IndexValue | int) -> SSAValue:
        """The SSA value of an index expression's result (a constant for an int)."""
        if isinstance(x, IndexValue):
            return x.v
        return self._emit(("const", x), lambda: arith.ConstantOp(IntegerAttr(x, IndexType())))

    def _emit(self, key: tuple, make: Callable[[], Operation]) -> SSAValue:
        v = self.memo.get(key)
        if v is not None and isinstance(v, OpResult) and v.op.parent_block() in self.scope:
            return v
        op = make()
        assert self.point is not None
        if self.rewriter is not None:
            self.rewriter.insert(op, InsertPoint.before(self.point))
        else:
            Rewriter.insert_op(op, InsertPoint.before(self.point))
        self.memo[key] = op.results[0]
        return op.results[0]

    def binary(self, kind: str, a: IndexValue | int, b: IndexValue | int) -> IndexValue | int:
        if isinstance(a, int) and isinstance(b, int):  # reached through folding only
            return {"+": a + b, "*": a * b, "//": a // b, "%": a % b, "^": a ^ b}[kind]
        if kind == "+" and (a == 0 or b == 0):
            return b if a == 0 else a
        if kind == "^" and (a == 0 or b == 0):
            return b if a == 0 else a
        if kind == "*":
            if a == 0 or b == 0:
                return 0
            if a == 1 or b == 1:
                return b if a == 1 else a
        if kind in ("//", "%"):
            if a == 0:
                return 0
            if b == 1:
                return a if kind == "//" else 0
            k = _power_of_two(b)
            if k is not None:  # non-negative operands: a shift and a mask
                kind, b = (">>", k) if kind == "//" else ("&", b - 1)
        lhs, rhs = self.value(a), self.value(b)
        return IndexValue(self, self._emit((kind, lhs, rhs), lambda: _OPS[kind](lhs, rhs)))


def lower_index(builder: IndexBuilder, layout, indices: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
    """The flat element index of `indices` in a buffer of `shape` with `layout`: the
    layout's index function (`gpu.layout_offset`) evaluated on arith values."""
    off = gpu.layout_offset(layout, [builder.wrap(i) for i in indices], shape)
    return builder.value(off)


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


def _enclosing(op: Operation) -> Operation:
    """The kernel around `op` (else its outermost ancestor): where its uses are."""
    x = op
    while (p := x.parent_op()) is not None:
        x = p
        if isinstance(x, gpu.KernelOp):
            break
    return x


def flat_type(t: MemRefType) -> MemRefType:
    """The 1-D identity-layout type of a laid-out shared buffer: its footprint."""
    n = gpu.layout_footprint(t.layout, t.get_shape())
    return MemRefType(t.get_element_type(), [n], NoneAttr(), t.memory_space)


class LowerLaidOutSharedBuffer(RewritePattern):
    """One laid-out `aicf_gpu.alloc_shared`: the flat buffer in its place, and each of
    its accesses at the arith index of the layout's function."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.AllocSharedOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        if not is_laid_out(t):
            return
        assert isinstance(t, MemRefType)
        off = op.dynamic_offset.value.data if op.dynamic_offset is not None else None
        flat = gpu.AllocSharedOp(flat_type(t), off)
        flat.attributes.update(op.attributes)
        flat.result.name_hint = op.result.name_hint
        users = {u.operation for u in op.result.uses}
        for user in users:
            rewrite = ACCESS_REWRITES.get(type(user))
            if rewrite is None or user.memref is not op.result:  # type: ignore[attr-defined]
                raise op_error(user, f"uses the shared buffer {t} whole: aicf-lower-smem-layouts "
                               "lowers only its loads and stores (memref.load/store, aicf_gpu.load_vector/"
                               "store_vector)")  # fmt: skip
            if isinstance(user, gpu.LoadVectorOp | gpu.StoreVectorOp):
                # one vector at its first element's offset: only right when the vector
                # lies in one contiguous, aligned run of the layout (the verifier's rule)
                vt = user.result.type if isinstance(user, gpu.LoadVectorOp) else user.value.type
                try:
                    gpu._check_laid_out_vector(vt.get_shape()[0], t, list(user.indices))
                except VerifyException as e:
                    raise op_error(user, str(e)) from None
        builder = IndexBuilder(rewriter)
        shape = t.get_shape()
        for user in [o for o in _enclosing(op).walk() if o in users]:  # program order
            builder.at(user)
            idx = lower_index(builder, t.layout, list(user.indices), shape)  # type: ignore[attr-defined]
            new = ACCESS_REWRITES[type(user)](user, flat.result, idx)
            new.attributes.update(user.attributes)
            for k, v in user.properties.items():
                new.properties.setdefault(k, v)
            for old_r, new_r in zip(user.results, new.results):
                new_r.name_hint = old_r.name_hint
            rewriter.replace(user, new)
        rewriter.replace(op, flat)


@dataclass(frozen=True)
class LowerSmemLayoutsPass(ModulePass):
    """Replace each shared buffer with a swizzled or padded layout by a flat buffer of
    its footprint, its accesses indexed by arith generated from the layout's index
    function (after aicf-swizzle-smem; the CUDA emitter prints no layout)."""

    name = "aicf-lower-smem-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerLaidOutSharedBuffer(), apply_recursively=False).rewrite_module(op)
