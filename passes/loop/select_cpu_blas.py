"""`aicf-select-cpu-blas`: run gemm nests as OpenBLAS calls on the cpu target, by cost.

Each `aicf_loop.nest` that the BLAS guard accepts (lowering/cpu_schedules/blas_gemm.py:
f32/f64 (batched) gemm whose operands BLAS can read in place) and for which the BLAS
calls are predicted faster than the plain loop nest on the host CPU
(aicf/cpu_target.py) gets

    aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2,
                     fold = 0, tasks_n = 1, trans_a = "N", lda = 64, trans_b = "N", ldb = 32,
                     ldc = 32, blas_ns = ..., nest_ns = ...}

which the C emitter turns into the calls. A nest that already has an `aicf.schedule`
keeps it. With `explain=true` each nest's decision (or the guard's reason) goes to
stderr. This stands in for the cpu side of the planner, which will take it over.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from aicf.backend.c import blas
from aicf.cpu_target import host_cpu
from aicf.diagnostics import location_of
from aicf.dialects.loop import NestOp
from aicf.lowering.cpu_schedules.blas_gemm import choose


@dataclass(frozen=True)
class SelectCpuBlasPass(ModulePass):
    name = "aicf-select-cpu-blas"

    explain: bool = False
    cores: int = 0
    """Plan for this many cores instead of the host's (0: the host's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = host_cpu()
        if self.cores > 0:
            target = replace(target, cores=self.cores)
        for nest in [o for o in op.walk() if isinstance(o, NestOp)]:
            if blas.SCHEDULE_ATTR in nest.attributes:
                why = "keeps its aicf.schedule"
            elif not blas.available():
                why = "blas: not applicable (scipy-openblas32 is not installed)"
            else:
                attr, why = choose(nest, target)
                if attr is not None:
                    nest.attributes[blas.SCHEDULE_ATTR] = attr
            if self.explain:
                print(f"{location_of(nest)}: nest domain={list(nest.extents)}: {why}",
                      file=sys.stderr)  # fmt: skip
