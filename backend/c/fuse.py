"""Producer-consumer fusion of loop nests, done by the cpu target before emitting C.

`aicf-lower-to-loops` gives one nest per tensor op, each writing a fresh buffer; on a
CPU the passes over memory cost more than the arithmetic (sum(sin(1.7x+0.3)) would
stream 64 MiB temporaries three times). This folds an elementwise nest into the one
nest that reads its result, when that is free of recomputation:

- the producer has no reduction dims, one output, written through the identity map
  into a buffer from `memref.alloc` in the same block;
- the buffer's only other users are one later nest (as one input) and its dealloc;
- the consumer reads it through a permutation of all of its domain dims (so each
  element is read exactly once: no recomputation for broadcasts or matmul operands);
- nothing between the two writes the producer's inputs.

The consumer then reads the producer's inputs through the composed maps and runs the
producer's body first. Semantics (including f16/bf16 rounding at the old buffer) are
unchanged; the buffer and its alloc/dealloc disappear.

Example: `%t = nest(x) {mulf}; %u = nest(%t) {sin}` becomes `%u = nest(x) {mulf; sin}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from aicf.dialects.loop import NestOp


def _is_permutation(m: AffineMap) -> bool:
    dims = [r.position for r in m.results if isinstance(r, AffineDimExpr)]
    return len(dims) == len(m.results) == m.num_dims and sorted(dims) == list(range(m.num_dims))


def _writes(op: Operation) -> set[SSAValue]:
    if isinstance(op, NestOp):
        return set(op.outputs)
    if op.name == "memref.copy":
        return {op.operands[1]}
    if op.name in ("memref.store",):
        return {op.operands[1]}
    return set()


def _try_fuse(producer: NestOp) -> bool:
    if producer.is_reduction or len(producer.outputs) != 1:
        return False
    buf = producer.outputs[0]
    alloc = buf.owner
    if not isinstance(alloc, Operation) or alloc.name != "memref.alloc":
        return False
    if alloc.parent_block() is not producer.parent_block():
        return False
    if producer.output_maps[0] != AffineMap.identity(len(producer.extents)):
        return False
    if buf in producer.inputs:
        return False
    consumer: NestOp | None = None
    dealloc: Operation | None = None
    for use in buf.uses:
        user = use.operation
        if user is producer or user is alloc:
            continue
        if user.name == "memref.dealloc":
            dealloc = user
        elif isinstance(user, NestOp) and consumer in (None, user):
            if consumer is user:
                return False  # read twice
            consumer = user
        else:
            return False
    if consumer is None or consumer.parent_block() is not producer.parent_block():
        return False
    if buf in consumer.outputs:
        return False
    k = list(consumer.inputs).index(buf)
    cmap = consumer.input_maps[k]
    if not _is_permutation(cmap):
        return False
    # nothing in between may write what the producer reads, or free it
    between: list[Operation] = []
    op = producer.next_op
    while op is not None and op is not consumer:
        between.append(op)
        op = op.next_op
    if op is None:
        return False
    pins = set(producer.inputs)
    moved_deallocs = []
    for b in between:
        if _writes(b) & pins:
            return False
        if b.name == "memref.dealloc" and b.operands[0] in pins:
            moved_deallocs.append(b)
        if b is dealloc:
            return False  # freed before it is read: leave such IR alone
    fused = _rewrite(producer, consumer, k, cmap)
    for d in reversed(moved_deallocs):
        d.detach()
        fused.parent_block().insert_op_after(d, fused)  # type: ignore[union-attr]
    if dealloc is not None:
        dealloc.detach()
        dealloc.erase()
    alloc.detach()
    alloc.erase()
    return True


def _rewrite(producer: NestOp, consumer: NestOp, k: int, cmap: AffineMap) -> NestOp:
    c_inputs = list(consumer.inputs)
    c_maps = list(consumer.input_maps)
    p_maps = [m.compose(cmap) for m in producer.input_maps]
    new_inputs = c_inputs[:k] + list(producer.inputs) + c_inputs[k + 1 :]
    new_maps = c_maps[:k] + p_maps + c_maps[k + 1 :] + list(consumer.output_maps)
    old_block = consumer.body.block
    p_block = producer.body.block
    arg_types = [a.type for a in new_inputs]
    elt_types = [t.get_element_type() for t in arg_types]  # type: ignore[attr-defined]
    block = Block(arg_types=elt_types)
    np_ = len(producer.inputs)
    # producer's body first: its args are the new block args k .. k+np_-1
    for old, new in zip(p_block.args, block.args[k : k + np_]):
        old.replace_all_uses_with(new)
    p_yield = producer.yield_op
    produced = p_yield.values[0]
    for op in list(p_block.ops):
        if op is p_yield:
            continue
        op.detach()
        block.add_op(op)
    # the consumer's args: before k keep their index, after k shift by np_ - 1
    c_args = list(old_block.args)
    for i, old in enumerate(c_args):
        if i < k:
            old.replace_all_uses_with(block.args[i])
        elif i == k:
            old.replace_all_uses_with(produced)
        else:
            old.replace_all_uses_with(block.args[i + np_ - 1])
    for op in list(old_block.ops):
        op.detach()
        block.add_op(op)
    fused = NestOp(
        new_inputs,
        list(consumer.outputs),
        consumer.extents,
        consumer.iterators,
        new_maps,
        consumer.combiner_kinds,
        Region(block),
    )
    fused.attributes.update(consumer.attributes)
    fused.location = consumer.location
    parent = consumer.parent_block()
    assert parent is not None
    parent.insert_op_before(fused, consumer)
    consumer.detach()
    consumer.erase(safe_erase=False)
    p_yield.detach()
    p_yield.erase(safe_erase=False)
    producer.detach()
    producer.erase(safe_erase=False)
    return fused


def fuse_elementwise(module: ModuleOp) -> int:
    """Fuse in place until nothing changes; the number of nests folded away."""
    count = 0
    changed = True
    while changed:
        changed = False
        for op in list(module.walk()):
            if isinstance(op, NestOp) and op.parent is not None and _try_fuse(op):
                count += 1
                changed = True
                break
    return count


@dataclass(frozen=True)
class FuseElementwiseNestsPass(ModulePass):
    """Fold elementwise producer nests into their single consumer (see module doc)."""

    name = "aicf-c-fuse-nests"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse_elementwise(op)
