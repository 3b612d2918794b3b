"""One conversion per tensor op family: each writes the op's value into `out` (an
allocation or an output argument) with one nest (two for reduce_mean).

A conversion gets the op, the buffers of its operands (memrefs, in operand order), the
destination buffer and the `Emitter`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float64Type,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as t
from aicf.dialects.loop import Combiner, Iterator, RaggedBound
from aicf.interpreters.tensor import to_storage
from aicf.lowering.tensor_to_loop import access, scalar
from aicf.lowering.tensor_to_loop.emitter import Emitter, elt_of, shape_of

Lowering = Callable[[Operation, Sequence[SSAValue], SSAValue, Emitter], None]


# --- elementwise -------------------------------------------------------------------------


def _elementwise_maps(ins: Sequence[SSAValue], out: SSAValue) -> list[AffineMap]:
    return [access.broadcast(shape_of(v), shape_of(out)) for v in ins]


def lower_elementwise(
    op: t.UnaryOp | t.BinaryOp | t.SelectOp | t.CastOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter
) -> None:
    """Unary, binary (broadcasting through the input maps) and cast ops: one parallel
    nest over the result's shape."""
    em.parallel_nest(
        op, ins, _elementwise_maps(ins, out), out,
        lambda b, args: [scalar.elementwise(b, op, args)],
    )  # fmt: skip


# --- reductions ----------------------------------------------------------------------------


def _reduce_nest(
    op: t.ReduceOp, src: SSAValue, dst: SSAValue, combiner: Combiner, acc, em: Emitter
) -> None:
    """Fold `src` over the op's axes into `dst`, accumulating in `acc`."""
    shape = shape_of(src)
    axes = op.reduced_axes()
    if not axes:  # NumPy's axis=(): nothing is reduced
        em.copy(op, src, dst)
        return
    em.nest(
        op, [src], [access.identity(len(shape))],
        [dst], [access.reduction_output(len(shape), axes, op.keep)],
        shape,
        [Iterator.REDUCTION if i in axes else Iterator.PARALLEL for i in range(len(shape))],
        [combiner],
        lambda b, args: [scalar.convert(b, args[0], acc)],
    )  # fmt: skip


COMBINER_OF: dict[type[t.ReduceOp], Combiner] = {
    t.ReduceSumOp: Combiner.ADD,
    t.ReduceMeanOp: Combiner.ADD,  # then scaled
    t.ReduceMaxOp: Combiner.MAX,
    t.ReduceMinOp: Combiner.MIN,
    t.ReduceProdOp: Combiner.MUL,
}
"""The combiner of each reduction's nest (a variance is two nests of adds)."""


def lower_reduce(op: t.ReduceOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    _reduce_nest(op, ins[0], out, COMBINER_OF[type(op)], scalar.compute_type(elt_of(out)), em)


def lower_scan(op: t.ScanOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """out[.., i, ..] folds in[.., k, ..] for k = 0..i: a nest over the shape and one
    more dim k (the reduction), guarded to k <= i. The fold runs k upwards, NumPy's
    order, as NumPy's sequential cumsum (n^2 / 2 steps: SCAN_MAX_EXTENT)."""
    shape = shape_of(out)
    rank, axis = len(shape), op.scan_axis()
    # the fold's dim k comes right after the axis, before the dims inside it: the
    # innermost loop then walks the input's contiguous dims (k innermost read the
    # input along the axis, a stride of the inner dims' size: 17x slower on 4096x256)
    dims = [AffineExpr.dimension(i if i <= axis else i + 1) for i in range(rank)]
    k = axis + 1
    read = list(dims)
    read[axis] = AffineExpr.dimension(k)
    iterators = [Iterator.PARALLEL] * (rank + 1)
    iterators[k] = Iterator.REDUCTION
    combiner = Combiner.ADD if isinstance(op, t.CumsumOp) else Combiner.MUL
    acc = scalar.compute_type(elt_of(out))
    em.nest(
        op, [ins[0]], [AffineMap(rank + 1, 0, tuple(read))],
        [out], [AffineMap(rank + 1, 0, tuple(dims))],
        (*shape[: axis + 1], shape[axis], *shape[axis + 1 :]), iterators, [combiner],
        lambda b, args: [scalar.convert(b, args[0], acc)],
        RaggedBound(k, dims[axis]).to_set(rank + 1),
    )  # fmt: skip


def lower_mean(op: t.ReduceMeanOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """Sum in f32 (f64 for f64), then divide by the count like NumPy (a 0-size
    reduction gives 0/0 = NaN)."""
    elt = elt_of(out)
    acc = elt if isinstance(elt, Float64Type) else f32
    if not op.reduced_axes():
        em.copy(op, ins[0], out)
        return
    count = prod(shape_of(ins[0])[a] for a in op.reduced_axes())
    total = out if elt == acc else em.alloc(shape_of(out), acc, op)
    _reduce_nest(op, ins[0], total, Combiner.ADD, acc, em)

    def scale(b: Builder, args: Sequence[SSAValue]) -> list[SSAValue]:
        q = scalar.binary(b, "aicf_tensor.div", args[0], scalar.constant(b, count, acc))
        return [scalar.convert(b, q, elt)]

    # in place when `total` is `out`: identical maps, which the nest allows
    em.parallel_nest(op, [total], [access.identity(len(shape_of(out)))], out, scale)
    if total is not out:
        em.dealloc(total)


def lower_var(op: t.ReduceVarOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """Two passes, as numpy.var: the mean (kept as a keepdims buffer), then the sum of
    squared deviations from it, scaled by 1 / (n - ddof). Accumulates in f32 (f64 for
    f64)."""
    src, elt = ins[0], elt_of(out)
    acc = elt if isinstance(elt, Float64Type) else f32
    shape, axes = shape_of(src), op.reduced_axes()
    count = prod(shape[a] for a in axes)
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    rank = len(shape)
    total = em.alloc(kept, acc, op)
    keep_map = access.reduction_output(rank, axes, True)
    em.nest(
        op, [src], [access.identity(rank)], [total], [keep_map], shape,
        [Iterator.REDUCTION if i in axes else Iterator.PARALLEL for i in range(rank)],
        [Combiner.ADD], lambda b, args: [scalar.convert(b, args[0], acc)],
    )  # fmt: skip
    squares = em.alloc(kept, acc, op)

    def deviation(b: Builder, args: Sequence[SSAValue]) -> list[SSAValue]:
        mean = scalar.binary(b, "aicf_tensor.div", args[1], scalar.constant(b, count, acc))
        dev = scalar.binary(b, "aicf_tensor.sub", scalar.convert(b, args[0], acc), mean)
        return [scalar.binary(b, "aicf_tensor.mul", dev, dev)]

    em.nest(
        op, [src, total], [access.identity(rank), keep_map], [squares], [keep_map], shape,
        [Iterator.REDUCTION if i in axes else Iterator.PARALLEL for i in range(rank)],
        [Combiner.ADD], deviation,
    )  # fmt: skip
    em.dealloc(total)

    def scale(b: Builder, args: Sequence[SSAValue]) -> list[SSAValue]:
        d = scalar.constant(b, max(count - op.ddof_value, 0), acc)  # NumPy's: inf/NaN when n <= ddof
        return [scalar.convert(b, scalar.binary(b, "aicf_tensor.div", args[0], d), elt)]

    out_rank = len(shape_of(out))
    squeeze = access.reshape(kept, shape_of(out)) if not op.keep else access.identity(out_rank)
    em.parallel_nest(op, [squares], [squeeze], out, scale)
    em.dealloc(squares)


# --- matmul ----------------------------------------------------------------------------------


def lower_matmul(op: t.MatmulOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """One nest over [batch..., M, N, K] (M or N absent for a 1-D operand, as NumPy
    drops them), K reducing with `add`."""
    a_shape, b_shape = shape_of(ins[0]), shape_of(ins[1])
    a2 = (1, *a_shape) if len(a_shape) == 1 else a_shape
    b2 = (*b_shape, 1) if len(b_shape) == 1 else b_shape
    batch = rules.broadcast_shapes(a2[:-2], b2[:-2])
    has_m, has_n = len(a_shape) > 1, len(b_shape) > 1
    nb = len(batch)
    domain = [*batch, *([a2[-2]] if has_m else []), *([b2[-1]] if has_n else []), a2[-1]]
    ndims = len(domain)
    d = AffineExpr.dimension
    m = d(nb) if has_m else None
    n = d(nb + int(has_m)) if has_n else None
    k = d(ndims - 1)
    batch_domain = list(batch)

    def operand_map(batch_shape: Sequence[int], rows: list[AffineExpr]) -> AffineMap:
        bmap = access.broadcast(batch_shape, batch_domain)
        return AffineMap(ndims, 0, (*bmap.results, *rows))

    a_map = operand_map(a_shape[:-2], [m, k] if has_m else [k])
    b_map = operand_map(b_shape[:-2], [k, n] if has_n else [k])
    out_map = AffineMap(
        ndims, 0, tuple(d(i) for i in range(nb)) + tuple(e for e in (m, n) if e is not None)
    )
    ct = scalar.compute_type(elt_of(out))

    def body(b: Builder, args: Sequence[SSAValue]) -> list[SSAValue]:
        x, y = (scalar.convert(b, v, ct) for v in args)
        return [scalar.binary(b, "aicf_tensor.mul", x, y)]

    em.nest(
        op, ins, [a_map, b_map], [out], [out_map], domain,
        [Iterator.PARALLEL] * (ndims - 1) + [Iterator.REDUCTION], [Combiner.ADD], body,
    )  # fmt: skip


# --- layout: copies with a non-trivial input map -------------------------------------------


def _copy_with_map(op: Operation, src: SSAValue, m: AffineMap, out: SSAValue, em: Emitter):
    em.parallel_nest(op, [src], [m], out, lambda b, args: [args[0]])


def lower_transpose(op: t.TransposeOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    _copy_with_map(op, ins[0], access.permutation(op.perm_list), out, em)


def lower_broadcast_to(
    op: t.BroadcastToOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter
) -> None:
    _copy_with_map(op, ins[0], access.broadcast(shape_of(ins[0]), shape_of(out)), out, em)


def lower_reshape(op: t.ReshapeOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    _copy_with_map(op, ins[0], access.reshape(shape_of(ins[0]), shape_of(out)), out, em)


def lower_slice(op: t.SliceOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    start, _, step = op.bounds()
    _copy_with_map(op, ins[0], access.strided(start, step), out, em)


def lower_concatenate(
    op: t.ConcatenateOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter
) -> None:
    """One nest per operand over its own shape, writing its part of `out` (the output
    map shifts the axis by the extents before it)."""
    axis, offset = op.normalized_axis(), 0
    for src in ins:
        shape = shape_of(src)
        rank = len(shape)
        if prod(shape):
            em.nest(
                op, [src], [access.identity(rank)], [out], [access.shifted(rank, axis, offset)],
                shape, [Iterator.PARALLEL] * rank, [Combiner.NONE], lambda b, args: [args[0]],
            )  # fmt: skip
        offset += shape[axis]


# Up to this extent an iota reads its values from one table in its element type (one
# load per element); past it, from a table of about sqrt(extent) indices read twice.
IOTA_DIRECT_EXTENT = 1024


class IotaTable:
    """Where the values of an iota of `extent` indices come from: nest bodies do not see
    their indices, so a body reads index e from a constant table, either T[e] (T in the
    element type) or, for a long dim, T[e floordiv B] * B + T[e mod B] (T = 0..B-1 in
    i32, B*B >= extent), computed in i32 (i64 past 2^31) and converted like astype.
    The table stays small (4*B bytes, B about sqrt(extent)), and the body is an
    elementwise one, so it fuses with its consumers."""

    def __init__(self, extent: int, elt: Attribute, em: Emitter, origin: Operation):
        self.elt = elt
        if extent <= IOTA_DIRECT_EXTENT:
            self.split, telt, n = None, elt, extent
        else:
            self.split = 1 << ((extent - 1).bit_length() + 1) // 2
            telt, n = i32, self.split
            self.compute = i32 if extent - 1 < 2**31 else i64
        tables, key = em.iota_tables, (n, telt)
        if key not in tables:
            vtype = TensorType(telt, [n])
            data = np.ascontiguousarray(to_storage(np.arange(n), telt)).tobytes()
            tables[key] = em.global_constant(DenseIntOrFPElementsAttr(vtype, BytesAttr(data)), origin)
        self.buf: SSAValue = tables[key]

    def reads(self, e: AffineExpr) -> list[AffineExpr]:
        """The table indices the body reads for index `e`, in the order `value` takes them."""
        if self.split is None:
            return [e]
        return [e // self.split, e % self.split]

    def value(self, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        if self.split is None:
            return args[0]
        hi, lo = (scalar.convert(b, a, self.compute) for a in args)
        scaled = b.insert(arith.MuliOp(hi, scalar.constant(b, self.split, self.compute))).result
        index = b.insert(arith.AddiOp(scaled, lo)).result
        return scalar.convert(b, index, self.elt)


def lower_iota(op: t.IotaOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """One parallel nest over `out` whose body computes the index along the dim from
    `IotaTable` reads."""
    shape, dim = shape_of(out), op.dim_value
    table = IotaTable(shape[dim], elt_of(out), em, op)
    reads = table.reads(AffineExpr.dimension(dim))
    maps = [AffineMap(len(shape), 0, (r,)) for r in reads]
    em.parallel_nest(op, [table.buf] * len(reads), maps, out, lambda b, args: [table.value(b, args)])


def lower_take(op: t.TakeOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """An `aicf_loop.gather`: where it reads depends on the data, so no nest can say it."""
    from aicf.dialects.loop import GatherOp

    gather = GatherOp(ins[0], ins[1], out, op.normalized_axis())
    gather.location = op.location
    em.builder.insert(gather)


def lower_attention(op: t.AttentionOp, ins: Sequence[SSAValue], out: SSAValue, em: Emitter) -> None:
    """An `aicf_loop.attention`: its softmax over keys of a sum over the head dim is no
    nest (one combiner per output), and no nest may write the scores it never stores."""
    from aicf.dialects.loop import AttentionOp

    names = ("scale", "causal", "q_perm", "k_perm", "v_perm")
    att = AttentionOp(ins, out, {n: op.properties[n] for n in names if n in op.properties})
    att.location = op.location
    em.builder.insert(att)


LOWERINGS: dict[type[Operation], Lowering] = {
    **{cls: lower_elementwise for cls in t.UNARY_OPS},
    **{cls: lower_elementwise for cls in t.BINARY_OPS},
    t.CastOp: lower_elementwise,
    t.SelectOp: lower_elementwise,
    t.IotaOp: lower_iota,
    t.ReduceVarOp: lower_var,
    t.ReduceSumOp: lower_reduce,
    t.ReduceMaxOp: lower_reduce,
    t.ReduceMinOp: lower_reduce,
    t.ReduceProdOp: lower_reduce,
    t.ReduceMeanOp: lower_mean,
    t.CumsumOp: lower_scan,
    t.CumprodOp: lower_scan,
    t.MatmulOp: lower_matmul,
    t.AttentionOp: lower_attention,
    t.TransposeOp: lower_transpose,
    t.BroadcastToOp: lower_broadcast_to,
    t.ReshapeOp: lower_reshape,
    t.SliceOp: lower_slice,
    t.ConcatenateOp: lower_concatenate,
    t.TakeOp: lower_take,
}  # type: ignore[dict-item]
"""Every tensor op but `constant`, which becomes a global instead of a nest."""
