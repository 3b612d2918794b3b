"""`aicf-plan`: decide how every loop nest and group runs, and write it down.

For each `aicf_loop.group` and `aicf_loop.nest` without an `aicf.schedule`, the pass
lists the candidates for the target (passes/loop/candidates.py: generated kernels as
points of their parameter spaces, library kernels), filters them by their guards,
prices them with the cost package (aicf/cost/) over the target description, and
writes the winner as a schedule attribute (dialects/schedule.py). Existing schedules
are left alone, as MLIR's ParallelLoopMapper leaves existing mappings: a user or a test
can write one by hand. The lowerings read the attribute and decide nothing.

Options:
- `target`: a description name (h100, sm_90, a100, sm_80, cpu) or auto (the GPU CuPy
  finds, else the host CPU);
- `force`: schedule kinds to take whenever their guard passes, first match wins
  (e.g. `force="gpu.cublas_gemm"` or `force="gpu.matmul_tiled,gpu.rows"`);
- `explain`: print, per nest and group, every candidate with its guard, predicted
  time and parameters, and the winner, to stderr;
- `cores` (cpu target): plan for this many cores instead of the host's;
- `matmul_precision`: "high" lets f32 matmuls multiply in TF32 (cuBLAS's TF32 mode,
  gpu.wgmma's tf32 path), "highest" keeps f32; default: the process default
  (`aicf.set_float32_matmul_precision`, like torch's).

    aicf-opt prog.mlir -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100 explain=true}'
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass

from aicf.diagnostics import op_error
from aicf.dialects.loop import GatherOp, GroupOp, NestOp
from aicf.dialects.schedule import SCHEDULE_ATTR, schedule_of
from aicf.lowering.loop_to_gpu import nest_view
from aicf.passes.loop import candidates as cands
from aicf.target import CpuTarget, GpuTarget, resolve_target


def _header(op, what: str, target) -> str:
    if isinstance(op, NestOp):
        its = ",".join(i.value for i in op.iterators)
        shape = f"domain={list(op.extents)} [{its}]"
    else:
        shape = f"shared={list(op.shared_extents)}, {len(op.nests)} nests"
    return f"{what} {shape} on {target.name}"


def format_candidates(header: str, found: list[cands.Candidate], chosen: cands.Candidate | None,
                      given: str | None = None, top: int = 5) -> str:  # fmt: skip
    lines = [header]
    if given is not None:
        lines.append(f"  given: {given} (written before aicf-plan: kept)")
    for c in found:
        mark = "->" if c is chosen else "  "
        if not c.applies:
            lines.append(f"  {mark} {c.kind:<18} does not apply: {c.reason}")
            continue
        est = f"{c.cost * 1e6:10.2f} us" if c.cost != float("inf") else "        - us"
        note = f"  ({c.reason})" if c.reason else ""
        if chosen is not None and c is not chosen and 0 <= c.tier < chosen.tier:
            note = (f"  (not taken: {chosen.kind} is built for this shape; this model prices "
                    "neither operand reuse nor uncoalesced walks)")
        d = c.schedule.describe(with_estimate=False)  # type: ignore[union-attr]
        params = d.split(" ", 1)[1] if " " in d else ""
        lines.append(f"  {mark} {c.kind:<18} {est}  {params}{note}")
        if c.detail is not None and top > 0:
            lines += ["       " + ln for ln in c.detail(top).splitlines()]
    return "\n".join(lines)


@dataclass
class Planner:
    target: GpuTarget | CpuTarget
    force: tuple[str, ...] = ()
    top: int = 5  # points of a candidate's space shown by explain

    def plan_function(self, fn: func.FuncOp, explain: list[str] | None) -> None:
        _check_static(fn)
        if isinstance(self.target, CpuTarget):
            from aicf.passes.loop import cpu_candidates

            cpu_candidates.plan_function(fn, self.target, self.force, explain, self.top)
            return
        fname = fn.sym_name.data
        groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
        for i, group in enumerate(groups):
            found = cands.gpu_group_candidates(group, f"{fname}_group{i}", self.target)
            self._decide(group, f"@{fname} group #{i}", found, explain)
        # nests are numbered as aicf-lower-to-gpu numbers them (their kernel names)
        for nest, i in _lowering_order(fn):
            view = nest_view(fn, nest, i)
            found = cands.gpu_nest_candidates(view, self.target)
            self._decide(nest, f"@{fname} nest #{i}", found, explain)

    def _decide(self, op, what: str, found: list[cands.Candidate], explain: list[str] | None) -> None:
        decide(op, what, found, self.target, self.force, explain, self.top)


def _check_static(fn: func.FuncOp) -> None:
    """The costs and schedules are of static extents: a dynamic one would be planned
    as its placeholder (-2^63)."""
    for op in fn.walk():
        if isinstance(op, NestOp | GroupOp | GatherOp):
            for v in op.operands:
                if isinstance(v.type, MemRefType) and not v.type.has_static_shape():
                    raise op_error(op, f"operand {v.type} has dynamic dims: aicf-plan needs static "
                                   "shapes (specialise them first)")


def decide(op, what: str, found: list[cands.Candidate], target, force: tuple[str, ...],
           explain: list[str] | None, top: int = 5) -> None:  # fmt: skip
    """Write the chosen candidate's schedule on `op` unless it has one; explain."""
    given = schedule_of(op)
    if given is not None:
        if explain is not None:
            same = [c for c in found if c.applies and c.schedule == given]
            if same:  # what the planner takes (a compiled program's explanation)
                explain.append(format_candidates(_header(op, what, target), found, same[0], top=top))
            else:
                explain.append(format_candidates(_header(op, what, target), found, None, given.describe(), top))
        return
    chosen = cands.select(found, force)
    op.attributes[SCHEDULE_ATTR] = chosen.schedule.to_attr()  # type: ignore[union-attr]
    if explain is not None:
        explain.append(format_candidates(_header(op, what, target), found, chosen, top=top))


def _lowering_order(fn: func.FuncOp) -> list[tuple[NestOp, int]]:
    """The nests aicf-lower-to-gpu lowers one by one, with the index it gives each (its
    kernel name): in walk order once every `gpu.members` group has been opened."""
    out: list[tuple[NestOp, int]] = []
    for o in fn.walk():
        if isinstance(o, NestOp):
            parent = o.parent_op()
            if isinstance(parent, GroupOp):
                s = schedule_of(parent)
                if s is None or s.kind != "gpu.members":
                    continue
            out.append((o, len(out)))
    return out


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    """Write a schedule attribute on every nest and group (existing ones are kept)."""

    name = "aicf-plan"

    target: str = "auto"
    force: str = ""
    explain: bool = False
    top: int = 5
    # cpu target: plan for this many cores instead of the host's (tests, cross-planning)
    cores: int = 0
    # f32 matmuls: "highest" (f32) or "high" (TF32 allowed); "": the process default
    # (aicf.set_float32_matmul_precision)
    matmul_precision: str = ""

    def __post_init__(self) -> None:
        # option values are checked when the pipeline is built (a pipeline error), the
        # force kind against the target's side when the target is known (apply)
        from aicf.dialects.schedule import KINDS
        from aicf.math_precision import MATMUL_PRECISIONS

        if self.cores < 0 or self.top < 0:
            raise ValueError(f"cores and top must be >= 0 (cores={self.cores}, top={self.top})")
        for k in self.forced():
            if k not in KINDS:
                raise ValueError(f"force names an unknown schedule kind '{k}' (known: {', '.join(sorted(KINDS))})")
        if self.matmul_precision and self.matmul_precision not in MATMUL_PRECISIONS:
            raise ValueError(f"matmul_precision must be one of {', '.join(MATMUL_PRECISIONS)}, "
                             f"got '{self.matmul_precision}'")

    def forced(self) -> tuple[str, ...]:
        return tuple(k.strip() for k in self.force.split(",") if k.strip())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from dataclasses import replace

        from aicf.dialects.schedule import KINDS
        from aicf.errors import CompileError
        from aicf.math_precision import planning_precision

        target = resolve_target(self.target)
        if self.cores > 0 and isinstance(target, CpuTarget):
            target = replace(target, cores=self.cores)
        force = self.forced()
        side = "cpu" if isinstance(target, CpuTarget) else "gpu"
        for k in force:
            if KINDS[k].target != side:
                raise CompileError(f"aicf-plan: force='{k}' is a {KINDS[k].target} kind, but the "
                                   f"target {target.name} is a {side}")
        planner = Planner(target, force, self.top)
        out: list[str] | None = [] if self.explain else None
        with planning_precision(self.matmul_precision):
            for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
                planner.plan_function(fn, out)
        if out:
            print("\n".join(out), file=sys.stderr)


def explain_module(module: ModuleOp, target: GpuTarget | CpuTarget, top: int = 3) -> str:
    """The explanation of a scheduled module: per nest and group, the candidates the
    planner weighs now, and the schedule the op carries."""
    planner = Planner(target, top=top)
    out: list[str] = []
    for fn in [o for o in module.ops if isinstance(o, func.FuncOp)]:
        planner.plan_function(fn, out)
    return "\n".join(out)
