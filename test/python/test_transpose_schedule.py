"""gpu.transpose_tiled without a GPU: the guard's roles, the space's legality, the
shared tile's bank conflicts as the built kernel accesses it (the pass's lane
evaluator over the IR), and the price's terms."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import NoneAttr

from aicf.context import make_context
from aicf.cost import transpose as tcost
from aicf.diagnostics import parse_module
from aicf.dialects import gpu
from aicf.dialects.loop import NestOp
from aicf.lowering.gpu_schedules import transpose
from aicf.lowering.loop_to_gpu import nest_view
from aicf.passes.gpu.bank_conflicts import warp_access
from aicf.passes.gpu.swizzle_smem import LaneEvaluator, access_costs, accesses_of
from aicf.passes.loop.candidates import per_output_candidate, transpose_candidate
from aicf.target import H100

from test_gpu_transpose import transpose_program


def _module(text):
    return parse_module(make_context(), text, "<t>")


def _view(text):
    mod = _module(text)
    fn = next(o for o in mod.ops if o.name == "func.func")
    nest = next(o for o in fn.walk() if isinstance(o, NestOp))
    return nest_view(fn, nest, 0)


@pytest.mark.parametrize("xs, perm, load, store, batch", [
    ((64, 32), (1, 0), 0, 1, ()),
    ((4, 96, 64), (0, 2, 1), 1, 2, (0,)),
    ((17, 5, 33), (2, 1, 0), 0, 2, (1,)),
])
def test_roles(xs, perm, load, store, batch):
    r = transpose.analyze(_view(transpose_program(xs, perm, "f32", "copy")))
    assert r == transpose.Roles(load, store, batch, (0,))


def test_same_order_operand_is_read_in_place():
    r = transpose.analyze(_view(transpose_program((64, 32), (1, 0), "f32", "add_y")))
    assert r.staged == (0,)  # x staged; y (already in the output's order) is not


@pytest.mark.parametrize("xs, why", [((1, 5), "a copy"), ((5, 1), "a copy"), ((0, 7), "an empty domain")])
def test_degenerate_shapes_are_left_to_per_output(xs, why):
    view = _view(transpose_program(xs, (1, 0), "f32", "copy"))
    assert why in transpose.analyze(view)
    assert not transpose_candidate(view, H100).applies


def test_space_points_are_legal_and_cover_vectors():
    view = _view(transpose_program((1000, 36), (1, 0), "f32", "neg"))
    c = transpose_candidate(view, H100)
    assert c.applies
    r = transpose.analyze(view)
    pts = [s for s, _ in c.space()]
    for s in pts:
        assert transpose.check(view, r, dict(s.params), H100) is None
    # 1000 and 36 divide by 4: 4-vectors are offered both ways, both layouts too
    assert {s["vec_in"] for s in pts} == {1, 2, 4} and {s["vec_out"] for s in pts} == {1, 2, 4}
    assert {s["smem"] for s in pts} == {"padded", "swizzle"}
    # x of 1000x37: loads along its contiguous 37 stay scalar, stores along 1000 do not
    view = _view(transpose_program((1000, 37), (1, 0), "f32", "neg"))
    pts = [s for s, _ in transpose_candidate(view, H100).space()]
    assert {s["vec_in"] for s in pts} == {1} and {s["vec_out"] for s in pts} == {1, 2, 4}


def _kernel_tiles(text, lowered=False):
    """The kernel and its shared tiles: with their layouts (the pipeline up to
    aicf-swizzle-smem), or `lowered`: flat, indexed by the layout's arith (the
    whole pipeline, what the emitter prints)."""
    from aicf.compiler import run_pipeline, target_pipeline

    mod = _module(text)
    passes = target_pipeline("cuda")
    assert passes[-1] == "aicf-lower-smem-layouts"
    run_pipeline(mod, passes if lowered else passes[:-1])
    (k,) = [o for o in mod.walk() if isinstance(o, gpu.KernelOp)]
    return k, [o.result for o in k.walk() if isinstance(o, gpu.AllocSharedOp)]


@pytest.mark.parametrize("dt, sched", [
    ("f32", dict(tile_i=32, tile_o=32, threads=256, vec_in=1, vec_out=1, smem="padded")),
    ("f32", dict(tile_i=32, tile_o=32, threads=256, vec_in=1, vec_out=1, smem="swizzle")),
    ("f32", dict(tile_i=64, tile_o=64, threads=256, vec_in=1, vec_out=1, smem="padded")),
    ("f32", dict(tile_i=64, tile_o=64, threads=512, vec_in=1, vec_out=1, smem="swizzle")),
])
def test_built_kernel_is_conflict_free(dt, sched):
    """The tile's accesses as the built kernel makes them (the pass's per-lane
    evaluation of the IR): the column reads conflict under row-major, not under
    the schedule's layout."""
    k, (tile,) = _kernel_tiles(transpose_program((512, 256), (1, 0), dt, "copy", None, sched))
    shape, layout = tile.type.get_shape(), tile.type.layout
    eb = 4 if dt == "f32" else 2
    accs = accesses_of(tile, LaneEvaluator(k))
    assert len(accs) == 2 * (sched["tile_i"] * sched["tile_o"] // sched["threads"])
    before = sum(warp_access(NoneAttr(), shape, eb, f, v).conflicts for f, v in accs)
    after = sum(warp_access(layout, shape, eb, f, v).conflicts for f, v in accs)
    assert before > 0 and after == 0
    # the lowered kernel (flat tile, arith indices) costs the same, access by access
    laid_out = [c.wavefronts for c in access_costs(tile, LaneEvaluator(k))]
    k, (flat,) = _kernel_tiles(transpose_program((512, 256), (1, 0), dt, "copy", None, sched), lowered=True)
    assert flat.type.get_num_dims() == 1 and isinstance(flat.type.layout, NoneAttr)
    assert [c.wavefronts for c in access_costs(flat, LaneEvaluator(k))] == laid_out


def test_model_wavefronts_match_the_built_kernel():
    """aicf/cost/transpose.py's wavefronts of a tile equal the built kernel's warp 0
    accesses times the warps that make them."""
    sched = dict(tile_i=64, tile_o=64, threads=256, vec_in=4, vec_out=2, smem="swizzle")
    k, (tile,) = _kernel_tiles(transpose_program((512, 256), (1, 0), "f32", "copy", None, sched))
    accs = accesses_of(tile, LaneEvaluator(k))
    warp0 = sum(warp_access(tile.type.layout, tile.type.get_shape(), 4, f, v).wavefronts for f, v in accs)
    model = tcost.smem_wavefronts(sched, 4, tile.type.layout)
    assert model == warp0 * sched["threads"] // 32
    k, (flat,) = _kernel_tiles(transpose_program((512, 256), (1, 0), "f32", "copy", None, sched), lowered=True)
    assert sum(c.wavefronts for c in access_costs(flat, LaneEvaluator(k))) == warp0


def test_price_is_at_least_the_dram_floor_and_prefers_real_tiles():
    view = _view(transpose_program((8192, 8192), (1, 0), "f32", "copy"))
    c = transpose_candidate(view, H100)
    floor = 2 * 8192 * 8192 * 4 / H100.dram_bandwidth
    assert floor < c.cost < 1.3 * floor
    costs = {tuple(sorted((k, v) for k, v in s.params.items() if k != "est_ns")): cost for s, cost in c.space()}
    # the pick is the cheapest within the model's resolution (ties keep the earlier point)
    assert min(costs.values()) <= c.cost <= 1.02 * min(costs.values())
    # the general schedule does not see the uncoalesced side: it is cheaper on paper,
    # which is why the tiers, not the prices, decide between them
    assert per_output_candidate(view, H100).cost < c.cost * 1.2
