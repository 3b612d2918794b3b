"""GPU schedules for loop nests, and the registry the GPU lowering selects from.

A schedule is a way to run one `aicf_loop` nest as kernels: a guard (`applies`), a
planner that picks its parameters with the cost model and returns a `Plan` with an
estimated time, and a builder that writes the kernels and the host launches. The
selector keeps the applicable schedules of the highest priority and takes the
cheapest plan among them; the plan's description (and the alternatives' costs) go
into the kernel's `aicf.schedule` attribute, so a user can see why.

Registered here:
- `rows` (priority 1): reductions over the innermost dims, warp/block/split per row.
- `per-output` (priority 0): everything (elementwise, outer-axis reductions, and the
  matmul fallback: one thread per output group, looping over K).

The tiled matmul registers itself with a higher priority for matmul-shaped nests
(`NestView.is_matmul_shaped()`):

    from aicf.lowering.gpu_schedules import Schedule, register_schedule
    register_schedule(Schedule("matmul-tiled", priority=10, applies=..., plan=..., build=...))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aicf.target import GpuTarget

from . import per_output, rows
from .context import LoweringContext
from .cost import Plan
from .view import NestView


@dataclass
class Schedule:
    name: str
    priority: int
    applies: Callable[[NestView, GpuTarget], bool]
    plan: Callable[[NestView, GpuTarget], Plan | None]
    build: Callable[[NestView, Plan, LoweringContext], None]


SCHEDULES: dict[str, Schedule] = {}


def register_schedule(s: Schedule) -> None:
    SCHEDULES[s.name] = s


register_schedule(
    Schedule("per-output", 0, lambda v, t: True, per_output.plan, per_output.build)
)
register_schedule(
    Schedule("rows", 1, lambda v, t: rows.applies(v), rows.plan, rows.build)
)

# Schedules living in other modules register on import (the tiled matmul).
_PLUGINS = ("aicf.lowering.gpu_schedules.matmul",)


def _load_plugins() -> None:
    import importlib

    for mod in _PLUGINS:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                _plugin_failed(mod, e)
        except Exception as e:  # a broken plugin must not take the fallbacks down
            _plugin_failed(mod, e)


def _plugin_failed(mod: str, e: Exception) -> None:
    import warnings

    warnings.warn(f"GPU schedule plugin {mod} failed to load: {e}; using the fallbacks")


def select(view: NestView, target: GpuTarget) -> tuple[Schedule, Plan]:
    _load_plugins()
    cands = [s for s in SCHEDULES.values() if s.applies(view, target)]
    top = max(s.priority for s in cands)
    best: tuple[Schedule, Plan] | None = None
    for s in cands:
        if s.priority != top:
            continue
        p = s.plan(view, target)
        if p is None:
            continue
        if best is None or p.cost < best[1].cost:
            best = (s, p)
    if best is None:  # a high-priority schedule declined: fall back to the rest
        s = SCHEDULES["per-output"]
        best = (s, s.plan(view, target))  # type: ignore[assignment]
    return best  # type: ignore[return-value]


__all__ = ["Schedule", "SCHEDULES", "register_schedule", "select", "NestView", "Plan", "LoweringContext"]
