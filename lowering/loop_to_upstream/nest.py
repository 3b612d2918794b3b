"""`aicf_loop.nest` -> `scf.for` loops, loads and stores.

Without reduction dims: one loop per dim (in the domain's order); the innermost loads
one element of every input through its access map, runs the body and stores each
yielded value through its output's map.

With reduction dims: the parallel dims' loops outermost, in order, and inside them
the reduction dims' loops carrying one accumulator per output (`iter_args`), started
at the combiner's identity and stored once, converted to the output's element type,
after the last. Folding in another order than the domain's only reorders the
additions; as on the cpu target, sums and products of floats accumulate in f64 and
of integers in i64, so the order barely shows. Broadcasts, transposes, strides and
reshapes are the access maps themselves, spelled in `arith` on `index`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from aicf.diagnostics import op_error
from aicf.dialects.loop import Combiner, NestOp
from aicf.lowering.loop_to_upstream.loops import (
    IndexConstants,
    build_loops,
    indices_of,
    load,
    store,
)
from aicf.lowering.loop_to_upstream.scalar import nan_propagating, store_conversion
from aicf.lowering.tensor_to_loop.scalar import convert


def accumulator_type(yielded: Attribute, c: Combiner) -> Attribute:
    """What an output's fold runs in: f64 for sums and products of floats, i64 of
    integers (i1 stays i1: or and and), else the yielded type (the cpu target's)."""
    if c in (Combiner.ADD, Combiner.MUL):
        if isinstance(yielded, AnyFloat):
            return f64
        if isinstance(yielded, IntegerType) and yielded != i1:
            return i64
    return yielded


def identity(b: Builder, c: Combiner, t: Attribute) -> SSAValue:
    if isinstance(t, AnyFloat):
        attr: Attribute = FloatAttr(c.identity(True), t)
    elif t == i1:  # false for or (add, max), true for and (mul, min)
        attr = IntegerAttr(int(c in (Combiner.MUL, Combiner.MIN)), i1)
    else:
        assert isinstance(t, IntegerType)
        attr = IntegerAttr(c.identity(False, t.width.data), t)
    return b.insert(arith.ConstantOp(attr, t)).result  # type: ignore[arg-type]


def combine(b: Builder, c: Combiner, acc: SSAValue, v: SSAValue) -> SSAValue:
    t = acc.type
    if isinstance(t, AnyFloat):
        if c in (Combiner.MAX, Combiner.MIN):
            return nan_propagating(b, acc, v, c is Combiner.MAX)
        cls = arith.AddfOp if c is Combiner.ADD else arith.MulfOp
    elif t == i1:
        cls = arith.OrIOp if c in (Combiner.ADD, Combiner.MAX) else arith.AndIOp
    else:
        cls = {Combiner.ADD: arith.AddiOp, Combiner.MUL: arith.MuliOp,
               Combiner.MAX: arith.MaxSIOp, Combiner.MIN: arith.MinSIOp}[c]  # fmt: skip
    return b.insert(cls(acc, v)).result


class NestToLoops(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, nest: NestOp, rewriter: PatternRewriter, /) -> None:
        if nest.guard is not None:
            # scf.for bounds here are constants; the C and GPU targets take the guard
            raise op_error(nest, "aicf-to-upstream does not lower a guarded nest (a split's "
                                 "partial or a scan); emit it with -t c or -t cuda")
        const = IndexConstants(InsertPoint.before(nest))
        extents = nest.extents
        yield_op = nest.yield_op
        outputs = list(nest.outputs)

        def compute(b: Builder, dims: Sequence[SSAValue]) -> list[SSAValue]:
            """The body at this point of the domain: its yielded values."""
            loaded = [load(b, buf, indices_of(b, m, dims, const))
                      for buf, m in zip(nest.inputs, nest.input_maps)]  # fmt: skip
            rewriter.inline_block(nest.body.block, b.insertion_point, loaded)
            values = list(yield_op.values)  # a yielded block argument is now its load
            rewriter.erase(yield_op)
            return values

        def stores(b: Builder, values: Sequence[SSAValue], dims: Sequence[SSAValue]) -> None:
            for out, m, v in zip(outputs, nest.output_maps, values):
                t = out.type
                assert isinstance(t, MemRefType)
                v = store_conversion(b, v, t.get_element_type())
                store(b, v, out, indices_of(b, m, dims, const))

        red = nest.reduction_dims
        par = nest.parallel_dims
        start = Builder(InsertPoint.before(nest))
        if not red:

            def elementwise(b: Builder, ivs: Sequence[SSAValue], _: Sequence[SSAValue]):
                stores(b, compute(b, ivs), ivs)
                return ()

            build_loops(start, extents, (), const, elementwise)
            rewriter.erase(nest)
            return

        combiners = nest.combiner_kinds
        acc_types = [accumulator_type(v.type, c) for v, c in zip(yield_op.values, combiners)]

        def in_domain_order(pivs: Sequence[SSAValue], rivs: Sequence[SSAValue]) -> list[SSAValue]:
            dims: list[SSAValue] = [None] * len(extents)  # type: ignore[list-item]
            for d, iv in zip(par, pivs):
                dims[d] = iv
            for d, iv in zip(red, rivs):
                dims[d] = iv
            return dims

        def per_output(b: Builder, pivs: Sequence[SSAValue], _: Sequence[SSAValue]):
            inits = [identity(b, c, t) for c, t in zip(combiners, acc_types)]

            def fold(bi: Builder, rivs: Sequence[SSAValue], accs: Sequence[SSAValue]):
                values = compute(bi, in_domain_order(pivs, rivs))
                return [combine(bi, c, acc, convert(bi, v, acc.type))
                        for c, acc, v in zip(combiners, accs, values)]  # fmt: skip

            folded = build_loops(b, [extents[d] for d in red], inits, const, fold)
            # output maps use no reduction dim (the verifier's rule)
            stores(b, folded, in_domain_order(pivs, ()))
            return ()

        build_loops(start, [extents[d] for d in par], (), const, per_output)
        rewriter.erase(nest)
