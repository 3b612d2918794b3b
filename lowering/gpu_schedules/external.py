"""`aicf-lower-external`: nests and groups scheduled `gpu.external` become one
`aicf_gpu.library_call "external"` each, before `aicf-lower-to-gpu` lowers the rest.

The call takes the op's boundary buffers (dialects/boundary.py: inputs, then
outputs) and copies the schedule's parameters (kernel key, argument order, launch,
workspace, layout); the runtime launches the kernel (backend/cuda/external.py). A
group's own buffers go with it: the kernel computes the whole group.

    aicf_loop.group ... {aicf.schedule = {kind = "gpu.external", key = "softmax-1a2b", ...}}
->
    aicf_gpu.library_call "external" ins(%x : ...) outs(%y : ...) params = {key = "softmax-1a2b", ...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from aicf.dialects.boundary import boundary
from aicf.dialects.loop import GroupOp, NestOp
from aicf.dialects.schedule import schedule_of

from .library import replace_with_call

KIND = "gpu.external"


def lower_external(op: Operation) -> None:
    s = schedule_of(op)
    assert s is not None and s.kind == KIND
    ins, outs = boundary(op)
    params = {k: v for k, v in s.params.items() if k not in ("est_ns", "why")}
    replace_with_call(op, "external", ins, outs, params, "its external kernel")


@dataclass(frozen=True)
class LowerExternalPass(ModulePass):
    """Replace every nest and group scheduled gpu.external by a library call."""

    name = "aicf-lower-external"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            for o in list(fn.walk()):
                if isinstance(o, NestOp | GroupOp) and not isinstance(o.parent_op(), GroupOp):
                    s = schedule_of(o)
                    if s is not None and s.kind == KIND:
                        lower_external(o)
