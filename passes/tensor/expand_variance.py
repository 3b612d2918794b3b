"""`aicf-expand-variance`: a variance as the ops of its two passes, so that fusion can
put both reductions in the row group of what surrounds them (a layer norm's mean,
normalisation and scale become one kernel instead of five).

    %v = aicf_tensor.reduce_var %x axes = [2] keepdims : (tensor<8x1024x768xf16>) -> tensor<8x1024x1xf16>

becomes, accumulating in f32 as the loop lowering of reduce_var does (f64 for f64):

    %x32 = aicf_tensor.cast %x : (tensor<8x1024x768xf16>) -> tensor<8x1024x768xf32>
    %m = aicf_tensor.reduce_mean %x32 axes = [2] keepdims : (...) -> tensor<8x1024x1xf32>
    %d = aicf_tensor.sub %x32, %m : (...) -> tensor<8x1024x768xf32>
    %q = aicf_tensor.mul %d, %d : (...) -> tensor<8x1024x768xf32>
    %s = aicf_tensor.reduce_sum %q axes = [2] keepdims : (...) -> tensor<8x1024x1xf32>
    %n = aicf_tensor.constant dense<768.0> : tensor<f32>          (n - ddof)
    %v32 = aicf_tensor.div %s, %n : (...) -> tensor<8x1024x1xf32>
    %v = aicf_tensor.cast %v32 : (tensor<8x1024x1xf32>) -> tensor<8x1024x1xf16>

The same arithmetic in the same order as numpy.var; n <= ddof divides by zero (inf or
NaN, as NumPy). Static shapes only (the count is a constant); the cuda and cpu
pipelines run it just before aicf-fuse.

    aicf-opt prog.mlir -p aicf-expand-variance
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float64Type, ModuleOp, TensorType, f32
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from aicf.dialects import tensor as t
from aicf.passes.tensor.fold import from_numpy


class ExpandVariance(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: t.ReduceVarOp, rewriter: PatternRewriter, /) -> None:
        src_t, res_t = op.input.type, op.result.type
        if not (isinstance(src_t, TensorType) and isinstance(res_t, TensorType)):
            return
        shape = tuple(src_t.get_shape())
        if any(d < 0 for d in shape) or any(d < 0 for d in res_t.get_shape()):
            return
        elt = src_t.get_element_type()
        acc = elt if isinstance(elt, Float64Type) else f32
        axes = op.reduced_axes()
        kept = [1 if i in axes else d for i, d in enumerate(shape)]
        ops = []
        x = op.input
        if acc != elt:
            ops.append(t.CastOp(x, TensorType(acc, shape)))
            x = ops[-1].results[0]
        ops.append(t.ReduceMeanOp(x, axes, True, TensorType(acc, kept)))
        ops.append(t.SubOp(x, ops[-1].results[0], TensorType(acc, shape)))
        d = ops[-1].results[0]
        ops.append(t.MulOp(d, d, TensorType(acc, shape)))
        ops.append(t.ReduceSumOp(ops[-1].results[0], axes, op.keep, TensorType(acc, res_t.get_shape())))
        total = ops[-1].results[0]
        count = max(prod(shape[a] for a in axes) - op.ddof_value, 0)
        ops.append(t.ConstantOp(from_numpy(np.array(count, np.float64), TensorType(acc, []))))
        ops.append(t.DivOp(total, ops[-1].results[0], TensorType(acc, res_t.get_shape())))
        if acc != elt:
            ops.append(t.CastOp(ops[-1].results[0], res_t))
        for o in ops:
            o.location = op.location
        rewriter.replace_matched_op(ops, [ops[-1].results[0]])


@dataclass(frozen=True)
class ExpandVariancePass(ModulePass):
    """reduce_var -> its two passes as tensor ops (module docstring)."""

    name = "aicf-expand-variance"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandVariance(), apply_recursively=False).rewrite_module(op)
