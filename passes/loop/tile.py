"""`aicf-tile`: make a matmul nest's tiling explicit, as the GPU lowering will run it.

For each nest with an `aicf.schedule` of kind `gpu.matmul_tiled` (planned by
`aicf-plan` or written by hand; nests without one are left alone), the pass records, per domain dim,
its role and how it is cut:

    attrs = {aicf.tiling = {
        roles  = ["batch", "m", "n", "k"],
        tile   = array<i64: 1, 128, 128, 16>,   // extent one block covers per step
        thread = array<i64: 1, 8, 8, 1>,        // extent one thread covers (registers)
        grid   = array<i64: 3, 32, 32, 1>,      // blocks along the dim
        steps  = array<i64: 1, 1, 1, 256>,      // sequential steps inside a block
        map    = ["grid.z", "grid.y", "grid.x", "seq"]}}

i.e. the domain [B, M, N, K] becomes the loop nest
    for z < B, y < ceil(M/bm), x < ceil(N/bn)       (blocks, in parallel)
      for t < (bm/tm)*(bn/tn)                       (threads, in parallel)
        for s < ceil(K/bk)                          (sequential, staged in shared memory)
          for i < tm, j < tn, kk < bk               (registers)
with points past the domain's end masked. The lowering (gpu_schedules/matmul.py)
reads the tile extents from here, so editing them in the IR changes the kernel
(the rest of the parameters come from `aicf.schedule`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass

from aicf.dialects.schedule import SCHEDULE_ATTR, schedule_of
from aicf.lowering.gpu_schedules import matmul_space as cm
from aicf.diagnostics import op_error
from aicf.dialects.loop import NestOp

TILING_ATTR = "aicf.tiling"


def _int(d: DictionaryAttr, key: str) -> int:
    a = d.data.get(key)
    if not isinstance(a, IntegerAttr):
        raise KeyError(key)
    return a.value.data


def tiling_attr(nest: NestOp, roles: cm.MatmulRoles, sched: DictionaryAttr) -> DictionaryAttr:
    bm, bn, bk = _int(sched, "bm"), _int(sched, "bn"), _int(sched, "bk")
    tm, tn = _int(sched, "tm"), _int(sched, "tn")
    ext = nest.extents
    names, tile, thread, grid, steps, where = [], [], [], [], [], []
    batch_axes = iter(["grid.z"] * len(roles.batch))
    for d, e in enumerate(ext):
        if d == roles.m:
            names.append("m"), tile.append(bm), thread.append(tm), grid.append(math.ceil(e / bm)), steps.append(1), where.append("grid.y")
        elif d == roles.n:
            names.append("n"), tile.append(bn), thread.append(tn), grid.append(math.ceil(e / bn)), steps.append(1), where.append("grid.x")
        elif d == roles.k:
            names.append("k"), tile.append(bk), thread.append(1), grid.append(1), steps.append(math.ceil(e / bk)), where.append("seq")
        else:
            names.append("batch"), tile.append(1), thread.append(1), grid.append(e), steps.append(1), where.append(next(batch_axes))

    def arr(xs):
        return DenseArrayBase.from_list(i64, xs)

    return DictionaryAttr(
        {
            "roles": ArrayAttr([StringAttr(n) for n in names]),
            "tile": arr(tile),
            "thread": arr(thread),
            "grid": arr(grid),
            "steps": arr(steps),
            "map": ArrayAttr([StringAttr(w) for w in where]),
        }
    )


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Record the block/thread/step tiling of planned matmul nests (`aicf.tiling`)."""

    name = "aicf-tile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nest in [o for o in op.walk() if isinstance(o, NestOp)]:
            sched = schedule_of(nest)
            if sched is None or sched.kind != "gpu.matmul_tiled":
                continue
            found = cm.nest_problem(nest)
            if found is None:
                raise op_error(nest, f"has a gpu.matmul_tiled {SCHEDULE_ATTR} but is not a matmul-shaped nest")
            roles, _ = found
            nest.attributes[TILING_ATTR] = tiling_attr(nest, roles, nest.attributes[SCHEDULE_ATTR])  # type: ignore[arg-type]
