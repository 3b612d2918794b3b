"""The planner's candidates on the cpu target: for each nest a C loop nest
(`cpu.nest`: how many leading loops OpenMP shares, from aicf/cost/cpu.py), plus any
library kernel whose guard passes (registered in CPU_LIBRARY_CANDIDATES, picked when
predicted faster); for each group `cpu.group` (per slice of its shared dims, or its
members one by one); for each attention `cpu.attention` (its tiles)."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import func

from aicf.cost import cpu as ccost
from aicf.dialects.loop import AttentionOp, GroupOp, NestOp
from aicf.dialects.schedule import Schedule, decode
from aicf.passes.loop.candidates import Candidate
from aicf.target import CpuTarget


def _limit(nest: NestOp) -> int:
    """Leading loops the C emitter can share among threads for this nest's form."""
    red = nest.reduction_dims
    n = len(nest.extents)
    if not red:
        return max(n - 1, 1)
    return max(min(red), 1)


def accumulators(nest: NestOp) -> str:
    """A reduction's accumulator types: sums and products of floats in f64, of integers
    in i64 (NumPy's integer sum; float sums stay within an ulp of the exact one for the
    lengths we see, at the price of a conversion per element the vector units absorb),
    max and min in the output's own type. Empty for an elementwise nest."""
    from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, BFloat16Type, IntegerType

    from aicf.dialects.loop import Combiner

    if not nest.reduction_dims:
        return ""
    out = []
    for v, c in zip(nest.yield_op.values, nest.combiner_kinds):
        t = v.type
        if c in (Combiner.ADD, Combiner.MUL) and isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
            out.append("f64")
        elif c in (Combiner.ADD, Combiner.MUL) and isinstance(t, IntegerType) and t.width.data > 1:
            out.append("i64")
        elif isinstance(t, BFloat16Type):
            out.append("f32")  # a storage type in C: max/min compare its values in f32
        else:
            out.append(str(t))
    return ",".join(out)


def nest_candidate(nest: NestOp, t: CpuTarget, inside_slice: bool) -> Candidate:
    points = nest.num_points()
    instr = ccost.instructions_per_point([nest])
    k = 0 if inside_slice else ccost.parallel_loops(t, nest.extents, _limit(nest), instr)
    cost = ccost.nest_time(t, points, t.cores if k else 1, instr)
    params: dict[str, object] = {"parallel": k}
    acc = accumulators(nest)
    if acc:
        params["acc"] = acc
    s = Schedule("cpu.nest", {**params, "est_ns": int(round(cost * 1e9))})
    why = "inside a per-slice group: the slice loop is the parallel one" if inside_slice else (
        "parallel" if k else "too little work to share among threads")
    return Candidate("cpu.nest", 0, s, cost, reason=why)


def blas_candidate(nest: NestOp, t: CpuTarget) -> Candidate:
    """OpenBLAS gemm calls (aicf/cost/blas.py: guard, parameters, price)."""
    from dataclasses import replace

    from aicf.cost import blas

    p = blas.gemm_params(nest)
    if isinstance(p, str):
        return Candidate("cpu.blas_gemm", -1, reason=p)
    p = replace(p, tasks_n=blas.column_tasks(p, t))
    cost = blas.predict(p, nest, t)
    fallback = nest_candidate(nest, t, inside_slice=False).schedule["parallel"]  # type: ignore[index]
    extra = {"fallback_acc": accumulators(nest)} if nest.reduction_dims else {}
    attr = p.attr(blas_ns=round(cost * 1e9), nest_ns=round(blas.predict_nest(nest, t) * 1e9),
                  fallback_parallel=fallback, **extra)
    return Candidate("cpu.blas_gemm", -1, decode(attr), cost,
                     reason=f"{p.calls} call(s) x {'x'.join(map(str, p.sizes))} in {p.calls * p.tasks_n} tasks")


CPU_LIBRARY_CANDIDATES: list[Callable[[NestOp, CpuTarget], Candidate]] = [blas_candidate]


def _slice_locals(group: GroupOp, t: CpuTarget) -> dict | str:
    """The group's per-slice local buffers (GroupOp.slice_locals), or why it cannot
    run per slice, also when they would not fit the stack budget of a thread."""
    from xdsl.dialects.builtin import MemRefType

    locals_ = group.slice_locals()
    if isinstance(locals_, str):
        return locals_
    nbytes = 0
    for v, sliced in locals_.items():
        mt = v.type
        assert isinstance(mt, MemRefType)
        elt = mt.get_element_type()
        width = max(getattr(elt, "bitwidth", 64), 8) // 8
        nbytes += width * math.prod(1 if p in sliced else d for p, d in enumerate(mt.get_shape()))
    if nbytes > t.slice_stack_bytes:
        return f"{nbytes} bytes of group-local buffers per slice > {t.slice_stack_bytes} on the stack"
    return locals_


def group_candidates(group: GroupOp, t: CpuTarget) -> list[Candidate]:
    shared = group.shared_extents
    points = max((m.num_points() for m in group.nests), default=0)
    locals_ = _slice_locals(group, t)
    big = ccost.worth_parallel(t, points, ccost.instructions_per_point(group.nests))
    members = Candidate("cpu.group", 0, Schedule("cpu.group", {"parallel": 0, "per_slice": False}),
                        reason="member nests one after another")
    if isinstance(locals_, str):
        return [Candidate("cpu.group", 1, reason=f"per slice: {locals_}"), members]
    if big and math.prod(shared) < t.cores * ccost.CHUNKS_PER_CORE:
        return [Candidate("cpu.group", 1, reason="per slice: too few slices to share among threads "
                          "while the members are big (their own loops do better)"), members]
    k = ccost.collapse_count(t, shared, len(shared)) if big else 0
    return [Candidate("cpu.group", 1, Schedule("cpu.group", {"parallel": k, "per_slice": True}),
                      reason="per slice of the shared dims: the rows stay in cache"), members]


def attention_candidate(op: AttentionOp, t: CpuTarget) -> Candidate:
    """Tiles of queries against tiles of keys with an online softmax (aicf/cost/cpu.py
    sizes them to the caches and the threads)."""
    lq, lk, lv = op.logical_shapes()
    out = tuple(op.output.type.get_shape())  # type: ignore[union-attr]
    batch = math.prod(out[:-2])
    sq, d = lq[-2:]
    sk, dv = lk[-2], lv[-1]
    elt = 8 if op.q.type.get_element_type().bitwidth == 64 else 4  # type: ignore[union-attr]
    tiles = ccost.attention_tiles(t, batch, sq, sk, d, dv, elt)
    if isinstance(tiles, str):
        return Candidate("cpu.attention", 0, reason=tiles)
    bq, bk = tiles
    loops = [*out[:-2], -(-sq // bq)]
    pairs = batch * ccost.attention_key_steps(sq, sk, op.is_causal)
    serial = ccost.attention_time(t, pairs, d, dv, 1)
    parallel = ccost.collapse_count(t, loops, len(loops)) if t.cores > 1 else 0
    shared = ccost.attention_time(t, pairs, d, dv, min(t.cores, math.prod(loops))) if parallel else serial
    if shared >= serial:
        parallel, shared = 0, serial
    s = Schedule("cpu.attention", {"block_q": bq, "block_k": bk, "parallel": parallel,
                                   "est_ns": int(round(shared * 1e9))})  # fmt: skip
    return Candidate("cpu.attention", 0, s, shared,
                     reason=f"{bq}x{bk} tiles, {pairs} query-key pairs; the scores stay in a tile")


def plan_function(fn: func.FuncOp, t: CpuTarget, force: tuple[str, ...], explain: list[str] | None,
                  top: int = 5) -> None:  # fmt: skip
    from aicf.passes.loop.plan import CandidateMemo, decide, settled, with_external

    fname = fn.sym_name.data
    memo = CandidateMemo()
    groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
    for i, g in enumerate(groups):
        if settled(g, explain):
            continue
        found = with_external(g, memo.get(g, (), lambda: group_candidates(g, t)), t, force, explain is not None)
        decide(g, f"@{fname} group #{i}", found, t, force, explain, top)
    for i, nest in enumerate(o for o in fn.walk() if isinstance(o, NestOp)):
        if settled(nest, explain):
            continue
        parent = nest.parent_op()
        inside = False
        if isinstance(parent, GroupOp):
            gs = parent.attributes.get("aicf.schedule")
            s = decode(gs) if gs is not None else None
            if s is not None and s.kind == "cpu.external":  # its members plan for its fallback
                s = s.get("fallback")
            inside = s is not None and bool(s.get("per_slice", False))
        found = memo.get(nest, (inside,), lambda: nest_candidates(nest, t, inside))
        if not isinstance(parent, GroupOp):
            found = with_external(nest, found, t, force, explain is not None)
        decide(nest, f"@{fname} nest #{i}", found, t, force, explain, top)
    for i, att in enumerate(o for o in fn.walk() if isinstance(o, AttentionOp)):
        decide(att, f"@{fname} attention #{i}", [attention_candidate(att, t)], t, force, explain, top)


def nest_candidates(nest: NestOp, t: CpuTarget, inside: bool) -> list[Candidate]:
    """A nest's candidates: the generated loops, and outside a per-slice group the
    library kernels."""
    found = [nest_candidate(nest, t, inside)]
    if not inside:
        found += [f(nest, t) for f in CPU_LIBRARY_CANDIDATES]
        if any(c.kind == "cpu.blas_gemm" and c.applies for c in found):
            # a gemm as a plain nest: the measured naive-matmul rate prices it better
            from aicf.cost.blas import predict_nest

            found[0].cost = predict_nest(nest, t)
    return found
