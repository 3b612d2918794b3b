"""`aicf_loop.group` -> its member nests, in order: the group's plain semantics (running
the members per slice of the shared dims is a schedule, which has no upstream form)."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from aicf.dialects.loop import GroupOp


class InlineGroup(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, group: GroupOp, rewriter: PatternRewriter, /) -> None:
        rewriter.inline_block(group.body.block, InsertPoint.before(group))
        rewriter.erase(group)
