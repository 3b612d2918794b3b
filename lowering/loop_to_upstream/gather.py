"""`aicf_loop.gather` -> loops over the output that read the index, wrap it once and
clamp it (the op's rule, JAX's), and copy the element."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from aicf.dialects.loop import GatherOp
from aicf.lowering.loop_to_upstream.loops import IndexConstants, build_loops, load, store


class GatherToLoops(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GatherOp, rewriter: PatternRewriter, /) -> None:
        src_t, idx_t, out_t = (v.type for v in (op.source, op.indices, op.output))
        assert isinstance(src_t, MemRefType) and isinstance(idx_t, MemRefType)
        assert isinstance(out_t, MemRefType)
        a, rank = op.axis_value, idx_t.get_num_dims()
        n = src_t.get_shape()[a]
        const = IndexConstants(InsertPoint.before(op))

        def body(b: Builder, ivs: Sequence[SSAValue], _: Sequence[SSAValue]) -> Sequence[SSAValue]:
            raw = load(b, op.indices, ivs[a : a + rank])
            k = b.insert(arith.IndexCastOp(raw, IndexType())).result
            negative = b.insert(arith.CmpiOp(k, const(0), "slt")).result
            wrapped = b.insert(arith.AddiOp(k, const(n))).result
            k = b.insert(arith.SelectOp(negative, wrapped, k)).result
            k = b.insert(arith.MaxSIOp(k, const(0))).result
            k = b.insert(arith.MinSIOp(k, const(n - 1))).result
            value = load(b, op.source, [*ivs[:a], k, *ivs[a + rank :]])
            store(b, value, op.output, ivs)
            return ()

        build_loops(Builder(InsertPoint.before(op)), out_t.get_shape(), (), const, body)
        rewriter.erase(op)
