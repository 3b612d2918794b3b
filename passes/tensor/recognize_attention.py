"""`aicf-recognize-attention`: softmax(Q K^T * scale + mask) V, written as separate
ops, becomes one `aicf_tensor.attention` (whose kernels never write the seq x seq
scores to memory).

The spellings it takes (each a piece of the match, in any combination):
- the weights: exp(s - reduce_max(s)) / reduce_sum(..) over the last axis (keepdims),
  or exp(s) / reduce_sum(exp(s)) without the max subtraction; a widening cast before
  (f16 scores, f32 softmax) and a narrowing cast after (back to V's type);
- the scale: s * c, c * s or s / c with c a scalar constant (1 / sqrt(d) folded by
  NumPy or canonicalize), several multiplying; Q * c or K * c before the product
  (`FoldOperandScale`);
- the masks: s + m with a float tensor m (added after the scale: a mask added before
  it would be scaled too, which the op cannot say); where(keep, s, -inf) or
  where(drop, -inf, s) with an i1 tensor; a causal mask (query i keeps keys j <= i,
  torch's is_causal), whatever computes it from no argument (constants and iotas:
  np.tri, `(1 - np.tri(n)) * -1e10`, torch.tril's and aten's arange comparisons; it is
  evaluated at compile time, up to MAX_MASK_ELEMENTS), becomes the op's `causal` flag
  (`FoldCausalMask`); at most one other mask besides it;
- the transposes: K^T as transpose/swapaxes/permute (`FoldOperandTranspose` folds any
  transpose of Q, K or V into the op's layout), or K given as [..., D, Sk];
- the products as torch writes a matmul of 4-D tensors: a bmm of views that merge the
  batch dims, viewed back (`MatmulThroughBatchReshapes`, next to a softmax only).

Exactness. Every result the program computes as a number the op computes too, up to
the rounding of a fused kernel (x / c is multiplied by 1 / c; f16 scores go through
an f32 softmax). Two things are not matched, because they would change numbers:
- a finite fill (where(keep, s, -1e9)) or a finite additive mask turned into the
  causal flag, unless the mask is causal (so every row keeps its diagonal) and the
  value is at most MASKED_AT_MOST: then the masked scores' exp underflows to 0 as the
  flag's -inf does (unless a row's scores spread over ~1e9, beyond any f32 softmax);
  other finite masks are kept as an additive mask (exact);
- a mask under a scale (mask added first), or a fill under a non-positive scale.
Where the program computes NaN, the op may give a number: a row masked out entirely
by -inf gives NaN in the program (exp(-inf - -inf)) and 0 in the op (torch's
scaled_dot_product_attention); exp(s) / sum(exp(s)) overflows to inf / inf where a
score passes ~88 (f32) and the op gives the softmax.

Reporting. A matmul whose left operand looks like a softmax (a division by a
reduce_sum) and that does not match is a near miss: the pass says why, at which op.
Matches and near misses are listed in the module attribute `aicf.attention` (which
`exe.explain()` prints) and logged (`AICF_LOG=attention`); with `explain=true` each
attention op and each near-miss matmul also carries its own `aicf.attention` string.

    %3 = aicf_tensor.transpose %k perm = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
    %4 = aicf_tensor.matmul %q, %3 : (tensor<5x8xf32>, tensor<8x5xf32>) -> tensor<5x5xf32>
    %6 = aicf_tensor.div %4, %c : (tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>
    %8 = aicf_tensor.add %6, %mask : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    ... reduce_max, sub, exp, reduce_sum, div ...
    %14 = aicf_tensor.matmul %13, %v : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>

becomes, with %mask = (1 - np.tri(5)) * -1e10,

    %14 = aicf_tensor.attention %q, %k, %v scale = 0.35355339059327373 causal : (...) -> tensor<5x8xf32>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import dce
from xdsl.utils.exceptions import VerifyException

from aicf.diagnostics import location_of
from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as T
from aicf.logs import getLogger
from aicf.passes.tensor.canonicalize import compose_perms, splat_value
from aicf.passes.tensor.fold import from_numpy, to_numpy

_log = getLogger("attention")

MASKED_AT_MOST = -1e9
"""A causal mask's finite fill (or additive value) at most this counts as -inf (see
the module docstring): picoGPT's -1e10 and torch's finfo(f32).min do, f16's -65504
does not (such a mask stays an additive mask)."""

REPORT_ATTR = "aicf.attention"


class NearMiss(Exception):
    """Why a softmax(..) @ V is not an attention the op can state exactly."""

    def __init__(self, reason: str, at: Operation | None = None):
        super().__init__(reason)
        self.reason = reason
        self.at = at


# --- small facts about values ------------------------------------------------------------


def _shape(v: SSAValue) -> tuple[int, ...]:
    if not isinstance(v.type, TensorType):  # unranked (before aicf-infer-shapes): no match
        raise NearMiss(f"{v.type} is not a ranked tensor type", v.owner if isinstance(v.owner, Operation) else None)
    return tuple(v.type.get_shape())


def ranked(op: Operation) -> bool:
    """Whether all of `op`'s operands and results have ranked tensor types (the
    patterns here read shapes; unranked ones, before aicf-infer-shapes, are left be)."""
    return all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


def _dtype(v: SSAValue) -> str:
    return T.dtype_name(T.element_type(v.type))


def _reader(use_op: Operation) -> str:
    return f"{use_op.name} at {location_of(use_op)}"


def _only_readers(v: SSAValue, readers: Sequence[Operation], what: str) -> None:
    """`v` is read by `readers` and nothing else: the op replaces all of them."""
    others = [u.operation for u in v.uses if u.operation not in readers]
    if others:
        raise NearMiss(f"{what}: also read by {_reader(others[0])}", v.owner if isinstance(v.owner, Operation) else None)


def _last_axis(op: T.ReduceOp) -> bool:
    rank = len(_shape(op.input))
    return op.keep and op.reduced_axes() == (rank - 1,)


def _scalar(v: SSAValue, other: SSAValue, result: SSAValue) -> float | None:
    """The value of a splat constant that broadcasts like a scalar against `other`."""
    value = splat_value(v)
    if value is None or _shape(result) != _shape(other):
        return None
    return float(value)


def _is_widening(op: T.CastOp) -> bool:
    a, b = _dtype(op.input), _dtype(op.result)
    return a in rules.FLOAT_RANK and b in rules.FLOAT_RANK and rules.FLOAT_RANK[b] >= rules.FLOAT_RANK[a]


# --- causal masks ----------------------------------------------------------------------------


MAX_MASK_OPS = 64
MAX_MASK_ELEMENTS = 1 << 24
"""The largest mask expression evaluated at compile time to see whether it is causal."""


def mask_value(v: SSAValue) -> np.ndarray | None:
    """The value of `v` if it depends on no argument (a constant, or iotas, constants
    and elementwise or layout ops on them: torch.tril's and np.tril's comparisons of
    aranges, aten's is_causal), computed as the op semantics say; else None."""
    from aicf.interpreters.tensor import FOLD, run_op

    values: dict[SSAValue, np.ndarray] = {}
    order: list[Operation] = []
    stack = [v]
    while stack:
        x = stack.pop()
        op = x.owner
        if x in values or op in order:
            continue
        if not isinstance(op, T.TensorOp) or isinstance(op, T.MatmulOp | T.AttentionOp) or not ranked(op):
            return None
        shape = _shape(x)
        if math.prod(shape) > MAX_MASK_ELEMENTS or len(order) >= MAX_MASK_OPS:
            return None
        order.append(op)
        stack.extend(op.operands)
    for op in _producers_first(order):
        (values[op.results[0]],) = run_op(op, [values[o] for o in op.operands], FOLD)
    return values[v]


def _producers_first(ops: list[Operation]) -> list[Operation]:
    """`ops` (a value's producers) with every op after those it reads."""
    members = set(ops)
    seen: set[Operation] = set()
    out: list[Operation] = []

    def visit(op: Operation) -> None:
        if op in seen:
            return
        seen.add(op)
        for o in op.operands:
            if o.owner in members:
                visit(o.owner)  # type: ignore[arg-type]
        out.append(op)

    for op in ops:
        visit(op)
    return out


def _causal_pattern(sq: int, sk: int, keep: bool) -> np.ndarray:
    """Where a causal mask keeps (j <= i), or where it drops."""
    tri = np.tri(sq, sk, dtype=np.bool_)
    return tri if keep else ~tri


def _trailing(values: np.ndarray, scores: tuple[int, ...]) -> np.ndarray | None:
    """`values` broadcast against the scores, as [..., Sq, Sk] (its own leading dims)."""
    sq, sk = scores[-2:]
    if values.ndim < 2:
        values = values.reshape((1,) * (2 - values.ndim) + values.shape)
    try:
        return np.broadcast_to(values, (*values.shape[:-2], sq, sk))
    except ValueError:
        return None


def causal_flags(v: SSAValue, scores: tuple[int, ...], keep: bool) -> bool:
    """Whether i1 `v`, broadcast against scores [..., Sq, Sk], is true exactly where a
    causal mask keeps (j <= i; `keep`) or exactly where it drops (j > i)."""
    values = mask_value(v)
    if values is None or (values := _trailing(values.astype(np.bool_), scores)) is None:
        return False
    return bool((values == _causal_pattern(*scores[-2:], keep)).all())


def causal_additive(v: SSAValue, scores: tuple[int, ...]) -> bool:
    """Whether float `v` (depending on no argument) is a causal additive mask: 0 where
    j <= i and -inf or at most MASKED_AT_MOST where j > i."""
    values = mask_value(v)
    if values is None or (values := _trailing(values.astype(np.float64), scores)) is None:
        return False
    keep = _causal_pattern(*scores[-2:], True)
    return bool((values[..., keep] == 0).all() and (values[..., ~keep] <= MASKED_AT_MOST).all())


# --- the match ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """What a softmax(..) @ V gives, filled in from the outside in."""

    scale: float = 1.0
    outer: float = 1.0  # the scales met so far: they apply to what lies inside them
    mask: SSAValue | None = None
    negate_mask: bool = False  # where(drop, -inf, s): the op keeps where not drop
    causal: bool = False
    q: SSAValue | None = None
    kt: SSAValue | None = None
    notes: tuple[str, ...] = ()

    def note(self, text: str) -> Match:
        return replace(self, notes=(*self.notes, text))


def match_softmax(p: SSAValue, m: Match) -> tuple[SSAValue, Match]:
    """The scores that a softmax over the last axis turns into `p`."""
    div = p.owner
    if not isinstance(div, T.DivOp) or not isinstance(red := div.rhs.owner, T.ReduceSumOp):
        raise NearMiss("the weights are not x / reduce_sum(x) (a softmax)", div if isinstance(div, Operation) else None)
    e, total = div.lhs, div.rhs
    if red.input != e or not _last_axis(red):
        raise NearMiss("the weights are divided by something other than their own sum over the last "
                       "axis (reduce_sum axes = [-1] keepdims)", red)  # fmt: skip
    exp = e.owner
    if not isinstance(exp, T.ExpOp):
        raise NearMiss(f"the normalised values come from {e.owner.name}, not from exp", div)  # type: ignore[union-attr]
    _only_readers(e, (div, red), "exp(scores)")
    _only_readers(total, (div,), "the softmax's row sum")
    x = exp.input
    sub = x.owner
    if isinstance(sub, T.SubOp) and isinstance(top := sub.rhs.owner, T.ReduceMaxOp):
        if top.input != sub.lhs or not _last_axis(top):
            raise NearMiss("exp(x - m) where m is not x's own max over the last axis "
                           "(reduce_max axes = [-1] keepdims)", top)  # fmt: skip
        _only_readers(x, (exp,), "scores - max")
        _only_readers(sub.rhs, (sub,), "the softmax's row max")
        _only_readers(sub.lhs, (sub, top), "the scores")
        return sub.lhs, m.note("softmax max-subtracted")
    _only_readers(x, (exp,), "the scores")
    return x, m.note("softmax without the max subtraction")


def _set_mask(m: Match, mask: SSAValue, negate: bool, what: str, at: Operation) -> Match:
    if m.mask is not None:
        raise NearMiss(f"a second mask ({what}): the op takes one mask besides the causal flag", at)
    return replace(m, mask=mask, negate_mask=negate).note(what)


def _through_add(op: T.AddOp, m: Match) -> Match:
    """s + mask: try each side as the scores."""
    if m.outer != 1.0:
        raise NearMiss("the mask is added before the scale, which would scale it too: "
                       "the op adds it after", op)  # fmt: skip
    first: NearMiss | None = None
    for path, mask in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        try:
            if _dtype(mask) not in rules.FLOAT_RANK:
                raise NearMiss(f"the added mask is {_dtype(mask)}, not a float tensor", op)
            if causal_additive(mask, _shape(path)):
                inner = replace(m, causal=True).note("causal (additive mask)")
            else:
                inner = _set_mask(m, mask, False, "additive mask", op)
            return match_scores(path, inner, op)
        except NearMiss as e:
            first = first or e
    assert first is not None
    raise first


def _through_select(op: T.SelectOp, m: Match) -> Match:
    """where(keep, s, fill) or where(drop, fill, s) with a constant fill."""
    lhs, rhs = splat_value(op.lhs), splat_value(op.rhs)
    if rhs is not None and lhs is None:
        path, fill, keep = op.lhs, float(rhs), True
    elif lhs is not None and rhs is None:
        path, fill, keep = op.rhs, float(lhs), False
    else:
        raise NearMiss("a select between the scores and something that is not a constant fill", op)
    if m.outer <= 0:
        raise NearMiss(f"a fill under the scale {m.outer}, which turns it into {fill * m.outer}", op)
    fill *= m.outer
    causal = causal_flags(op.cond, _shape(path), keep)
    if fill == -math.inf or (causal and fill <= MASKED_AT_MOST):
        if causal:
            how = "constant i1 mask" if isinstance(op.cond.owner, T.ConstantOp) else "computed i1 mask"
            inner = replace(m, causal=True).note(f"causal ({how})")
        else:
            inner = _set_mask(m, op.cond, not keep, "i1 mask", op)
        return match_scores(path, inner, op)
    if fill <= MASKED_AT_MOST:
        raise NearMiss(f"the fill {fill} is finite and the mask is not causal: dropping the scores "
                       "equals filling them only where a row keeps another score", op)  # fmt: skip
    raise NearMiss(f"the fill {fill} does not mask a score out (-inf does, and at most "
                   f"{MASKED_AT_MOST} with a causal mask)", op)  # fmt: skip


def _scale_of(op: T.MulOp | T.DivOp) -> tuple[SSAValue, float] | None:
    """(the scaled value, the factor) of s * c, c * s or s / c, c a scalar constant."""
    if isinstance(op, T.DivOp):
        c = _scalar(op.rhs, op.lhs, op.result)
        return None if c is None else (op.lhs, math.inf if c == 0 else 1.0 / c)
    for s, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        if (value := _scalar(c, s, op.result)) is not None:
            return s, value
    return None


def match_scores(y: SSAValue, m: Match, reader: Operation | None = None) -> Match:
    """Q, K^T, the scale and the masks of the scores `y`, which only `reader` (the
    step above, which the op replaces) may read."""
    if reader is not None:
        _only_readers(y, (reader,), "an intermediate of the scores")
    op = y.owner
    if isinstance(op, T.MatmulOp):
        if len(_shape(op.lhs)) < 2 or len(_shape(op.rhs)) < 2:
            raise NearMiss("a matmul of a vector: Q and K must be [..., seq, head dim]", op)
        return replace(m, q=op.lhs, kt=op.rhs)
    if isinstance(op, T.CastOp):
        if not _is_widening(op):
            raise NearMiss(f"the scores are narrowed from {_dtype(op.input)} to {_dtype(op.result)}", op)
        return match_scores(op.input, m, op)
    if isinstance(op, T.MulOp | T.DivOp) and (found := _scale_of(op)) is not None:
        inner, c = found
        if not math.isfinite(c) or c == 0:
            raise NearMiss(f"the scale {c} is not a finite nonzero number", op)
        return match_scores(inner, replace(m, scale=m.scale * c, outer=m.outer * c), op)
    if isinstance(op, T.AddOp):
        return _through_add(op, m)
    if isinstance(op, T.SelectOp):
        return _through_select(op, m)
    if not isinstance(op, Operation):
        raise NearMiss("the scores are a function argument, not a matmul of Q and K")
    raise NearMiss(f"the scores come from {op.name}, not from a matmul of Q and K (with a "
                   "constant scale and masks)", op)  # fmt: skip


def looks_like_softmax(p: SSAValue) -> bool:
    """A division by a reduce_sum (maybe cast): a matmul of it that does not match is
    a near miss worth a word."""
    op = p.owner
    if isinstance(op, T.CastOp):
        op = op.input.owner
    return isinstance(op, T.DivOp) and isinstance(op.rhs.owner, T.ReduceSumOp)


def match_attention(pv: T.MatmulOp) -> Match:
    """The attention whose last product is `pv` (softmax(..) @ V); NearMiss if none."""
    if len(_shape(pv.rhs)) < 2:
        raise NearMiss("V is a vector: it must be [..., seq, head dim]", pv)
    m, p, reader = Match(), pv.lhs, pv
    if isinstance(cast := p.owner, T.CastOp):
        _only_readers(p, (pv,), "the attention weights")
        m, p, reader = m.note(f"weights cast to {_dtype(cast.result)}"), cast.input, cast
    _only_readers(p, (reader,), "the attention weights")
    scores, m = match_softmax(p, m)
    m = match_scores(scores, m)
    assert m.q is not None and m.kt is not None
    types = [_dtype(x) for x in (m.q, m.kt, pv.rhs, pv.result)]
    if len(set(types)) > 1 or types[0] not in rules.FLOAT_RANK:
        raise NearMiss(f"Q, K, V and the result are {', '.join(types)}: the op takes one float type", pv)
    return m


def _swap_last(rank: int) -> tuple[int, ...]:
    return (*range(rank - 2), rank - 1, rank - 2)


def _attention_ops(pv: T.MatmulOp, m: Match) -> list[Operation]:
    """The ops that replace `pv`: the attention (and the negation of a drop mask)."""
    assert m.q is not None and m.kt is not None
    ops: list[Operation] = []
    mask = m.mask
    if mask is not None and m.negate_mask:
        false = T.ConstantOp(from_numpy(np.asarray(False), TensorType(T.dtype_from_name("i1"), [])))
        keep = T.EqOp(mask, false, TensorType(T.dtype_from_name("i1"), list(_shape(mask))))
        ops += [false, keep]
        mask = keep.result
    notes = [*m.notes, f"scale {m.scale!r}"]
    att = T.AttentionOp(m.q, m.kt, pv.rhs, mask, scale=m.scale, causal=m.causal,
                        perms=(None, _swap_last(len(_shape(m.kt))), None), result_type=pv.result.type)  # fmt: skip
    att.attributes[REPORT_ATTR] = StringAttr("matched: " + "; ".join(notes))
    ops.append(att)
    for op in ops:
        op.location = pv.location
    try:
        att.verify()
    except VerifyException as e:
        for op in reversed(ops):
            op.drop_all_references()
        raise NearMiss(f"the pieces do not form an attention: {e}", pv) from None
    return ops


class MatchAttention(RewritePattern):
    """softmax(scale * Q @ K^T + masks) @ V -> aicf_tensor.attention (K read through
    k_perm = transposed), or a note on the matmul saying why not."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.MatmulOp, rewriter: PatternRewriter, /) -> None:
        if not looks_like_softmax(op.lhs):
            return
        try:
            ops = _attention_ops(op, match_attention(op))
        except NearMiss as e:
            where = f" ({e.at.name} at {location_of(e.at)})" if e.at is not None and e.at is not op else ""
            op.attributes[REPORT_ATTR] = StringAttr(f"not matched: {e.reason}{where}")
            return
        rewriter.replace(op, ops, [ops[-1].results[0]])


def _feeds_softmax(v: SSAValue, steps: int = 8) -> bool:
    """Whether `v` reaches a row max or an exp through single-use elementwise ops
    (the scores on their way to a softmax)."""
    for _ in range(steps):
        users = [u.operation for u in v.uses]
        if any(isinstance(u, T.ReduceMaxOp | T.ExpOp) for u in users):
            return True
        if len(users) != 1 or not isinstance(users[0], T.MulOp | T.DivOp | T.AddOp | T.SelectOp | T.CastOp):
            return False
        v = users[0].results[0]
    return False


class MatmulThroughBatchReshapes(RewritePattern):
    """reshape(matmul(reshape(a), reshape(b))) -> matmul(a, b) when the reshapes only
    merge a's and b's equal leading dims into one batch dim and split it back (torch's
    matmul of 4-D tensors as bmm of views): the same products, and the attention's
    operands in sight. Only next to a softmax (the product of the weights, or scores
    on their way to one), so other matmuls keep their form."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.ReshapeOp, rewriter: PatternRewriter, /) -> None:
        mm = op.input.owner
        if not isinstance(mm, T.MatmulOp) or not op.input.has_one_use():
            return
        ra, rb = mm.lhs.owner, mm.rhs.owner
        if not (isinstance(ra, T.ReshapeOp) and isinstance(rb, T.ReshapeOp)):
            return
        if not all(ranked(x) for x in (op, mm, ra, rb)):
            return
        a, b = ra.input, rb.input
        sa, sb, sm, sr = _shape(a), _shape(b), _shape(mm.result), _shape(op.result)
        if len(sm) != 3 or sa[:-2] != sb[:-2] or sa[:-2] != sr[:-2] or math.prod(sa[:-2]) != sm[0]:
            return
        if sa[-2:] != _shape(mm.lhs)[-2:] or sb[-2:] != _shape(mm.rhs)[-2:] or sr[-2:] != sm[-2:]:
            return
        if not (looks_like_softmax(a) or _feeds_softmax(op.result)):
            return
        new = T.MatmulOp(a, b, op.result.type)
        new.location = mm.location
        rewriter.replace(op, new)


def _rebuild(op: T.AttentionOp, rewriter: PatternRewriter, note: str, **changes) -> None:
    """Replace `op` by an attention with some operands or properties changed."""
    args = dict(q=op.q, k=op.k, v=op.v, mask=op.mask, scale=op.scale_value, causal=op.is_causal,
                perms=op.perms())  # fmt: skip
    args.update(changes)
    new = T.AttentionOp(args["q"], args["k"], args["v"], args["mask"], scale=args["scale"],
                        causal=args["causal"], perms=args["perms"], result_type=op.result.type)  # fmt: skip
    new.attributes.update(op.attributes)
    old = op.attributes.get(REPORT_ATTR)
    old_note = old.data if isinstance(old, StringAttr) else "given"
    new.attributes[REPORT_ATTR] = StringAttr(f"{old_note}; {note}")
    new.location = op.location
    rewriter.replace(op, new)


class FoldOperandTranspose(RewritePattern):
    """attention(transpose(x, p)) -> attention(x) reading x through p composed with
    the operand's layout (K^T written as a transpose is K itself)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.AttentionOp, rewriter: PatternRewriter, /) -> None:
        if not ranked(op):
            return
        perms = list(op.perms())
        operands = [op.q, op.k, op.v]
        for i, x in enumerate(operands):
            if isinstance(tr := x.owner, T.TransposeOp):
                outer = perms[i] or tuple(range(len(_shape(x))))
                perm = compose_perms(tr.perm_list, outer)
                perms[i] = None if perm == tuple(range(len(perm))) else perm
                operands[i] = tr.input
                _rebuild(op, rewriter, f"{'QKV'[i]} read through its transpose",
                         q=operands[0], k=operands[1], v=operands[2], perms=tuple(perms))  # fmt: skip
                return


class FoldOperandScale(RewritePattern):
    """attention(Q * c) or attention(K * c) (or / c) -> attention(Q) with the scale
    times c."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.AttentionOp, rewriter: PatternRewriter, /) -> None:
        if not ranked(op):
            return
        for name in ("q", "k"):
            x = getattr(op, name)
            scaled = x.owner
            if not isinstance(scaled, T.MulOp | T.DivOp) or not ranked(scaled) or (found := _scale_of(scaled)) is None:
                continue
            inner, c = found
            if not math.isfinite(c) or c == 0 or _dtype(inner) != _dtype(x):
                continue
            _rebuild(op, rewriter, f"{name.upper()}'s scale folded", **{name: inner},
                     scale=op.scale_value * c)  # fmt: skip
            return


def scores_shape(op: T.AttentionOp) -> tuple[int, ...]:
    """[batch..., Sq, Sk] of an attention op with ranked operands."""
    k = _shape(op.k)
    perm = op.perms()[1]
    sk = (rules.transpose_shape(k, perm) if perm is not None else k)[-2]
    return (*_shape(op.result)[:-1], sk)


class FoldCausalMask(RewritePattern):
    """attention(mask = causal) -> attention causal, for an i1 mask true where j <= i
    or an additive mask 0 there and -inf (or at most MASKED_AT_MOST) above (computed
    from no argument),
    when dropping the mask keeps the result's shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: T.AttentionOp, rewriter: PatternRewriter, /) -> None:
        if not ranked(op):
            return
        mask = op.mask
        if mask is None:
            return
        scores = scores_shape(op)
        causal = (causal_flags(mask, scores, True) if _dtype(mask) == "i1"
                  else causal_additive(mask, scores))  # fmt: skip
        unmasked = rules.attention_shape(_shape(op.q), _shape(op.k), _shape(op.v), None, op.perms())
        if causal and unmasked == _shape(op.result):
            _rebuild(op, rewriter, "causal mask folded into the flag", mask=None, causal=True)


def report(module: ModuleOp, explain: bool) -> list[str]:
    """Each attention and near miss, one line; their per-op notes stay with `explain`."""
    lines = []
    for op in module.walk():
        note = op.attributes.get(REPORT_ATTR)
        if isinstance(op, T.AttentionOp) and note is None:
            note = StringAttr("given")
        if not isinstance(note, StringAttr):
            continue
        if isinstance(op, T.AttentionOp):
            lines.append(f"{location_of(op)}: attention {note.data.removeprefix('matched: ')}")
        else:
            lines.append(f"{location_of(op)}: softmax(..) @ V {note.data}")
        if not explain and REPORT_ATTR in op.attributes:
            del op.attributes[REPORT_ATTR]
    return lines


@dataclass(frozen=True)
class RecognizeAttentionPass(ModulePass):
    """softmax(Q K^T * scale + mask) V -> `aicf_tensor.attention` (see the module
    docstring). `explain` leaves each match's and near miss's note on its op."""

    name = "aicf-recognize-attention"

    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [MatmulThroughBatchReshapes(), MatchAttention(), FoldOperandTranspose(),
                 FoldOperandScale(), FoldCausalMask()]
            )
        ).rewrite_module(op)
        dce(op)
        lines = report(op, self.explain)
        if not lines:
            return
        for line in lines:
            _log.info("%s", line)
        old = op.attributes.get(REPORT_ATTR)
        kept = [a for a in old.data] if isinstance(old, ArrayAttr) else []
        op.attributes[REPORT_ATTR] = ArrayAttr([*kept, *(StringAttr(s) for s in lines)])
