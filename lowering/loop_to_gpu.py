"""`aicf-lower-to-gpu`: each `aicf_loop.group` and `aicf_loop.nest` becomes
`aicf_gpu.kernel`s plus the host ops that run them (`aicf_gpu.launch`, workspace
`memref.alloc`/`dealloc`), in place of the nest, exactly as its `aicf.schedule`
attribute says (dialects/schedule.py; written by `aicf-schedule`, or by hand). This
pass decides nothing: a nest or group without a schedule is an error.

Before:
    func.func @f(%x: memref<1024xf32>, %y: memref<1024xf32>) {
      aicf_loop.nest domain = [1024] ... attrs = {aicf.schedule = {kind = "gpu.per_output", ...}}
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
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from aicf.dialects.loop import AttentionOp, GroupOp, NestOp
from aicf.dialects.schedule import Schedule, schedule_of
from aicf.diagnostics import op_error
from aicf.lowering.gather_to_gpu import lower_gathers
from aicf.lowering.gpu_schedules import LoweringContext, build_view, guard_refusal
from aicf.lowering.gpu_schedules.library import build_library_call
from aicf.lowering.gpu_schedules.view import NestView, collapse, view_of
from aicf.lowering.replay import LoweringReplay
from aicf.passes.loop.split_reductions import split_reductions
from aicf.target import GpuTarget, resolve_gpu_target


def _schedule(op: Operation) -> Schedule:
    s = schedule_of(op)
    if s is None:
        raise op_error(op, "has no aicf.schedule: run aicf-plan before aicf-lower-to-gpu")
    if not s.kind.startswith("gpu."):
        raise op_error(op, f"has a {s.kind} schedule, which is not for the GPU")
    return s


def nest_view(fn: func.FuncOp, nest: NestOp, index: int) -> NestView:
    """What the GPU schedules see of a nest (the planner plans on the same view)."""
    return collapse(view_of(nest, f"{fn.sym_name.data}_nest{index}"))


def lower_nest(module: ModuleOp, fn: func.FuncOp, nest: NestOp, index: int, target: GpuTarget) -> None:
    s = _schedule(nest)
    if nest.guard is not None and (why := guard_refusal(s.kind)):  # library kinds never reach build_view
        raise op_error(nest, f"cannot be lowered to the GPU: {why}")
    lc = LoweringContext(module, nest, target, fn)
    if build_library_call(nest, lc):  # the schedule names cuBLAS/CUB: one host call
        lc.finish()  # its scratch, if any, freed after it
        nest.detach()
        nest.erase()
        return
    lc.lower_view = lambda view, sched: build_view(view, sched, lc)  # type: ignore[attr-defined]
    try:
        build_view(nest_view(fn, nest, index), s, lc)
    except NotImplementedError as e:
        raise op_error(nest, f"cannot be lowered to the GPU: {e}") from None
    lc.finish()
    nest.detach()
    nest.erase()


def lower_attention(att: AttentionOp, target: GpuTarget) -> None:
    """`gpu.flash_attention`: one `aicf_gpu.library_call "aicf.flash_attention"` over
    Q, K, V and O, its parameters the schedule's tiles and the operands' layouts."""
    from aicf.lowering.gpu_schedules.flash_attention import KIND, call_params
    from aicf.lowering.gpu_schedules.library import replace_with_call

    s = _schedule(att)
    if s.kind != KIND:
        raise op_error(att, f"schedule kind {s.kind} does not apply to an attention")
    params = call_params(att, int(s.params["block_m"]), int(s.params["block_n"]), target,
                         str(s.params.get("mma", "mma_sync")))
    if isinstance(params, str):
        raise op_error(att, f"cannot run as the flash kernel: {params}")
    params["est_ns"] = int(s.params.get("est_ns", 0))
    replace_with_call(att, "aicf.flash_attention", [att.q, att.k, att.v], [att.output], params, "the flash kernel")


def lower_group(module: ModuleOp, fn: func.FuncOp, group: GroupOp, index: int, target: GpuTarget) -> None:
    """A `gpu.row_group` group becomes ONE kernel (lowering/gpu_schedules/row_group.py),
    as does a `gpu.wgmma_epilogue` or `gpu.mma_sync_epilogue` group (the matmul with
    its elementwise consumers applied before the stores); a `gpu.members` group runs
    as its member nests (the group's semantics): its ops move out in order and the
    nests are lowered with their own schedules."""
    from aicf.lowering.gpu_schedules import row_group

    s = _schedule(group)
    guarded = next((n for n in group.walk() if isinstance(n, NestOp) and n.guard is not None), None)
    if guarded is not None and s.kind != "gpu.members":
        raise op_error(guarded, f"cannot be lowered to the GPU: a {s.kind} group cannot run a guarded nest")
    if s.kind == "gpu.row_group":
        gv = row_group.analyze(group, f"{fn.sym_name.data}_group{index}")
        if isinstance(gv, str):
            raise op_error(group, f"the gpu.row_group schedule cannot run this group: {gv}")
        lc = LoweringContext(module, group, target, fn)
        try:
            row_group.build(gv, s, lc)
        except NotImplementedError as e:
            raise op_error(group, f"cannot be lowered to the GPU: {e}") from None
        lc.finish()
    elif s.kind in ("gpu.wgmma_epilogue", "gpu.mma_sync_epilogue"):
        from aicf.lowering.gpu_schedules import mma_sync, wgmma

        schedule = wgmma if s.kind == "gpu.wgmma_epilogue" else mma_sync
        lc = LoweringContext(module, group, target, fn)
        try:
            schedule.build_group(group, f"{fn.sym_name.data}_group{index}", s, lc)
        except NotImplementedError as e:
            raise op_error(group, f"cannot be lowered to the GPU: {e}") from None
        lc.finish()
    elif s.kind == "gpu.members":
        block = group.parent_block()
        assert block is not None
        for op in list(group.body.block.ops):
            op.detach()
            block.insert_op_before(op, group)
    else:
        raise op_error(group, f"schedule kind {s.kind} does not apply to a group")
    group.detach()
    group.erase()


@dataclass(frozen=True)
class LowerToGpuPass(ModulePass):
    """Lower every scheduled aicf_loop.group and nest to GPU kernels and launches.
    `target` names the description the builders read (warp size, limits): a name
    as for aicf-schedule (h100, a100, sm_90, ...), default: the GPU CuPy finds, else
    sm_90."""

    name = "aicf-lower-to-gpu"

    target: str = "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = resolve_gpu_target(self.target)
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp):
                continue
            replay = LoweringReplay()  # identical nests (repeated layers) share kernels
            groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
            for i, group in enumerate(groups):
                replay.lower(group, lambda: lower_group(op, fn, group, i, target))  # noqa: B023
            # a split schedule is its partial and combine nests (gpu.members groups'
            # nests included, now out of their groups)
            split_reductions(fn)
            nests = [o for o in fn.walk() if isinstance(o, NestOp)]
            for i, nest in enumerate(nests):
                replay.lower(nest, lambda: lower_nest(op, fn, nest, i, target))  # noqa: B023
            lower_gathers(op, fn, target)
            for att in [o for o in fn.walk() if isinstance(o, AttentionOp)]:
                lower_attention(att, target)
