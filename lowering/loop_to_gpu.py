"""`aicf-lower-to-gpu`: each `aicf_loop.nest` becomes `aicf_gpu.kernel`s plus the host
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

from aicf.dialects.loop import NestOp
from aicf.diagnostics import op_error
from aicf.lowering.gpu_schedules import LoweringContext, select
from aicf.lowering.gpu_schedules.view import NestView, collapse, view_of
from aicf.target import DEFAULT_GPU, GpuTarget


def lower_nest(module: ModuleOp, fn: func.FuncOp, nest: NestOp, index: int, target: GpuTarget) -> None:
    lc = LoweringContext(module, nest, target, fn)

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


@dataclass(frozen=True)
class LowerToGpuPass(ModulePass):
    """Lower every aicf_loop.nest of every func.func to GPU kernels and launches."""

    name = "aicf-lower-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = DEFAULT_GPU
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp):
                continue
            nests = [o for o in fn.walk() if isinstance(o, NestOp)]
            for i, nest in enumerate(nests):
                lower_nest(op, fn, nest, i, target)
