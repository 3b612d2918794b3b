"""`aicf-decompose-attention`: `aicf_tensor.attention` -> batched matmul, softmax,
batched matmul, for targets with no attention kernel of their own.

The cuda target runs it (aicf/compiler.py, before aicf-fuse, which makes the softmax
one row group): until the GPU has a flash-attention schedule this is the one place
where its attention is decided. The flash work replaces this step by letting the op
through to `aicf_loop.attention` and giving the planner a GPU candidate for it (with
this decomposition as the fallback its guard would name).

The decomposition keeps the op's semantics: the scores of f16/bf16 operands go to f32
for the softmax (and back before the second product); an i1 mask or the causal flag
selects -inf; when a row may be masked out entirely (a mask operand), its max is taken
as 0 and its sum as 1, so the row gives 0 instead of NaN, as the op says.

    %o = aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (...) -> tensor<8x64xf32>

becomes (the causal mask as iota comparisons)

    %kt = aicf_tensor.transpose %k perm = [1, 0]
    %s = aicf_tensor.matmul %q, %kt
    %s1 = aicf_tensor.mul %s, %scale
    %keep = aicf_tensor.ge %row, %col      (iotas along the query and key dims)
    %s2 = aicf_tensor.select %keep, %s1, %neg_inf
    ... reduce_max, sub, exp, reduce_sum, div ...
    %o = aicf_tensor.matmul %p, %v
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as T
from aicf.passes.tensor.canonicalize import compose_perms
from aicf.passes.tensor.fold import from_numpy


class _Builder:
    """Ops appended in order, each with its inferred result type."""

    def __init__(self, where: Operation):
        self.ops: list[Operation] = []
        self.location = where.location

    def add(self, op: Operation) -> SSAValue:
        if isinstance(op, T.TensorOp) and not isinstance(op, T.ConstantOp | T.IotaOp | T.CastOp):
            typed = type(op).create(operands=list(op.operands), properties=dict(op.properties),
                                    result_types=[op.inferred_type()])  # fmt: skip
            op.drop_all_references()
            op = typed
        op.location = self.location
        self.ops.append(op)
        return op.results[0]

    def constant(self, value, elt: Attribute, shape=()) -> SSAValue:
        return self.add(T.ConstantOp(from_numpy(np.full(shape, value), TensorType(elt, list(shape)))))

    def cast(self, x: SSAValue, elt: Attribute) -> SSAValue:
        if T.element_type(x.type) == elt:
            return x
        return self.add(T.CastOp(x, TensorType(elt, list(_shape(x)))))

    def read(self, x: SSAValue, perm) -> SSAValue:
        if perm is None or tuple(perm) == tuple(range(len(perm))):
            return x
        return self.add(T.TransposeOp(x, perm))


def _shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return tuple(v.type.get_shape())


def _softmax_type(elt: Attribute) -> Attribute:
    """f16 and bf16 scores get an f32 softmax (the op's at-least-f32 rule)."""
    name = T.dtype_name(elt)
    return T.dtype_from_name("f32") if rules.FLOAT_RANK[name] < rules.FLOAT_RANK["f32"] else elt


def decompose(op: T.AttentionOp) -> list[Operation]:
    b = _Builder(op)
    qp, kp, vp = op.perms()
    elt = T.element_type(op.result.type)
    out_shape = _shape(op.result)
    if 0 in out_shape or _shape_k(op)[-2] == 0:  # no keys: the op gives 0
        b.constant(0.0, elt, out_shape)
        return b.ops
    q = b.read(op.q, qp)
    k_rank = len(_shape(op.k))
    swap = (*range(k_rank - 2), k_rank - 1, k_rank - 2)
    kt = b.read(op.k, compose_perms(kp or tuple(range(k_rank)), swap))
    v = b.read(op.v, vp)
    st = _softmax_type(elt)
    s = b.cast(b.add(T.MatmulOp(q, kt)), st)
    s = b.add(T.MulOp(s, b.constant(op.scale_value, st)))
    neg_inf = b.constant(-np.inf, st)
    if op.mask is not None:
        if T.element_type(op.mask.type) == IntegerType(1):
            s = b.add(T.SelectOp(op.mask, s, neg_inf))
        else:
            s = b.add(T.AddOp(s, b.cast(op.mask, st)))
    if op.is_causal:
        sq, sk = _shape(s)[-2:]
        i32 = T.dtype_from_name("i32")
        row = b.add(T.IotaOp(TensorType(i32, [sq, sk]), 0))
        col = b.add(T.IotaOp(TensorType(i32, [sq, sk]), 1))
        s = b.add(T.SelectOp(b.add(T.GeOp(row, col)), s, neg_inf))
    top = b.add(T.ReduceMaxOp(s, [-1], keepdims=True))
    if op.mask is not None:  # a row masked out entirely: exp(-inf - 0) = 0, not NaN
        top = b.add(T.SelectOp(b.add(T.EqOp(top, neg_inf)), b.constant(0.0, st), top))
    e = b.add(T.ExpOp(b.add(T.SubOp(s, top))))
    total = b.add(T.ReduceSumOp(e, [-1], keepdims=True))
    if op.mask is not None:  # ... and its sum 1, so its weights are 0 / 1
        zero = b.constant(0.0, st)
        total = b.add(T.SelectOp(b.add(T.EqOp(total, zero)), b.constant(1.0, st), total))
    p = b.cast(b.add(T.DivOp(e, total)), elt)
    b.add(T.MatmulOp(p, v))
    return b.ops


def _shape_k(op: T.AttentionOp) -> tuple[int, ...]:
    k, perm = _shape(op.k), op.perms()[1]
    return k if perm is None else rules.transpose_shape(k, perm)


def flash_takes(op: T.AttentionOp) -> bool:
    """Whether the GPU's flash kernel takes `op` as its types and layouts stand (its
    strides are checked again at the loop level, where the planner decides)."""
    from aicf.lowering.gpu_schedules.flash_attention import tensor_guard

    try:
        dtypes = tuple(T.dtype_name(T.element_type(x.type)) for x in (op.q, op.k, op.v))
        q, v = _shape(op.q), _shape(op.v)
        q = q if op.perms()[0] is None else rules.transpose_shape(q, op.perms()[0])
        v = v if op.perms()[2] is None else rules.transpose_shape(v, op.perms()[2])
        out = _shape(op.result)
    except (AssertionError, TypeError, ValueError, AttributeError):  # not ranked and static yet
        return False
    return tensor_guard(dtypes, q[-1], v[-1], op.mask is not None, op.perms(), len(out) - 2) is None


@dataclass
class DecomposeAttention(RewritePattern):
    keep_flash: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.AttentionOp, rewriter: PatternRewriter, /) -> None:
        if not all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            return  # unranked (before aicf-infer-shapes): left as it is
        if self.keep_flash and flash_takes(op):
            return
        ops = decompose(op)
        rewriter.replace(op, ops, [ops[-1].results[0]])


@dataclass(frozen=True)
class DecomposeAttentionPass(ModulePass):
    """Every `aicf_tensor.attention` as matmul, softmax, matmul (see the module
    docstring); with `keep_flash`, except those the GPU's flash kernel takes
    (lowering/gpu_schedules/flash_attention.py), which stay whole for aicf-plan's
    `gpu.flash_attention`."""

    name = "aicf-decompose-attention"

    keep_flash: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([DecomposeAttention(self.keep_flash)])).rewrite_module(op)
