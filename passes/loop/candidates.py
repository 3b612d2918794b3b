"""The registry the planner selects from: for a loop nest or group, every way to run
it on the target (generated kernels and library kernels), each with its guard (does
it apply, and if not, why), its parameters (the cheapest point of its space under
the cost model) and its predicted time.

A `Candidate` is what `aicf-schedule` weighs and what its explanation prints. The
guards and spaces are here; the prices come from aicf/cost/; the builders that turn
a chosen candidate into kernels are in lowering/ and read only the attribute.

Generated GPU kernels come in tiers of specificity: a schedule built for a shape
(the tiled matmul for matmuls, the row reduction for innermost-axis reductions) is
preferred over the general per-output schedule whenever its guard passes, because
the general schedule's model prices neither operand reuse nor uncoalesced walks and
would look cheaper than it runs. Library kernels compete by cost with the chosen
generated kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith

from aicf.cost import gpu as gcost
from aicf.cost import matmul as mcost
from aicf.cost import tensor_core as tccost
from aicf.cost import transpose as tcost
from aicf.cost.row_group import plan_row_group
from aicf.dialects.loop import GroupOp, NestOp
from aicf.dialects.schedule import Schedule
from aicf.lowering.gpu_schedules import GUARDED_KINDS, matmul, mma_sync, per_output, row_group, rows, transpose, wgmma
from aicf.lowering.gpu_schedules.peel import peel_width
from aicf.lowering.gpu_schedules.view import (
    SPLAT,
    VECTOR,
    NestView,
    access_class,
    collapse,
    element_bytes,
    guarded_length,
    operand_bytes,
    prod,
    view_of,
)
from aicf.math_precision import APPROX, PRECISE, math_mode, may_approximate
from aicf.target import GpuTarget


@dataclass
class Candidate:
    kind: str
    tier: int  # generated kernels: higher is more specific; library kernels: -1
    schedule: Schedule | None = None  # None: the guard failed
    cost: float = float("inf")  # predicted seconds
    reason: str = ""  # why the guard failed, or a note on the choice
    alternatives: list[str] = field(default_factory=list)  # other points of its space
    # the full table of its space's points with every cost term (explain), lazily
    detail: Callable[[int], str] | None = None
    # every point of its space with its predicted seconds (calibration, tuning)
    space: Callable[[], list[tuple[Schedule, float]]] | None = None
    label: str = ""  # what explanations call it, when not its kind (an external kernel's name)
    # what explanations say when a force takes it, if not "forced" and its reason (an
    # external kernel the gate did not admit is still run: say so, with the verdict)
    forced_reason: str = ""

    @property
    def applies(self) -> bool:
        return self.schedule is not None


# --- generated GPU kernels for nests ---------------------------------------------------


def _with_cost(kind: str, params: dict, cost: float) -> Schedule:
    return Schedule(kind, {**params, "est_ns": int(round(cost * 1e9))})


def _combine(view: NestView, S: int, t: GpuTarget, split_workspaces, combine_view) -> Schedule:
    """The schedule of a split reduction's second pass (over the partials)."""
    v2 = combine_view(view, S, split_workspaces(view, S))
    return plan_view(v2, t).schedule  # type: ignore[return-value]


def _partial_fits(kind: str, params: dict, v: NestView) -> bool:
    """Whether the builder takes a split's partial nest (view `v`) with the kernel
    parameters priced on the unsplit nest's view: the partial's dims need not merge as
    the nest's did (a guarded partial is not collapsed at all), so a vector width that
    divided the nest's merged innermost extent may not divide the partial's, and a
    peeled row may be two reduction dims."""
    vec = int(params["vec"])
    P, Rd = v.parallel_dims, v.reduction_dims
    if kind == "gpu.rows":
        Er = [v.extents[d] for d in Rd]
        if not rows.applies(v) or params.get("peel") and len(Er) != 1:
            return False
        if not params.get("peel") and Er[-1] % vec:
            return False
        try:
            guarded_length(v, vec if not params.get("peel") and len(Er) == 1 else 1)
        except NotImplementedError:
            return False
        return True
    # gpu.per_output with outer_grid: the chunks on blockIdx.y, vectors along P[-1]
    return (len(P) >= 2 or vec == 1) and v.extents[P[-1]] % vec == 0 and not per_output.guard_reads(v, P[-1])


def split_params(view: NestView, kind: str, params: dict, t: GpuTarget) -> dict:
    """A rows or per-output split as aicf-split-reductions will make it: at most the
    reduction's points, the partial nest's
    grid (rows: a block per chunk of a row; per-output: the chunks on blockIdx.y,
    `outer_grid`), and the combine nest's schedule (planned on the nest the pass
    builds). Unsplittable (a guarded nest, a view of no nest):
    split = 1."""
    from aicf.passes.loop.split_reductions import chunk_align, reduction_extent, split_nest, split_refusal

    nest, S = view.source, int(params["split"])
    if S <= 1:
        return params
    if nest is None or view.bound is not None:
        return {**params, "split": 1}
    S = min(S, reduction_extent(nest))
    if S <= 1 or split_refusal(nest, S) is not None:
        return {**params, "split": 1}
    parts = split_nest(nest, S, partials_last=kind == "gpu.rows",
                       align=chunk_align(nest, Schedule(kind, {**params, "split": S})))
    try:
        pv = collapse(view_of(parts.partial, view.name + "_partial"))
        if not _partial_fits(kind, params, pv):
            # narrower vectors (no peel) over the partial's rows; the kernel the cost
            # model priced reads wider ones, so its estimate is a little optimistic
            params = {k: v for k, v in params.items() if k != "peel"}
            while int(params["vec"]) > 1 and not _partial_fits(kind, params, pv):
                params["vec"] = int(params["vec"]) // 2
            if not _partial_fits(kind, params, pv):
                return {**params, "split": 1}
        extra: dict = {}
        if kind == "gpu.rows":  # a block a chunk of a row
            grid = prod(parts.partial.extents[d] for d in parts.partial.parallel_dims)
        else:  # the chunks on blockIdx.y, the grid the cost model priced on x
            grid, extra = int(params["grid"]), {"outer_grid": 1}
        v2 = collapse(view_of(parts.combine, view.name + "_combine"))
        combine = select(gpu_nest_candidates(v2, t, with_library=False)).schedule
    finally:
        parts.erase()
    return {**params, **extra, "split": S, "grid": max(1, min(grid, t.max_grid_x)), "combine": combine}


def per_output_candidate(view: NestView, t: GpuTarget) -> Candidate:
    P, Rd = view.parallel_dims, view.reduction_dims
    dim = P[-1] if P else None
    tail_ok = len(P) == 1 and not Rd
    vec = per_output.vector_width(view, dim, t.max_vector_bytes, tail_ok) if dim is not None else 1
    Ep = [view.extents[d] for d in P]
    groups = max(1, prod(Ep) // vec)
    math = body_math_mode(view)
    math_param = {"math": math} if math == APPROX else {}
    if P and not Rd:
        load_bytes, accesses = 0, 0
        for o in view.operands:
            cls = access_class(o, dim, vec)  # type: ignore[arg-type]
            if cls == SPLAT:
                continue
            accesses += 1 if cls == VECTOR else vec
            if o in view.inputs:
                load_bytes += vec * element_bytes(o.type.get_element_type())
        p = gcost.plan_elementwise(
            t, groups, vec, max(load_bytes, 1), operand_bytes(view), body_instructions(view, math),
            accesses, body_mufu(view, math),
        )

        def point(q: gcost.Plan) -> Schedule:
            return _with_cost("gpu.per_output", {"vec": vec, **q.params, **math_param}, q.cost)
    else:
        R = prod(view.extents[d] for d in Rd)
        widest = max((element_bytes(o.type.get_element_type()) for o in view.operands), default=4)
        partial = prod(Ep) * sum(element_bytes(a) for a in view.acc_types)

        def plan(v: int, allow_split: bool) -> gcost.Plan:
            q = gcost.plan_per_output(t, max(1, prod(Ep) // v), v * widest, R if Rd else 1, operand_bytes(view),
                                      partial, allow_split, v * sum(element_bytes(a) for a in view.acc_types))
            for r in q.space:
                r.params = {"vec": v, **r.params}
            return q

        p = plan(vec, True)
        # unsplit, the outputs are stored in their own type, not as f32 partials: an f16
        # GEMV's threads own 8 outputs (16-byte loads of B) where a split's own 4
        whole = per_output.vector_width(view, dim, t.max_vector_bytes, tail_ok, partials=False) \
            if Rd and dim is not None else vec
        if whole != vec:
            p2 = plan(whole, False)
            space = p.space + p2.space
            p = p2 if p2.cost <= p.cost * 1.02 else p  # a tie: the wider loads, fewer of them
            p.space, p.why = space, [q.describe() for q in space]

        def point(q: gcost.Plan) -> Schedule:
            params = {**q.params, "minblocks": max(1, gcost.blocks_per_sm(t, q.params["block"]) // 2), **math_param}
            if not Rd:
                params["split"] = 1
            return _with_cost("gpu.per_output", split_params(view, "gpu.per_output", params, t), q.cost)

    return Candidate("gpu.per_output", MATMUL_TIER if is_gemv(view) else 0, point(p), p.cost,
                     alternatives=p.why, space=lambda: [(point(q), q.cost) for q in p.space])


# the tier of the kernels built for matmuls (tiled, wgmma, mma.sync)
MATMUL_TIER = 11


def is_gemv(view: NestView) -> bool:
    """A matmul of one row (m = 1): bound by reading B, which per_output's threads walk
    coalesced along n, so it competes with the matmul kernels by cost. (n = 1 is a row
    reduction: gpu.rows.)"""
    roles = matmul.roles_of(view)
    if roles is None:
        return _is_vecmat(view)
    if view.extents[roles.m] != 1 or view.extents[roles.n] <= 1:
        return False
    # B walked along n by consecutive threads: contiguous along n (not x @ W^T with W
    # stored n x k, where each thread's loads would be rows apart)
    return access_class(view.inputs[roles.b], roles.n, 2) == VECTOR


def _is_vecmat(view: NestView) -> bool:
    """A 1-D vector times a matrix (`v @ W`, NumPy's matmul of a 1-D left operand):
    the GEMV above without its m dim. gpu.rows would take it (its reduction is the
    domain's innermost dim) and walk W down its columns, a row apart per lane."""
    from aicf.lowering.gpu_schedules.matmul_space import _bare_dims, _body_is_product

    if len(view.inputs) != 2 or len(view.outputs) != 1 or list(view.combiners) != ["add"]:
        return False
    red = view.reduction_dims
    if len(red) != 1 or (view.source is not None and not _body_is_product(view.source.body.block)):
        return False
    k = red[0]
    out = _bare_dims(view.outputs[0].map)
    ins = [_bare_dims(o.map) for o in view.inputs]
    if not out or any(i is None or k not in i for i in ins):
        return False
    n = out[-1]
    owners = [j for j in (0, 1) if n in ins[j]]  # type: ignore[operator]
    if len(owners) != 1 or view.extents[n] <= 1:
        return False
    return access_class(view.inputs[owners[0]], n, 2) == VECTOR


def body_math_mode(view: NestView) -> str:
    """math = "approx" where some special function of the body is only rounded to
    f16/bf16 (aicf/math_precision.py), else "precise"."""
    return PRECISE if view.source is None else math_mode(view.source.body.block.ops)


def _body_ops(view: NestView):
    """The ops that cost instructions: not constants, nor the widening of one (the
    emitter prints its value in the wider type)."""
    def free(op) -> bool:
        return op.name in ("arith.constant", "aicf_loop.yield") or (
            op.name == "arith.extf" and isinstance(op.operands[0].owner, arith.ConstantOp))

    return [op for op in view.source.body.block.ops if not free(op)]


def body_instructions(view: NestView, math: str = PRECISE) -> float:
    """Instructions per domain point of the body (aicf.cost.ops), with the approximate
    forms of the ops that get them under math = "approx"."""
    from aicf.cost.ops import scalar_cost

    if view.source is None:
        return 1.0
    n = sum(scalar_cost(op.name, math == APPROX and may_approximate(op)) for op in _body_ops(view))
    return max(float(n), 1.0)


def body_mufu(view: NestView, math: str = PRECISE) -> float:
    """Special-function-unit instructions per domain point of the body."""
    from aicf.cost.ops import scalar_mufu

    if view.source is None:
        return 0.0
    return float(sum(scalar_mufu(op.name, math == APPROX and may_approximate(op)) for op in _body_ops(view)))


def _guard_cuts_whole_vectors(view: NestView, vec: int) -> bool:
    """gpu.rows reads a guarded row in whole vectors of `vec` (or the nest has no
    guard): what rows.build asks of the guard without peel."""
    if view.bound is None or len(view.reduction_dims) != 1:
        return True
    try:
        guarded_length(view, vec)
    except NotImplementedError:
        return False
    return True


def rows_candidate(view: NestView, t: GpuTarget) -> Candidate:
    if not rows.applies(view):
        return Candidate("gpu.rows", 1, reason="not a reduction over the innermost dims")
    n = len(view.extents)
    vec = per_output.vector_width(view, n - 1, t.max_vector_bytes, allow_tail=False)
    M = prod(view.extents[d] for d in view.parallel_dims)
    R = prod(view.extents[d] for d in view.reduction_dims)
    # rows the vector width does not divide: peel each row to its aligned vectors
    pv = 1
    if len(view.reduction_dims) == 1:
        walkers = [o for o in view.inputs if n - 1 in o.map.used_dims()]
        acc_b = max((element_bytes(a) for a in view.acc_types), default=1)
        pv = peel_width(walkers, n - 1, R, acc_b, t.max_vector_bytes)
    peel = int(pv > vec)
    vec = max(vec, pv)
    if not peel and vec > 1 and not _guard_cuts_whole_vectors(view, vec):
        vec = 1  # a hand-written guard that ends rows mid-vector: the builder reads no part vectors
    eb = max((element_bytes(o.type.get_element_type()) for o in view.inputs), default=4)
    acc = sum(element_bytes(a) for a in view.acc_types)
    p = gcost.plan_rows(t, M, R // vec, vec * eb, operand_bytes(view), acc)

    def point(q: gcost.Plan) -> Schedule:
        params = {"vec": vec, **q.params, "unroll": gcost.UNROLL,
                  "minblocks": max(1, gcost.blocks_per_sm(t, q.params["block"]) // 2)}
        if peel:
            params["peel"] = 1
        return _with_cost("gpu.rows", split_params(view, "gpu.rows", params, t), q.cost)

    return Candidate("gpu.rows", 1, point(p), p.cost, alternatives=p.why,
                     space=lambda: [(point(q), q.cost) for q in p.space])


def matmul_candidate(view: NestView, t: GpuTarget) -> Candidate:
    roles = matmul.roles_of(view)
    if roles is None:
        return Candidate("gpu.matmul_tiled", 10, reason="not a matmul (body a*b summed over one k)")
    if why := matmul.f64_reason(view):
        return Candidate("gpu.matmul_tiled", 10, reason=why)
    prob = matmul.problem_of_view(view, roles, t)
    if min(prob.m, prob.n, prob.k, prob.batch) == 0:
        return Candidate("gpu.matmul_tiled", 10, reason=f"matmul {prob.describe()} has an empty dim")
    if prob.batch > t.max_grid_z:
        return Candidate("gpu.matmul_tiled", 10, reason=f"batch {prob.batch} > the grid's z limit {t.max_grid_z}")
    ranked = mcost.plan(prob, t)
    best = ranked[0]
    if not best.feasible:
        return Candidate("gpu.matmul_tiled", 10, reason=f"no feasible tile: {best.reason}")
    def point(e) -> Schedule:
        params = {**e.cand.params(), "bps": e.bps, "regs_est": e.regs, "bound": e.bound}
        return _with_cost("gpu.matmul_tiled", params, e.total)

    alts = [f"{e.cand.short()}: {e.total * 1e6:.1f}us ({e.bound})" for e in ranked[:6] if e.feasible]
    return Candidate("gpu.matmul_tiled", 10, point(best), best.total, alternatives=alts,
                     detail=lambda top: mcost.format_table(prob, ranked, t, top),
                     space=lambda: [(point(e), e.total) for e in ranked if e.feasible])


def wgmma_candidate(view: NestView, t: GpuTarget) -> Candidate:
    """Tier 11: f16/bf16 matmuls on Hopper's tensor cores, preferred over the CUDA-core
    tiles whenever the guard passes (cuBLAS still competes by cost)."""
    from aicf.math_precision import allow_tf32

    kind, tier = "gpu.wgmma", 11
    if not t.has_wgmma:
        return Candidate(kind, tier, reason=f"{t.name} has no wgmma (sm_90a only)")
    p = wgmma.problem_of_view(view, allow_tf32())
    refused = _tensor_core_refusal(kind, tier, p, t)
    if refused is not None:
        return refused
    out_bytes = element_bytes(view.outputs[0].type.get_element_type())
    ranked = tccost.plan(p, t, out_bytes, scalar_stores=not wgmma.stores_pairs(view))
    best = ranked[0]
    if not best.feasible:
        return Candidate(kind, tier, reason=f"no feasible tile: {best.reason}")

    pre = pre_cost = None
    if p.transpose_b:  # tf32 reads B k-major: the copy to N x K goes first
        pre = plan_view(wgmma.transpose_b_view(view)[0], t)
        pre_cost = pre.cost

    def point(e) -> Schedule:
        params = e.params()
        if e.split > 1:
            params["combine"] = _combine(view, e.split, t, per_output.split_workspaces, per_output.combine_view)
        if pre is not None:
            params["transpose_b"] = pre.schedule
        return _with_cost(kind, params, e.total + (pre_cost or 0.0))

    alts = [f"{e.short()}: {e.total * 1e6:.1f}us" for e in ranked[:6] if e.feasible]
    return Candidate(kind, tier, point(best), best.total + (pre_cost or 0.0), alternatives=alts,
                     space=lambda: [(point(e), e.total + (pre_cost or 0.0)) for e in ranked if e.feasible])


def _tensor_core_refusal(kind: str, tier: int, p, t: GpuTarget) -> Candidate | None:
    """The tensor-core kernels' common guard on the problem (`p`: the problem, or why
    the nest is not one): None where it passes."""
    if isinstance(p, str):
        return Candidate(kind, tier, reason=p)
    if min(p.m, p.n, p.k, p.batch) == 0:
        return Candidate(kind, tier, reason="the matmul has an empty dim")
    if p.batch > t.max_grid_z:
        return Candidate(kind, tier, reason=f"batch {p.batch} > the grid's z limit {t.max_grid_z}")
    return None


def _mma_bound(terms: dict) -> str:
    parts = {"tensor-core": terms["mma_us"], "shared-memory": terms["smem_us"], "L2": terms["l2_us"]}
    return max(parts, key=parts.get)  # type: ignore[arg-type]


def mma_sync_candidate(view: NestView, t: GpuTarget) -> Candidate:
    """Tier 11, as gpu.wgmma: f16/bf16 matmuls on the warp-level tensor cores (sm_80
    on), preferred over the CUDA-core tiles whenever the guard passes; on Hopper it
    competes with gpu.wgmma by cost (cuBLAS competes with both)."""
    kind, tier = mma_sync.KIND, 11
    if not t.has_mma_sync:
        return Candidate(kind, tier, reason=f"{t.name} has no mma.sync m16n8k16 (sm_80 on)")
    p = mma_sync.problem_of_view(view)
    refused = _tensor_core_refusal(kind, tier, p, t)
    if refused is not None:
        return refused
    out_bytes = element_bytes(view.outputs[0].type.get_element_type())
    ranked = tccost.mma_plan(p, t, out_bytes, scalar_stores=not wgmma.stores_pairs(view))
    best = ranked[0]
    if not best.feasible:
        return Candidate(kind, tier, reason=f"no feasible tile: {best.reason}")

    def point(e) -> Schedule:
        return _with_cost(kind, e.params(), e.total)

    tm = best.terms
    why = (f"{p.kind} A {p.a.major}-major B {p.b.major}-major, copies of {p.a.vec}/{p.b.vec} elements; "
           f"{tm['tiles']} tiles, {tm['blocks_per_sm']} blocks/SM, {tm['waves']} waves, "
           f"{_mma_bound(tm)} bound")
    alts = [f"{e.short()}: {e.total * 1e6:.1f}us" for e in ranked[:6] if e.feasible]
    return Candidate(kind, tier, point(best), best.total, reason=why, alternatives=alts,
                     space=lambda: [(point(e), e.total) for e in ranked if e.feasible])


def transpose_candidate(view: NestView, t: GpuTarget) -> Candidate:
    """Tier 2: preferred over gpu.per_output (whose model does not price the
    uncoalesced side of a transpose) whenever an input is contiguous along another
    dim than the outputs."""
    r = transpose.analyze(view)
    if isinstance(r, str):
        return Candidate("gpu.transpose_tiled", 2, reason=r)
    staged = [view.inputs[i] for i in r.staged]
    ebs = tuple(element_bytes(o.type.get_element_type()) for o in staged)
    prob = tcost.TransposeProblem(
        view.extents[r.load_dim], view.extents[r.store_dim],
        prod(view.extents[d] for d in r.batch), operand_bytes(view), ebs, body_instructions(view))
    points, rejected = [], ""
    for ti, to in tcost.TILES:
        for th in tcost.THREADS:
            for vi in tcost.VECS:
                for vo in tcost.VECS:
                    for smem in ("padded", "swizzle"):
                        q = {"tile_i": ti, "tile_o": to, "threads": th, "vec_in": vi, "vec_out": vo, "smem": smem}
                        bad = transpose.check(view, r, q, t)
                        if bad:
                            rejected = rejected or bad
                            continue
                        points.append((q, [transpose.smem_layout(smem, ti, vi, eb) for eb in ebs]))
    if not points:
        return Candidate("gpu.transpose_tiled", 2, reason=f"no legal tile: {rejected}")
    p, table = tcost.plan_transpose(t, prob, points)
    note = (f"load dim d{r.load_dim} (extent {prob.load_extent}), store dim d{r.store_dim} "
            f"(extent {prob.store_extent}), batch {prob.batch}, {len(staged)} staged input(s)")

    def point(q) -> Schedule:
        return _with_cost("gpu.transpose_tiled", q.params, q.cost)

    return Candidate("gpu.transpose_tiled", 2, point(p), p.cost, reason=note, alternatives=p.why,
                     detail=lambda top: tcost.format_table(table, top),
                     space=lambda: [(point(q), q.cost) for q in p.space])


NestCandidateFn = Callable[[NestView, GpuTarget], Candidate]

GPU_NEST_CANDIDATES: list[NestCandidateFn] = [
    wgmma_candidate, mma_sync_candidate, matmul_candidate, rows_candidate, per_output_candidate,
    transpose_candidate,
]
"""Generated kernels for a nest; library kernels add themselves (register_library)."""

def library_nest_candidates(nest: NestOp, view: NestView, t: GpuTarget) -> list[Candidate]:
    """cuBLAS and CUB through CuPy (aicf/cost/library.py): guard, parameters, price."""
    from aicf.cost.library import library_candidates
    from aicf.math_precision import allow_tf32

    out = []
    for lc in library_candidates(nest, t, tf32=allow_tf32()):
        if lc.params is None:
            out.append(Candidate(lc.kind, -1, reason=lc.reason or ""))
            continue
        sched = lc.schedule()
        out.append(Candidate(lc.kind, -1, Schedule(lc.kind, {k: v for k, v in sched.items() if k != "kind"}),
                             lc.time or 0.0, reason=", ".join(
                                 f"{k} {v * 1e6:.1f}us" for k, v in (lc.terms or {}).items() if k != "total")))
    return out


GPU_LIBRARY_CANDIDATES: list[Callable[[NestOp, NestView, GpuTarget], list[Candidate]]] = [library_nest_candidates]


def gpu_nest_candidates(view: NestView, t: GpuTarget, with_library: bool = True) -> list[Candidate]:
    cands = [f(view, t) for f in GPU_NEST_CANDIDATES]
    if view.bound is not None:  # a guarded nest (a split's partial): the kinds that take one
        return [c if c.kind in GUARDED_KINDS else Candidate(c.kind, c.tier, reason="cannot run a guarded nest")
                for c in cands]
    if with_library and view.source is not None:
        cands += [c for f in GPU_LIBRARY_CANDIDATES for c in f(view.source, view, t)]
    return cands


def select(cands: list[Candidate], force: tuple[str, ...] = ()) -> Candidate:
    """Forced kinds first (the first whose guard passes), else the most specific
    generated kernel that applies, replaced by a library kernel predicted faster."""
    for k in force:
        for c in cands:
            if c.kind == k and c.applies:
                return c
    generated = [c for c in cands if c.applies and c.tier >= 0]
    top = max(c.tier for c in generated)
    best = min((c for c in generated if c.tier == top), key=lambda c: c.cost)
    for c in cands:
        if c.applies and c.tier < 0 and c.cost < best.cost:
            best = c
    return best


def plan_view(view: NestView, t: GpuTarget, force: tuple[str, ...] = ()) -> Candidate:
    """The chosen candidate for a view (second passes of splits: generated only)."""
    return select(gpu_nest_candidates(view, t, with_library=view.source is not None), force)


# --- groups ----------------------------------------------------------------------------


def wgmma_epilogue_candidates(group: GroupOp, t: GpuTarget) -> list[Candidate] | None:
    """A matmul with its elementwise consumer (aicf-fuse-epilogue): one gpu.wgmma kernel
    (or gpu.mma_sync, sm_80 on) applying the consumer before its stores, against the
    members run one by one (each with its own best schedule, cuBLAS included), by
    predicted time. None when the group is not such a pair."""
    found = wgmma.epilogue_members(group)
    if isinstance(found, str):
        return None
    mm, ep, _ = found
    members = [plan_view(mm, t), plan_view(ep, t)]
    members_cost = sum(c.cost for c in members)
    kinds = " + ".join(c.kind for c in members)
    out = [Candidate("gpu.members", 0, Schedule("gpu.members", {}), members_cost, reason=f"{kinds}, one by one")]
    out_bytes = sum(element_bytes(o.type.get_element_type()) for o in ep.outputs)
    in_bytes = sum(element_bytes(o.type.get_element_type()) for o in ep.inputs if o.host is not found[2])
    # the body's work per element (approximate where its results only round to f16 or
    # bf16), plus a load of each operand other than the matmul's
    math = body_math_mode(ep)
    extra = {"math": math} if math == APPROX else {}
    body = body_instructions(ep, math) + sum(1 for o in ep.inputs if o.host is not found[2])
    # a precise division calls a slow path, around which the consumer warps keep their
    # accumulators (measured, GpuTarget.epilogue_division_instructions); div.full has none
    body += t.epilogue_division_instructions * sum(
        1 for op in _body_ops(ep) if op.name == "arith.divf" and not (math == APPROX and may_approximate(op)))
    scalar = not wgmma.stores_pairs(mm, ep.outputs)
    out.insert(0, _mma_sync_epilogue_candidate(mm, t, out_bytes + in_bytes, scalar, body, extra))
    alone = wgmma_candidate(mm, t)
    if not alone.applies:
        out.insert(0, Candidate("gpu.wgmma_epilogue", 0, reason=f"the matmul: {alone.reason}"))
        return out
    p = wgmma.problem_of_view(mm)
    ranked = tccost.plan(p, t, out_bytes + in_bytes, allow_split=False,  # type: ignore[arg-type]
                         scalar_stores=scalar, epilogue_instructions=body)
    best = ranked[0]

    def point(e) -> Schedule:
        return _with_cost("gpu.wgmma_epilogue", {**e.params(), **extra}, e.total)

    out.insert(0, Candidate("gpu.wgmma_epilogue", 0, point(best), best.total,
                            alternatives=[f"{e.short()}: {e.total * 1e6:.1f}us" for e in ranked[:6] if e.feasible],
                            space=lambda: [(point(e), e.total) for e in ranked if e.feasible]))
    return out


def _mma_sync_epilogue_candidate(mm: NestView, t: GpuTarget, out_bytes: int, scalar_stores: bool,
                                 body: float, extra: dict) -> Candidate:
    """gpu.mma_sync with the group's elementwise consumer applied in its epilogue."""
    kind = "gpu.mma_sync_epilogue"
    alone = mma_sync_candidate(mm, t)
    if not alone.applies:
        return Candidate(kind, 0, reason=f"the matmul: {alone.reason}")
    p = mma_sync.problem_of_view(mm)
    ranked = tccost.mma_plan(p, t, out_bytes, scalar_stores=scalar_stores,  # type: ignore[arg-type]
                             epilogue_instructions=body)
    best = ranked[0]
    if not best.feasible:
        return Candidate(kind, 0, reason=f"no feasible tile: {best.reason}")

    def point(e) -> Schedule:
        return _with_cost(kind, {**e.params(), **extra}, e.total)

    return Candidate(kind, 0, point(best), best.total,
                     alternatives=[f"{e.short()}: {e.total * 1e6:.1f}us" for e in ranked[:6] if e.feasible],
                     space=lambda: [(point(e), e.total) for e in ranked if e.feasible])


def gpu_group_candidates(group: GroupOp, name: str, t: GpuTarget) -> list[Candidate]:
    fused = wgmma_epilogue_candidates(group, t)
    if fused is not None:
        return fused
    gv = row_group.analyze(group, name)
    if not isinstance(gv, str) and (gv.rows == 0 or gv.row_len == 0):
        gv = "an empty row group (a zero extent): its members run as they are"  # found by the GPU fuzzer
    if isinstance(gv, str):
        return [
            Candidate("gpu.row_group", 1, reason=gv),
            Candidate("gpu.members", 0, Schedule("gpu.members", {"why": gv}), reason=gv),
        ]
    p = plan_row_group(gv, t)
    math = math_mode(op for m in gv.members if m.view.source is not None for op in m.view.source.body.block.ops)
    extra = {"math": math} if math == APPROX else {}
    return [
        Candidate("gpu.row_group", 1, _with_cost("gpu.row_group", {**p.params, **extra}, p.cost), p.cost,
                  alternatives=p.why,
                  space=lambda: [(_with_cost("gpu.row_group", {**q.params, **extra}, q.cost), q.cost)
                                 for q in p.space]),
        # running the members one by one is always possible; priced as the sum of
        # its nests would be, but the one kernel never moves more bytes
        Candidate("gpu.members", 0, Schedule("gpu.members", {}), reason="one kernel per member nest"),
    ]


def gpu_space(fn, op, t: GpuTarget, top_tier_only: bool = True) -> dict[str, list[tuple[Schedule, float]]]:
    """Every point of the generated schedule kinds that apply to `op` (a nest or a
    group of `fn`), with its predicted seconds: what calibration and tuning time.
    By default only the most specific kind that applies (the one the planner picks
    among), since a general kind's model is not meant to rank a specialised shape."""
    from aicf.lowering.loop_to_gpu import nest_view

    if isinstance(op, GroupOp):
        groups = [o for o in fn.walk() if isinstance(o, GroupOp)]
        found = gpu_group_candidates(op, f"{fn.sym_name.data}_group{groups.index(op)}", t)
    else:
        found = gpu_nest_candidates(nest_view(fn, op, 0), t, with_library=False)
    found = [c for c in found if c.applies and c.space is not None and c.tier >= 0]
    if top_tier_only and found:
        top = max(c.tier for c in found)
        found = [c for c in found if c.tier == top]
    return {c.kind: c.space() for c in found}  # type: ignore[misc]

