"""`aicf-fuse-epilogue`: a matmul and the elementwise nest that consumes its result
become one `aicf_loop.group` over the output's dims, so that a schedule may apply the
elementwise work (bias, activation, residual, scaling, a cast) to the accumulators
before they are stored, never writing the intermediate.

    %t = memref.alloc() : memref<MxNxf16>
    aicf_loop.nest domain = [M, N, K] ... outs(%t) { a * b }         // the matmul
    aicf_loop.nest domain = [M, N] ins(%t, %bias) outs(%y) { gelu(t + bias) }
    memref.dealloc %t
->
    aicf_loop.group shared = [M, N] {
      %t = memref.alloc() ...   (group-local: indexed by the shared dims only)
      aicf_loop.nest domain = [M, N, K] ... outs(%t) { a * b }
      aicf_loop.nest domain = [M, N] ins(%t, %bias) outs(%y) { gelu(t + bias) }
      memref.dealloc %t
    }

The group means what its members mean (run in order); whether it runs as one kernel
is the planner's choice (`gpu.wgmma_epilogue` against `gpu.members`, by cost).

Fused when:
- the matmul (matmul_space.match_matmul) writes its one output, an allocation of
  this block, at the identity of its leading (parallel) dims;
- the next nest after it (allocations and deallocations in between are allowed:
  the latter move after the group) is all-parallel over
  exactly those dims and reads the allocation at the identity;
- nothing else uses the allocation but its deallocation, and neither nest is already
  in a group or scheduled.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from aicf.dialects.loop import GroupOp, Iterator, NestOp
from aicf.dialects.schedule import schedule_of
from aicf.lowering.gpu_schedules.matmul_space import nest_problem


def _is_matmul(nest: NestOp) -> bool:
    return nest_problem(nest) is not None


def _next_nest(op: Operation) -> NestOp | None:
    # the lowering frees a buffer right after its last reader, so the matmul is often
    # followed by the deallocation of its own inputs before the epilogue starts
    nxt = op.next_op
    while isinstance(nxt, memref.AllocOp | memref.DeallocOp):
        nxt = nxt.next_op
    return nxt if isinstance(nxt, NestOp) else None


def epilogue_of(mm: NestOp) -> tuple[NestOp, memref.AllocOp, memref.DeallocOp] | None:
    """The elementwise nest that consumes matmul `mm`'s result, with the result's
    allocation and deallocation; None when the rules above do not hold."""
    if not _is_matmul(mm) or isinstance(mm.parent_op(), GroupOp) or schedule_of(mm) is not None:
        return None
    (out,) = mm.outputs
    alloc = out.owner
    if not isinstance(alloc, memref.AllocOp) or alloc.parent_block() is not mm.parent_block():
        return None
    npar = sum(1 for i in mm.iterators if i == Iterator.PARALLEL)
    if mm.iterators[:npar] != (Iterator.PARALLEL,) * npar or mm.output_maps[0] != AffineMap(
        len(mm.extents), 0, AffineMap.identity(npar).results
    ):
        return None
    ep = _next_nest(mm)
    if ep is None or schedule_of(ep) is not None:
        return None
    if ep.extents != mm.extents[:npar] or any(i != Iterator.PARALLEL for i in ep.iterators):
        return None
    reads = [m for v, m in zip(ep.inputs, ep.input_maps) if v is out]
    if not reads or any(m != AffineMap.identity(npar) for m in reads) or out in ep.outputs:
        return None
    dealloc = None
    for use in out.uses:
        user = use.operation
        if user is mm or user is ep:
            continue
        if isinstance(user, memref.DeallocOp) and dealloc is None:
            dealloc = user
            continue
        return None
    if dealloc is None or dealloc.parent_block() is not mm.parent_block():
        return None
    return ep, alloc, dealloc


def fuse(mm: NestOp) -> GroupOp | None:
    found = epilogue_of(mm)
    if found is None:
        return None
    ep, alloc, dealloc = found
    npar = len(ep.extents)
    block = mm.parent_block()
    assert block is not None
    # allocations between the two nests (the epilogue's outputs) move before the group,
    # deallocations (of the matmul's inputs) after it
    between = []
    op = mm.next_op
    while op is not ep:
        between.append(op)
        op = op.next_op
    group = GroupOp(mm.extents[:npar], Region(Block()))
    block.insert_op_before(group, mm)
    after = ep.next_op
    for op in between:
        op.detach()
        if isinstance(op, memref.DeallocOp) and after is not None:
            block.insert_op_before(op, after)
        elif isinstance(op, memref.DeallocOp):
            block.add_op(op)
        else:
            block.insert_op_before(op, group)
    for op in (alloc, mm, ep, dealloc):
        op.detach()
        group.body.block.add_op(op)
    return group


@dataclass(frozen=True)
class FuseEpiloguePass(ModulePass):
    """Group each matmul with the elementwise nest consuming its result."""

    name = "aicf-fuse-epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp):
                continue
            for nest in [o for o in fn.walk() if isinstance(o, NestOp)]:
                fuse(nest)
