"""`aicf-lower-to-gpu`: each `aicf_loop.group` becomes one kernel where the row-group
schedule takes it (else its member nests are lowered one by one), and each
`aicf_loop.nest` becomes `aicf_gpu.kernel`s plus the host
ops that run them (`aicf_gpu.launch`, workspace `memref.alloc`/`dealloc`), in place
of the nest. Which kernels is up to the schedule registry
(lowering/gpu_schedules): a guard per schedule, parameters from the cost model
over the target description (aicf/target.py).

Before:
    func.func @f(%x: memref<1024xf32>, %y: memref<1024xf32>) {
      aicf_loop.nest domain = [1024] iterators = [parallel] ins(%x ...) outs(%y ...) ...
    }
After:
    aicf_gpu.kernel @f_nest0(%x: memref<1024xf32>, %y: memref<1024xf32>) grid = ... { ... }
    func.func @f(%x: memref<1024xf32>, %y: memref<1024xf32>) {
      aicf_gpu.launch @f_nest0(%x, %y) grid = [...] block = [...] smem = 0 : ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from aicf.dialects.loop import GroupOp, NestOp
from aicf.diagnostics import op_error
from aicf.lowering.gpu_schedules import LoweringContext, select
from aicf.lowering.gpu_schedules.library import build_library_call
from aicf.lowering.gpu_schedules.view import NestView, collapse, view_of
from aicf.target import DEFAULT_GPU, GpuTarget


def lower_nest(module: ModuleOp, fn: func.FuncOp, nest: NestOp, index: int, target: GpuTarget) -> None:
    lc = LoweringContext(module, nest, target, fn)
    if build_library_call(nest, lc):  # the schedule names cuBLAS/CUB: one host call
        nest.detach()
        nest.erase()
        return

    def lower_view(view: NestView) -> None:
        sched, plan = select(view, target)
        sched.build(view, plan, lc)

    lc.lower_view = lower_view  # type: ignore[attr-defined]
    view = collapse(view_of(nest, f"{fn.sym_name.data}_nest{index}"))
    try:
        lower_view(view)
    except NotImplementedError as e:
        raise op_error(nest, f"cannot be lowered to the GPU: {e}") from None
    lc.finish()
    nest.detach()
    nest.erase()


def lower_group(module: ModuleOp, fn: func.FuncOp, group: GroupOp, index: int, target: GpuTarget) -> None:
    """A row group becomes ONE kernel (lowering/gpu_schedules/row_group.py); a group
    that schedule does not take runs as its member nests (the group's semantics):
    its ops move out in order and the nests are lowered one by one."""
    from aicf.lowering.gpu_schedules.row_group import lower_group as lower_row_group

    lc = LoweringContext(module, group, target, fn)
    name = f"{fn.sym_name.data}_group{index}"
    try:
        why = lower_row_group(lc, group, name, target)
    except NotImplementedError as e:
        raise op_error(group, f"cannot be lowered to the GPU: {e}") from None
    if why is None:
        lc.finish()
    else:
        block = group.parent_block()
        assert block is not None
        for op in list(group.body.block.ops):
            op.detach()
            block.insert_op_before(op, group)
    group.detach()
    group.erase()


@dataclass(frozen=True)
class LowerToGpuPass(ModulePass):
    """Lower every aicf_loop.nest of every func.func to GPU kernels and launches."""

    name = "aicf-lower-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = DEFAULT_GPU
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp):
                continue
            groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
            for i, group in enumerate(groups):
                lower_group(op, fn, group, i, target)
            nests = [o for o in fn.walk() if isinstance(o, NestOp)]
            for i, nest in enumerate(nests):
                lower_nest(op, fn, nest, i, target)
