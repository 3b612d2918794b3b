"""`aicf-fold-view-copies`: a slice, transpose, reshape or broadcast of an intermediate
is read in place by its consumers instead of being copied.

The tensor-to-loop lowering turns a view op into a copy nest (all parallel, the body
yields its one input, written at the identity) whose input map is the view (for a
slice d -> start + step * d). When the copy's destination is an allocation that only
later nests read, each reader's map M is replaced by view o M on the copy's source
and the copy, its allocation and its deallocation disappear: one fewer kernel and no
round trip through memory. Access maps stay affine, so every target handles them.

What is left alone (the copy stays):
- a copy whose destination is a function output (the caller sees the buffer);
- a copy read by a contraction (a matmul: its schedules want the operand layouts
  they price, and cuBLAS takes only plain or transposed ones), unless the copy is a
  permutation that leaves the operand a plain or transposed matrix (`x @ W^T`), or
  by a nest inside an `aicf_loop.group` unless the view it would read through is a
  broadcast (row groups read broadcast operands, nothing else);
- a copy whose source is written again before its last reader.

    aicf-opt prog.mlir -p aicf-lower-to-loops,aicf-fold-view-copies
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from aicf.dialects.loop import Combiner, GroupOp, Iterator, NestOp


def _view_map(nest: NestOp) -> AffineMap | None:
    """The input map of a copy nest, or None if `nest` is not a plain copy."""
    if len(nest.inputs) != 1 or len(nest.outputs) != 1:
        return None
    if any(i != Iterator.PARALLEL for i in nest.iterators) or nest.combiner_kinds != (
        Combiner.NONE,
    ):
        return None
    (body_arg,) = nest.body.block.args
    if tuple(nest.yield_op.operands) != (body_arg,):
        return None
    src, dst = nest.inputs[0], nest.outputs[0]
    if src.type.get_element_type() != dst.type.get_element_type():  # type: ignore[attr-defined]
        return None
    out_map = nest.output_maps[0]
    if out_map != AffineMap.identity(len(nest.extents)) or nest.extents != tuple(
        dst.type.get_shape()  # type: ignore[attr-defined]
    ):
        return None
    return nest.input_maps[0]


def _is_transpose_into_matrix(nest: NestOp, index: int, view: AffineMap) -> bool:
    """A contraction reads a permuted operand in place when the permutation keeps the
    operand a matrix whose innermost stride runs along one of its two matrix dims
    (the last two of the reader's map): `x @ W^T` reads W as a transposed operand,
    which cuBLAS and the tensor-core schedules take without a copy."""
    if sorted(e.position if isinstance(e, AffineDimExpr) else -1 for e in view.results) != list(range(view.num_dims)):
        return False  # not a permutation
    m = nest.input_maps[index]
    if len(m.results) < 2 or not all(isinstance(e, AffineDimExpr) for e in m.results[-2:]):
        return False
    last = view.compose(m).results[-1]
    return isinstance(last, AffineDimExpr) and last in m.results[-2:]


def _can_read_views(nest: NestOp) -> bool:
    """Not a contraction (a matmul): a reduction of several inputs none of which is read
    at every point of the domain."""
    if not nest.is_reduction or len(nest.inputs) < 2:
        return True
    rank = len(nest.extents)
    return any(
        {e.position for e in m.results if isinstance(e, AffineDimExpr)} == set(range(rank))
        for m in nest.input_maps
    )


def _top_level(op: Operation, block: Block) -> Operation:
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _is_projection(m: AffineMap) -> bool:
    return all(isinstance(e, AffineDimExpr | AffineConstantExpr) for e in m.results)


def _reads_in_place(reader: NestOp, index: int, view: AffineMap, block: Block) -> bool:
    """A top-level reader takes any view; a nest of an `aicf_loop.group` only one that
    stays a plain projection (a broadcast: dims and constants), which row groups read
    like any broadcast operand."""
    if reader.parent_block() is block:
        return True
    group = reader.parent_op()
    return (
        isinstance(group, GroupOp)
        and group.parent_block() is block
        and _is_projection(view.compose(reader.input_maps[index]))
    )


@dataclass
class _Copy:
    nest: NestOp
    view: AffineMap
    readers: list[NestOp]
    dealloc: Operation | None
    source_deallocs: list[Operation]
    last_reader: Operation


def _foldable(nest: NestOp, block: Block) -> _Copy | None:
    view = _view_map(nest)
    if view is None:
        return None
    src, dst = nest.inputs[0], nest.outputs[0]
    if not isinstance(dst.owner, memref.AllocOp) or src == dst:
        return None
    readers: list[NestOp] = []
    dealloc = None
    for use in dst.uses:
        user = use.operation
        if user is nest:
            continue
        if isinstance(user, memref.DeallocOp) and user.parent_block() is block:
            dealloc = user
        elif (
            isinstance(user, NestOp)
            and use.index < len(user.inputs)
            and (_can_read_views(user) or _is_transpose_into_matrix(user, use.index, view))
            and _reads_in_place(user, use.index, view, block)
        ):
            readers.append(user)
        else:
            return None
    if not readers:
        return None
    # the source must keep its value from the copy to the last reader; its dealloc,
    # placed after its last use (the copy), moves after the last reader
    ops = list(block.ops)
    first = ops.index(nest)
    last = max(ops.index(_top_level(r, block)) for r in readers)
    moved = []
    for op in ops[first + 1 : last]:
        if isinstance(op, memref.DeallocOp) and op.memref == src:
            moved.append(op)
        elif isinstance(op, NestOp) and src in op.outputs:
            return None
        elif not isinstance(op, NestOp) and any(src in o.operands for o in op.walk()):
            return None
    return _Copy(nest, view, readers, dealloc, moved, ops[last])


def _fold(copy: _Copy) -> None:
    src, dst = copy.nest.inputs[0], copy.nest.outputs[0]
    for reader in copy.readers:
        maps = list(reader.maps)
        for k, v in enumerate(reader.inputs):
            if v == dst:
                maps[k] = copy.view.compose(maps[k])
                reader.operands[k] = src
        reader.indexing_maps = ArrayAttr([AffineMapAttr(m) for m in maps])
    block = copy.nest.parent_block()
    assert block is not None
    for d in copy.source_deallocs:
        d.detach()
        block.insert_op_after(d, copy.last_reader)
    copy.nest.detach()
    copy.nest.erase()
    if copy.dealloc is not None:
        copy.dealloc.detach()
        copy.dealloc.erase()
    alloc = dst.owner
    assert isinstance(alloc, Operation)
    alloc.detach()
    alloc.erase()


def fold_view_copies(block: Block) -> int:
    """Fold every foldable copy nest of `block`; returns how many were folded."""
    folded = 0
    changed = True
    while changed:  # a view of a view: the outer copy becomes foldable after the inner
        changed = False
        for op in list(block.ops):
            if isinstance(op, NestOp) and (copy := _foldable(op, block)) is not None:
                _fold(copy)
                folded += 1
                changed = True
    return folded


class FoldViewCopiesPass(ModulePass):
    """See the module docstring."""

    name = "aicf-fold-view-copies"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.walk():
            if isinstance(f, func.FuncOp) and f.body.blocks:
                fold_view_copies(f.body.block)
