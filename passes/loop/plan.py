"""`aicf-plan`: choose the kernel parameters of each matmul-shaped nest by cost.

Each `aicf_loop.nest` that is a matmul (aicf/cost_model.py: `match_matmul`) gets the
cheapest feasible point of the tiled-matmul space as an `aicf.schedule` dictionary;
the GPU lowering (lowering/gpu_schedules/matmul.py) builds exactly that kernel.
With `explain=true` the ranking (every candidate's cost terms, the rejected ones and
why) is printed to stderr: `aicf.cost_model.explain(nest)` gives the same table.

    aicf_loop.nest domain = [4096, 4096, 4096] iterators = [parallel, parallel, reduction]
        ins(%a, %b : ...) outs(%c : ...) maps = [...] combiners = [add] attrs = {
        aicf.schedule = {kind = "matmul_tiled", bm = 128 : i64, bn = 128 : i64,
                         bk = 16 : i64, tm = 8 : i64, tn = 8 : i64, threads = 256 : i64,
                         stages = 2 : i64, vec_a = 4 : i64, dim_a = "k", ...,
                         est_ns = 3300751 : i64, bound = "fma"}} {...}

Nests that are not matmuls, or have an empty dim, are left alone (the generic GPU
schedules take them). A nest that already has a schedule keeps it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i1, i64
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from aicf import cost_model as cm
from aicf.dialects.loop import NestOp
from aicf.target import DEFAULT_GPU

SCHEDULE_ATTR = "aicf.schedule"
KIND = "matmul_tiled"


def schedule_attr(est: cm.Estimate) -> DictionaryAttr:
    vals: dict[str, Attribute] = {"kind": StringAttr(KIND)}
    for k, v in est.cand.params().items():
        if isinstance(v, bool):
            vals[k] = IntegerAttr(int(v), i1)
        elif isinstance(v, int):
            vals[k] = IntegerAttr(v, i64)
        else:
            vals[k] = StringAttr(str(v))
    vals["est_ns"] = IntegerAttr(int(round(est.total * 1e9)), i64)
    vals["bound"] = StringAttr(est.bound)
    return DictionaryAttr(vals)


def plan_nest(nest: NestOp, explain: bool = False, top: int = 5) -> cm.Estimate | None:
    """The chosen estimate for a matmul nest (None: not a matmul / nothing feasible)."""
    found = cm.nest_problem(nest, DEFAULT_GPU)
    if found is None:
        return None
    _, prob = found
    if min(prob.m, prob.n, prob.k, prob.batch) == 0 or prob.batch > 65535:
        return None
    ranked = cm.plan(prob, DEFAULT_GPU)
    if explain:
        print(cm.format_table(prob, ranked, top, DEFAULT_GPU), file=sys.stderr)
    return ranked[0] if ranked[0].feasible else None


@dataclass(frozen=True)
class PlanPass(ModulePass):
    """Annotate matmul-shaped nests with the cost model's choice (`aicf.schedule`)."""

    name = "aicf-plan"

    explain: bool = False
    top: int = 5

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nest in [o for o in op.walk() if isinstance(o, NestOp)]:
            if SCHEDULE_ATTR in nest.attributes:
                continue
            est = plan_nest(nest, self.explain, self.top)
            if est is not None:
                nest.attributes[SCHEDULE_ATTR] = schedule_attr(est)
