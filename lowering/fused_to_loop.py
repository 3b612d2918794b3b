"""Lower one `aicf_tensor.fused` group to loop nests (called by `aicf-lower-to-loops`).

The group's domain, the index map of every value and the nest plan come from
`aicf.passes.tensor.fusion_domain` (the same description `aicf-fuse` decided with):
- an elementwise chain, or a reduction with its elementwise prologue whose result is
  stored as it is: ONE `aicf_loop.nest`, its body the member ops' scalar bodies
  composed in program order, each group input read through its broadcast map;
- otherwise an `aicf_loop.group` sharing the kept (non-reduced) dims: one nest per
  level of reductions (prologues inlined; the reductions go to group-local
  `memref.alloc` buffers, or straight to the group's output when it is a sum/max
  result), then one nest over the kept dims for the reduced-domain outputs (a mean's
  scaling, an epilogue like `sum * 0.5`), then one nest over the whole domain for the
  full-domain outputs, which reads the per-row reductions broadcast back. Softmax over
  the last axis is one group of three nests sharing the row dim.

Every nest orders its domain kept dims first, so the shared dims lead. Elementwise
values are recomputed in each nest that needs them (a reduction's buffer is the only
thing passed between nests), per op with the same dtype steps as the unfused lowering
(compute f16/bf16 in f32, round to the op's element type after every op), so fused
and unfused programs give the same numbers.

    %y = aicf_tensor.fused ins(%x : tensor<4x8xf32>) -> tensor<4xf32> {
    ^bb0(%a : tensor<4x8xf32>):
      %0 = aicf_tensor.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
      aicf_tensor.yield %1 : tensor<4xf32>
    }

becomes

    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
    ^bb0(%a : f32):
      %e = math.exp %a : f32
      aicf_loop.yield %e : f32
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import Float64Type, f32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from aicf.diagnostics import op_error
from aicf.dialects import tensor as t
from aicf.dialects.loop import Combiner, GroupOp, Iterator, NestOp, YieldOp
from aicf.lowering.tensor_to_loop import scalar
from aicf.lowering.tensor_to_loop.emitter import Emitter, elt_of, identity_memref
from aicf.lowering.tensor_to_loop.ops import COMBINER_OF, IotaTable
from aicf.passes.tensor.fusion_domain import (
    GroupDomain,
    Nest,
    NotFusible,
    analyze,
    broadcast_map,
    normalize,
    static_shape,
)


def _mean_acc(elt: Attribute) -> Attribute:
    return elt if isinstance(elt, Float64Type) else f32


class _Lowering:
    def __init__(self, op: t.FusedOp, dom: GroupDomain, ins: Sequence[SSAValue], em: Emitter):
        self.op = op
        self.em = em
        self.dom = dom
        self.block_args: dict[SSAValue, SSAValue] = dict(zip(op.body.block.args, ins))
        self.red_bufs: dict[Operation, SSAValue] = {}

    def to_nest(self, m: AffineMap, rank: int) -> AffineMap:
        """A map over D in natural order as a map over a nest's dims (kept dims first;
        a nest of rank k has only the kept dims)."""
        order = self.dom.order
        assert all(order.index(i) < rank for i in m.used_dims()), (m, rank)
        dims = [
            AffineExpr.dimension(order.index(i)) if order.index(i) < rank else AffineExpr.constant(0)
            for i in range(len(self.dom.shape))
        ]
        return m.replace_dims_and_symbols(dims, [], rank, 0)

    def build_nest(
        self,
        nest: Nest,
        roots: Sequence[tuple[SSAValue, AffineMap]],
        outs: Sequence[SSAValue],
        out_maps: Sequence[AffineMap],
    ) -> NestOp:
        dom = self.dom
        k = len(dom.kept)
        rank = k if nest.kind == "kept" else len(dom.shape)
        domain = [dom.shape[i] for i in dom.order[:rank]]
        iterators = [Iterator.PARALLEL] * rank
        combiners = [Combiner.NONE] * len(outs)
        if nest.kind == "reduce":
            iterators[k:] = [Iterator.REDUCTION] * (rank - k)
            combiners = [COMBINER_OF[type(v.owner)] for v in nest.roots]  # type: ignore[index]
        body = _Body(self, rank)
        yielded = [body.value(v, m) for v, m in roots]
        if nest.kind == "reduce":
            yielded = [
                scalar.convert(body.b, y, self.acc_type(v.owner))  # type: ignore[arg-type]
                for y, v in zip(yielded, nest.roots)
            ]
        body.b.insert(YieldOp(*yielded))
        op = NestOp(
            body.ins,
            outs,
            domain,
            iterators,
            [*body.in_maps, *(self.to_nest(m, rank) for m in out_maps)],
            combiners,
            Region(body.block),
        )
        op.location = self.op.location
        return op

    def acc_type(self, r: t.ReduceOp) -> Attribute:
        elt = t.element_type(r.result.type)
        if isinstance(r, t.ReduceMeanOp):
            return _mean_acc(elt)
        return scalar.compute_type(elt)

    def lower(self, outs: Sequence[SSAValue], builder: Builder) -> None:
        dom = self.dom
        yielded = list(self.op.body.block.last_op.operands)  # type: ignore[union-attr]
        ops: list[Operation] = []  # allocs, nests, then deallocs
        local: list[SSAValue] = []
        # reductions: into their output when it is the stored sum/max itself
        written: set[int] = set()
        for r in dom.levels:
            res = r.results[0]
            k = next(
                (i for i, v in enumerate(yielded) if v is res and dom.written_by_reduction(v)),
                None,
            )
            if k is not None and k not in written:
                written.add(k)
                self.red_bufs[r] = outs[k]
                continue
            shape = static_shape(res)
            assert shape is not None
            elt = t.element_type(res.type)
            if isinstance(r, t.ReduceMeanOp):
                elt = _mean_acc(elt)
            alloc = memref.AllocOp([], [], identity_memref(elt, tuple(shape)))
            alloc.location = self.op.location
            ops.append(alloc)
            local.append(alloc.memref)
            self.red_bufs[r] = alloc.memref
        for nest in dom.plan():
            if nest.kind == "reduce":
                roots = [(v.owner.operands[0], dom.identity()) for v in nest.roots]  # type: ignore[union-attr]
                bufs = [self.red_bufs[v.owner] for v in nest.roots]  # type: ignore[index]
                maps = [dom.maps[v] for v in nest.roots]
            else:
                pending = [
                    (i, v) for i, v in enumerate(yielded)
                    if i not in written and _kind(dom, v) == nest.kind
                ]  # fmt: skip
                roots = [(v, dom.maps.get(v) or dom.identity()) for _, v in pending]
                bufs = [outs[i] for i, _ in pending]
                maps = [m for _, m in roots]
            ops.append(self.build_nest(nest, roots, bufs, maps))  # type: ignore[arg-type]
        for buf in local:
            ops.append(memref.DeallocOp.get(buf))
        if len(ops) == 1:
            builder.insert(ops[0])
            return
        group = GroupOp(dom.shared, Region(Block(ops)))
        group.location = self.op.location
        builder.insert(group)


def _kind(dom: GroupDomain, v: SSAValue) -> str:
    return "kept" if v in dom.kept_outputs else "full"


class _Body:
    """The scalar body of one nest under construction: a read of a group input or a
    reduction's buffer at some index becomes a nest input (one per distinct read)."""

    def __init__(self, low: _Lowering, rank: int):
        self.low = low
        self.rank = rank
        self.block = Block()
        self.b = Builder(InsertPoint.at_end(self.block))
        self.ins: list[SSAValue] = []
        self.in_maps: list[AffineMap] = []
        self.args: dict[tuple[SSAValue, AffineMap], SSAValue] = {}
        self.cache: dict[tuple[SSAValue, AffineMap], SSAValue] = {}

    def read(self, buf: SSAValue, m: AffineMap) -> SSAValue:
        nm = self.low.to_nest(m, self.rank)
        key = (buf, nm)
        if key not in self.args:
            self.args[key] = self.block.insert_arg(elt_of(buf), len(self.block.args))
            self.ins.append(buf)
            self.in_maps.append(nm)
        return self.args[key]

    def value(self, v: SSAValue, m: AffineMap) -> SSAValue:
        """Group value `v` at index `m` (a map from the domain, natural order)."""
        key = (v, m)
        if key in self.cache:
            return self.cache[key]
        low, shape = self.low, self.low.dom.shape
        op = v.owner
        if v in low.block_args:
            r = self.read(low.block_args[v], m)
        elif isinstance(op, t.ConstantOp):
            # a splat: its first element, not all of it; a zero-size one has none, and the
            # nest that reads it runs no iteration (next() raised a bare StopIteration)
            value = next(op.value.iter_values(), 0)
            r = scalar.constant(self.b, value, t.element_type(v.type))
        elif isinstance(op, t.IotaOp):
            vshape = static_shape(v)
            assert vshape is not None
            table = IotaTable(vshape[op.dim_value], t.element_type(v.type), low.em, low.op)
            along = m.results[op.dim_value]
            reads = [self.read(table.buf, AffineMap(len(shape), 0, (e,))) for e in table.reads(along)]
            r = table.value(self.b, reads)
        elif isinstance(op, t.ReduceOp):
            r = self.read(low.red_bufs[op], m)
            if isinstance(op, t.ReduceMeanOp):
                in_shape = static_shape(op.input)
                assert in_shape is not None
                count = prod(in_shape[a] for a in op.reduced_axes())
                acc = elt_of(low.red_bufs[op])
                q = scalar.binary(self.b, "aicf_tensor.div", r, scalar.constant(self.b, count, acc))
                r = scalar.convert(self.b, q, t.element_type(v.type))
        else:
            assert isinstance(op, Operation)
            vshape = static_shape(v)
            assert vshape is not None
            args = []
            for o in op.operands:
                oshape = static_shape(o)
                assert oshape is not None
                om = normalize(broadcast_map(oshape, vshape).compose(m), shape)
                args.append(self.value(o, om))
            r = scalar.elementwise(self.b, op, args)
        self.cache[key] = r
        return r


def lower_fused(
    op: t.FusedOp, ins: Sequence[SSAValue], outs: Sequence[SSAValue], em: Emitter
) -> None:
    """Write the group's results into `outs` (one buffer per result), reading its
    inputs from `ins` (one per input), at the emitter's insertion point."""
    block = op.body.block
    members = [o for o in block.ops if o is not block.last_op]
    try:
        dom = analyze(members, list(block.last_op.operands))  # type: ignore[union-attr]
    except NotFusible as e:
        raise op_error(op, f"cannot be lowered as one group: {e}") from None
    _Lowering(op, dom, ins, em).lower(outs, em.builder)
