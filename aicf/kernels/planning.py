"""External kernels as the planner's candidates.

For a nest or group (not one inside a group), every known kernel for the target
whose pattern's signature equals the op's (aicf/kernels/pattern.py) is a candidate
of kind `cpu.external` / `gpu.external`, labelled with its name:
- its guard fails: it does not apply, and the explanation says why;
- else the gate's verdict (aicf/kernels/gate.py) against the compiler's own choice
  for the op (the planner's pick among the other candidates, planned alone):
  admitted: it applies, priced at the own candidate's predicted time scaled by the
  measured ratio, so it wins unless a library kernel is predicted faster still;
  correct but not faster: it applies only when forced (an infinite price);
  rejected: it does not apply, with the gate's reason.
The schedule names the kernel by key, the boundary buffers it takes, its workspace
and (cuda) launch at the op's shapes, and (cpu) the own schedule as the fallback for
strided variants.

Planning options (kernel files, the gate's configuration) reach here through
`options()`, set by `aicf-plan` for the duration of its run.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from xdsl.dialects import func
from xdsl.ir import Operation

from aicf.dialects.boundary import read_and_written, standalone
from aicf.dialects.loop import GroupOp
from aicf.dialects.schedule import Schedule, decode
from aicf.errors import CompileError
from aicf.logs import getLogger

from . import registry
from .gate import GateConfig, verdict_for
from .kernel import ExternalKernel, evaluate
from .pattern import LoweredPattern, lower_pattern, memref_info, operands, signature

log = getLogger("plan")


@dataclass(frozen=True)
class Options:
    enabled: bool = True
    config: GateConfig = field(default_factory=GateConfig)


_OPTIONS: contextvars.ContextVar[Options] = contextvars.ContextVar("aicf_kernel_options", default=Options())


def options() -> Options:
    return _OPTIONS.get()


@contextlib.contextmanager
def planning_options(opts: Options) -> Iterator[None]:
    token = _OPTIONS.set(opts)
    try:
        yield
    finally:
        _OPTIONS.reset(token)


def _side(target) -> str:
    return "cpu" if getattr(target, "kind", "") == "cpu" else "cuda"


def own_module(op: Operation, target, force: tuple[str, ...]):
    """The op alone, scheduled as the compiler schedules it without external kernels."""
    from aicf.passes.loop.plan import Planner

    module = standalone(op)
    fn = next(o for o in module.ops if isinstance(o, func.FuncOp))
    for o in fn.walk():
        o.attributes.pop("aicf.schedule", None)
    with planning_options(replace(options(), enabled=False)):
        Planner(target, tuple(k for k in force if not k.endswith(".external"))).plan_function(fn, None)
    return module


def external_candidates(op: Operation, own, target, force: tuple[str, ...] = ()) -> list:
    """The external kernels' candidates for `op` (see the module docstring); `own` is
    the candidate the planner takes without them."""
    from aicf.passes.loop.candidates import Candidate

    opts = options()
    side = _side(target)
    if not opts.enabled or isinstance(op.parent_op(), GroupOp):
        return []
    kernels = registry.available(side)
    if not kernels:
        return []
    kind = f"{'cpu' if side == 'cpu' else 'gpu'}.external"
    sig = signature(op)
    out = []
    for k in kernels:
        try:
            lp = lower_pattern(k)
        except CompileError as e:
            log.info("external kernel %s: %s", k.key, e)
            continue
        if lp.signature != sig:
            continue
        label = f"{kind}:{k.name}"
        ins, args = operands(lp, op)
        per_input = [memref_info(v) for v in ins]
        why = k.guard.check([p[0] for p in per_input], [p[1] for p in per_input], [p[2] for p in per_input])
        if why is None and read_and_written(op):
            why = "the op updates a buffer in place"
        if why is None and k.guard.layout == "contiguous" and not all(memref_info(v)[2] for v in args):
            why = "an operand is strided, the kernel takes contiguous operands only"
        if why is not None:
            out.append(Candidate(kind, -1, reason=f"guard: {why}", label=label))
            continue
        verdict = verdict_for(k, lp, op, own_module(op, target, force), target, opts.config)
        if not verdict.correct:
            out.append(Candidate(kind, -1, reason=verdict.summary(), label=label))
            continue
        cost = _price(own, verdict)
        sched = _schedule(kind, k, lp, [p[0] for p in per_input], [memref_info(v)[0] for v in args], own, cost)
        out.append(Candidate(kind, -1, sched, cost, reason=verdict.summary(), label=label,
                             forced_reason=verdict.forced_summary()))
    return out


def _price(own, verdict) -> float:
    """Admitted: the own candidate's predicted time scaled by the measured ratio (the
    measured time itself where the own one has no price); correct but slower: only
    when forced."""
    if not verdict.admitted:
        return float("inf")
    if own.cost == float("inf"):
        return verdict.ext_s
    return own.cost * verdict.ext_s / verdict.own_s


def _schedule(kind: str, k: ExternalKernel, lp: LoweredPattern, in_shapes, arg_shapes, own,
              cost: float) -> Schedule:  # fmt: skip
    symbols = k.guard.bind(in_shapes) if k.guard.shapes is not None else {}
    assert isinstance(symbols, dict)
    params: dict = {"key": k.key, "args": list(lp.args), "workspace": evaluate(k.workspace, symbols, arg_shapes),
                    "layout": k.guard.layout}
    if kind == "gpu.external":
        assert k.launch is not None
        grid, block, smem = k.launch.resolve(symbols, arg_shapes)
        params.update(grid=grid, block=block, smem=smem)
    elif own is not None and own.schedule is not None:
        params["fallback"] = own.schedule.to_attr()
    if cost != float("inf"):
        params["est_ns"] = int(round(cost * 1e9))
    from aicf.dialects.schedule import schedule_attr

    return decode(schedule_attr(kind, params))
