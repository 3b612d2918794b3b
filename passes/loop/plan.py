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
  (`aicf.set_float32_matmul_precision`, like torch's);
- `kernels`: `*.kernels.json` files of external kernels to register (comma-separated;
  aicf/kernels/registry.py); registered and proposed kernels compete through the gate
  (aicf/kernels/gate.py), whose `gate_time_limit` (seconds per kernel call) and
  `min_speedup` (how much faster than the compiler's own kernel) are options too.

    aicf-opt prog.mlir -p 'aicf-infer-shapes,aicf-lower-to-loops,aicf-plan{target=h100 explain=true}'
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass

from aicf.diagnostics import op_error
from aicf.dialects.loop import AttentionOp, GatherOp, GroupOp, NestOp
from aicf.dialects.schedule import SCHEDULE_ATTR, schedule_of
from aicf.lowering.loop_to_gpu import nest_view
from aicf.structural import structural_key
from aicf.passes.loop import candidates as cands
from aicf.target import CpuTarget, GpuTarget, resolve_target


def _header(op, what: str, target) -> str:
    if isinstance(op, NestOp):
        its = ",".join(i.value for i in op.iterators)
        shape = f"domain={list(op.extents)} [{its}]"
    elif isinstance(op, AttentionOp):
        q, k, v = op.logical_shapes()
        shape = f"Q={list(q)} K={list(k)} V={list(v)}{' causal' if op.is_causal else ''}"
    else:
        shape = f"shared={list(op.shared_extents)}, {len(op.nests)} nests"
    return f"{what} {shape} on {target.name}"


def format_candidates(header: str, found: list[cands.Candidate], chosen: cands.Candidate | None,
                      given: str | None = None, top: int = 5, forced: bool = False) -> str:  # fmt: skip
    """`forced`: a force took `chosen` (whatever its price or its verdict said)."""
    lines = [header]
    if given is not None:
        lines.append(f"  given: {given} (written before aicf-plan: kept)")
    for c in found:
        mark = "->" if c is chosen else "  "
        name = c.label or c.kind
        if not c.applies:
            lines.append(f"  {mark} {name:<18} does not apply: " + _indent(c.reason))
            continue
        est = f"{c.cost * 1e6:10.2f} us" if c.cost != float("inf") else "        - us"
        note = f"  ({c.reason})" if c.reason else ""
        if forced and c is chosen:
            note = f"  ({c.forced_reason or 'forced' + (f'; {c.reason}' if c.reason else '')})"
        elif chosen is not None and c is not chosen and 0 <= c.tier < chosen.tier:
            note = (f"  (not taken: {chosen.kind} is built for this shape; this model prices "
                    "neither operand reuse nor uncoalesced walks)")
        d = c.schedule.describe(with_estimate=False)  # type: ignore[union-attr]
        params = d.split(" ", 1)[1] if " " in d else ""
        lines.append(f"  {mark} {name:<18} {est}  {params}" + _indent(note))
        if c.detail is not None and top > 0:
            lines += ["       " + ln for ln in c.detail(top).splitlines()]
    return "\n".join(lines)


def _indent(text: str, limit: int = 16) -> str:
    """A multi-line reason (a compiler's message) under its candidate, cut to `limit` lines."""
    lines = text.splitlines() or [""]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join([lines[0], *("         " + ln for ln in lines[1:])])


def with_external(op, found: list[cands.Candidate], target, force: tuple[str, ...],
                  explaining: bool = False) -> list[cands.Candidate]:  # fmt: skip
    """`found` and the external kernels that match the op (aicf/kernels/planning.py),
    judged against what the planner takes without them (not for an op whose schedule
    was written before, unless explaining)."""
    from aicf.kernels.planning import external_candidates

    if not any(c.applies for c in found) or (SCHEDULE_ATTR in op.attributes and not explaining):
        return found
    return found + external_candidates(op, cands.select(found, force), target, force)


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
        for i, att in enumerate(o for o in fn.walk() if isinstance(o, AttentionOp)):
            from aicf.passes.loop.gpu_attention import flash_candidates

            if settled(att, explain):
                continue
            found = flash_candidates(att, self.target)
            if not any(c.applies for c in found) and schedule_of(att) is None:
                # the cuda pipeline keeps an attention whole only where the flash
                # kernel takes it (aicf-decompose-attention{keep_flash=true})
                raise op_error(att, f"has no GPU schedule: {'; '.join(c.reason for c in found)}; lower it through "
                               "aicf-decompose-attention (batched matmul, softmax row group, "
                               "batched matmul) before aicf-lower-to-loops")
            self._decide(att, f"@{fname} attention #{i}", found, explain)
        memo = CandidateMemo()
        groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
        for i, group in enumerate(groups):
            if settled(group, explain):
                continue
            found = memo.get(group, (), lambda: cands.gpu_group_candidates(group, f"{fname}_group{i}", self.target))
            found = with_external(group, found, self.target, self.force, explain is not None)
            self._decide(group, f"@{fname} group #{i}", found, explain)
        # nests are numbered as aicf-lower-to-gpu numbers them (their kernel names)
        order = _lowering_order(fn)
        alone = len(order) == 1 and not groups and not any(isinstance(o, AttentionOp) for o in fn.walk())
        for nest, i in order:
            if settled(nest, explain):
                continue
            found = memo.get(nest, (), lambda: cands.gpu_nest_candidates(nest_view(fn, nest, i), self.target))
            found = with_external(nest, found, self.target, self.force, explain is not None)
            if alone:
                found = [host_bound(c, self.target) for c in found]
            self._decide(nest, f"@{fname} nest #{i}", found, explain)

    def _decide(self, op, what: str, found: list[cands.Candidate], explain: list[str] | None) -> None:
        decide(op, what, found, self.target, self.force, explain, self.top)


def host_bound(c: cands.Candidate, t: GpuTarget) -> cands.Candidate:
    """`c` priced as the only op of its program: called back to back, such a program
    runs at the slower of its GPU time and its call's host time (no CUDA graph: one
    step gains nothing from one), and a cuBLAS call's host time is several kernel
    launches'."""
    from dataclasses import replace

    if not c.applies or c.kind != "gpu.cublas_gemm":
        # a generated kernel's floor (host_kernel_call_s) is below a cuBLAS call's, so
        # flooring the cuBLAS calls alone decides the same, and keeps the generated
        # kernels' own order (CUB's host time is in its own model; an external
        # kernel's launch is not measured yet)
        return c
    host = t.host_library_call_s
    if c.cost >= host:
        return c
    note = f"host-bound alone in its program: {host * 1e6:.0f} us a call"
    return replace(c, cost=host, reason=f"{c.reason}; {note}" if c.reason else note)


def settled(op, explain: list[str] | None) -> bool:
    """A schedule is written and no explanation is asked for: nothing to weigh."""
    return explain is None and schedule_of(op) is not None


class CandidateMemo:
    """The candidates of structurally identical nests and groups (aicf/structural.py:
    the same computation on other buffers, as a model's repeated layers are) are
    listed and priced once: they depend on the op alone and the target."""

    def __init__(self) -> None:
        self._found: dict[tuple, list[cands.Candidate]] = {}

    def get(self, op, extra: tuple, compute: Callable[[], list[cands.Candidate]]) -> list[cands.Candidate]:
        key = (structural_key(op), extra)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = compute()
        return found


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
                forced = same[0].kind in force and cands.select(found, force) is same[0]
                explain.append(format_candidates(_header(op, what, target), found, same[0], top=top, forced=forced))
            else:
                explain.append(format_candidates(_header(op, what, target), found, None, given.describe(), top))
        return
    chosen = cands.select(found, force)
    op.attributes[SCHEDULE_ATTR] = chosen.schedule.to_attr()  # type: ignore[union-attr]
    if explain is not None:
        explain.append(format_candidates(_header(op, what, target), found, chosen, top=top,
                                         forced=chosen.kind in force))


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
    # external kernels: files to register, and the gate's time limit and speedup bar
    kernels: str = ""
    gate_time_limit: float = 10.0
    min_speedup: float = 1.1

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
        from aicf.kernels.planning import planning_options

        planner = Planner(target, force, self.top)
        out: list[str] | None = [] if self.explain else None
        with planning_precision(self.matmul_precision), planning_options(self.kernel_options()):
            for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
                planner.plan_function(fn, out)
        if out:
            print("\n".join(out), file=sys.stderr)

    def kernel_options(self):
        """The external kernels' planning options (aicf/kernels/planning.py), after
        registering the `kernels` files."""
        from aicf.errors import CompileError
        from aicf.kernels import registry
        from aicf.kernels.gate import GateConfig
        from aicf.kernels.planning import Options

        if self.gate_time_limit <= 0 or self.min_speedup <= 0:
            raise CompileError(f"aicf-plan: gate_time_limit and min_speedup must be > 0 "
                               f"(got {self.gate_time_limit}, {self.min_speedup})")
        for path in (p.strip() for p in self.kernels.split(",")):
            if path:
                registry.load(path)
        return Options(config=GateConfig(time_limit_s=float(self.gate_time_limit), min_speedup=float(self.min_speedup)))


def explain_module(module: ModuleOp, target: GpuTarget | CpuTarget, top: int = 3, options=None,
                   force: tuple[str, ...] = ()) -> str:  # fmt: skip
    """The explanation of a scheduled module: per nest and group, the candidates the
    planner weighs now (with `options`: the external kernels' planning options the
    module was planned with; `force`: the kinds it was planned with forced, so the
    gate judges against the same own kernel and a forced pick says so), and the
    schedule the op carries."""
    from contextlib import nullcontext

    from aicf.kernels.planning import planning_options

    planner = Planner(target, force, top)
    out: list[str] = []
    with planning_options(options) if options is not None else nullcontext():
        for fn in [o for o in module.ops if isinstance(o, func.FuncOp)]:
            planner.plan_function(fn, out)
    return "\n".join(out)
