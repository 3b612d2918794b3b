"""The `aicf-to-upstream` pass (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from aicf.diagnostics import op_error
from aicf.lowering.loop_to_upstream.gather import GatherToLoops
from aicf.lowering.loop_to_upstream.group import InlineGroup
from aicf.lowering.loop_to_upstream.nest import NestToLoops
from aicf.lowering.loop_to_upstream.scalar import SCALAR_PATTERNS

UPSTREAM_DIALECTS = ("builtin", "func", "scf", "memref", "arith", "math")
"""What the output may hold."""

DROPPED_ATTRIBUTES = ("aicf.schedule",)
"""Attributes with no upstream meaning: how aicf runs a nest, not what it computes."""


def _run(module: ModuleOp, patterns, recursively: bool = True) -> None:
    PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns)),
                         apply_recursively=recursively).rewrite_module(module)  # fmt: skip


@dataclass(frozen=True)
class LoopToUpstreamPass(ModulePass):
    """Lower aicf_loop to upstream MLIR (func, scf, memref, arith, math) that mlir-opt-16
    parses: nests become scf.for loops, groups their members, gathers loops; schedules
    are dropped. A tensor-level module goes through aicf.compile's tensor pipeline for
    the cpu target (aicf-infer-shapes ... aicf-lower-to-loops, aicf-fold-view-copies)
    first, attention decomposed as on cuda. Print the
    result with --print-no-properties."""

    name = "aicf-to-upstream"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from aicf.compiler import DECOMPOSE_ATTENTION, is_tensor_level, pipeline_for, run_pipeline

        if is_tensor_level(op):  # what aicf.compile runs for the cpu target, up to its planner
            passes = []
            for p in pipeline_for("cpu"):
                if not p.startswith("aicf-plan"):
                    passes.append(p)
                if p == "aicf-recognize-attention":
                    # upstream has no attention op: the decomposition the cuda target runs
                    # (batched matmul, softmax, batched matmul), loops like any other
                    passes.append(DECOMPOSE_ATTENTION)
            run_pipeline(op, passes)
        for o in op.walk():
            if o.name.startswith("aicf_gpu."):
                raise op_error(o, "is GPU-level: aicf-to-upstream takes the loop level "
                               "(before aicf-lower-to-gpu)")  # fmt: skip
        _run(op, (InlineGroup(), NestToLoops(), GatherToLoops()))
        # once over each op: what they make is MLIR 16's already (a guarded division
        # would be guarded again, forever)
        _run(op, SCALAR_PATTERNS, recursively=False)
        for o in op.walk():
            for name in DROPPED_ATTRIBUTES:
                o.attributes.pop(name, None)
            if o.dialect_name() not in UPSTREAM_DIALECTS:
                raise op_error(o, "has no lowering to upstream MLIR")
