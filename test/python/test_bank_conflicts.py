"""Shared-memory bank conflicts from layouts' index functions (Hopper's model: 32
banks of 4 bytes; 4-, 8-, 16-byte accesses in 1, 2, 4 phases), and that the layouts
`aicf-swizzle-smem` picks remove them where row-major conflicts."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import NoneAttr

from aicf.cost import matmul as cm
from aicf.dialects.gpu import PaddedLayoutAttr, SwizzleLayoutAttr
from aicf.passes.gpu.bank_conflicts import (
    access_cost,
    layout_offset,
    layout_offsets,
    wavefronts_many,
    warp_access,
)
from aicf.passes.gpu.swizzle_smem import choose_layout

ROW = NoneAttr()


def test_access_cost_basics():
    assert access_cost([4 * l for l in range(32)], 4).wavefronts == 1  # 32 banks, one word each
    assert access_cost([0] * 32, 4).wavefronts == 1  # broadcast
    assert access_cost([128 * l for l in range(32)], 4).wavefronts == 32  # one bank, 32 words
    assert access_cost([256 * (l % 2) for l in range(32)], 4).conflicts == 1  # 2 words in bank 0
    c = access_cost([16 * l for l in range(32)], 16)  # float4 per lane, contiguous
    assert (c.wavefronts, c.phases, c.conflicts) == (4, 4, 0)
    c = access_cost([32 * l for l in range(32)], 16)  # float4 at a 32-byte stride: 2-way
    assert (c.wavefronts, c.conflicts) == (8, 4)
    c = access_cost([8 * l for l in range(32)], 8)  # 8-byte accesses: 2 phases of 16
    assert (c.wavefronts, c.phases) == (2, 2)
    assert access_cost([None] * 16 + [4 * l for l in range(16)], 4).wavefronts == 1


def test_vectorised_matches_scalar_model():
    rng = np.random.default_rng(0)
    shape = (2, 8, 128)
    for lay in (ROW, SwizzleLayoutAttr(4, 1, 8), SwizzleLayoutAttr(4, 2, 4), PaddedLayoutAttr(128, 4)):
        for vec in (1, 2, 4):
            idx = np.stack([rng.integers(0, 2, (6, 32)), rng.integers(0, 8, (6, 32)),
                            rng.integers(0, 128 // vec, (6, 32)) * vec], -1)
            active = rng.random((6, 32)) < 0.9
            offs = layout_offsets(lay, idx, shape) * 4
            assert [layout_offset(lay, tuple(i), shape) * 4 for i in idx[0]] == list(offs[0])
            fast = wavefronts_many(offs, active, 4 * vec)
            slow = [access_cost([int(o) if a else None for o, a in zip(offs[i], active[i])], 4 * vec).wavefronts
                    for i in range(6)]
            assert list(fast) == slow


def test_column_read_of_a_32x32_tile():
    """Lane l reads element (l, c): row-major puts the whole warp in one bank."""
    shape = (32, 32)
    col = lambda lane: (lane, 5)  # noqa: E731
    row = lambda lane: (5, lane)  # noqa: E731
    assert warp_access(ROW, shape, 4, col).degree == 32
    assert warp_access(ROW, shape, 4, row).conflicts == 0
    # padding each row by one word and XOR-ing the column with the row both remove
    # the conflict; padding wins the tie (affine index), the swizzle is the choice
    # where padding is not allowed (dynamic shared memory)
    choice = choose_layout(shape, 4, [(col, 1), (row, 1)])
    assert choice.cost == 2 and choice.baseline == 33
    assert isinstance(choice.layout, PaddedLayoutAttr)
    swz = choose_layout(shape, 4, [(col, 1), (row, 1)], allow_padding=False)
    assert isinstance(swz.layout, SwizzleLayoutAttr) and swz.cost == 2
    for lay in (choice.layout, swz.layout):
        assert warp_access(lay, shape, 4, col).conflicts == 0
        assert warp_access(lay, shape, 4, row).conflicts == 0


def test_row_only_tile_keeps_row_major():
    choice = choose_layout((32, 32), 4, [(lambda lane: (3, lane), 1)])
    assert isinstance(choice.layout, NoneAttr)


def _matmul_a_tile(c: cm.Candidate):
    """The accesses of the matmul schedule's A tile, for every warp of the block."""
    shape = (c.stages, c.bk, c.bm)
    per_warp = [cm.smem_accesses(c, "a", w) for w in range(c.warps)]
    return shape, per_warp


@pytest.mark.parametrize("bm,bn,bk", [(128, 128, 8), (128, 128, 16), (64, 64, 32)])
def test_matmul_transposed_a_stores(bm, bn, bk):
    """A arrives along k (float4 per thread) and is stored K-major: row-major has
    2-way (or worse) conflicts on those stores; the chosen layout (padding or swizzle)
    and the best swizzle both have none, and the fragment reads stay conflict-free
    16-byte accesses."""
    tm = 8 if bm >= 128 else 4
    c = cm.Candidate(bm, bn, bk, tm, tm, 2, 4, 4, "k", "n", 4, True)
    shape, per_warp = _matmul_a_tile(c)
    stores = [(f, v) for acc in per_warp for name, f, v, _ in acc if name.startswith("store")]
    reads = [(f, v) for acc in per_warp for name, f, v, _ in acc if name.startswith("read")]
    row_conf = sum(warp_access(ROW, shape, 4, f, v).conflicts for f, v in stores)
    assert row_conf > 0
    layout = cm._tile_layout(c, "a", True)[0]
    assert isinstance(layout, SwizzleLayoutAttr | PaddedLayoutAttr)
    swz = choose_layout(shape, 4, [(f, v) for f, v in stores + reads], allow_padding=False).layout
    assert isinstance(swz, SwizzleLayoutAttr) and swz.vec.data == 4  # reads stay float4
    for lay in (layout, swz):
        assert sum(warp_access(lay, shape, 4, f, v).conflicts for f, v in stores) == 0
        assert sum(warp_access(lay, shape, 4, f, v).conflicts for f, v in reads) == 0


def test_swizzle_keeps_vector_groups_contiguous():
    lay = SwizzleLayoutAttr(4, 2, 8)
    shape = (8, 128)
    for r in range(8):
        for c0 in range(0, 128, 4):
            offs = [layout_offset(lay, (r, c0 + j), shape) for j in range(4)]
            assert offs == list(range(offs[0], offs[0] + 4)) and offs[0] % 4 == 0
    # and it is a permutation of each row
    for r in range(8):
        assert sorted(layout_offset(lay, (r, c), shape) for c in range(128)) == list(range(r * 128, r * 128 + 128))


def test_generated_kernel_is_conflict_free():
    """The A tile of the 4096^3 kernel, as the pass sees it in the IR (index
    functions evaluated per lane): conflicts under row-major, none under the chosen
    layout, and none in the lowered IR the emitter prints (the flat buffer's arith
    indices evaluated per lane), wavefront for wavefront what the layout predicted."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects import gpu
    from aicf.compiler import run_pipeline, target_pipeline
    from aicf.passes.gpu.swizzle_smem import LaneEvaluator, access_costs, accesses_of

    text = """
func.func @main(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4096, 4096, 4096] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>) outs(%c : memref<4096x4096xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}"""
    mod = parse_module(make_context(), text, "<mm>")
    passes = target_pipeline("cuda", gpu="h100", force=("gpu.matmul_tiled",))
    assert passes[-2:] == ["aicf-swizzle-smem", "aicf-lower-smem-layouts"]
    run_pipeline(mod, passes[:-1])
    (k,) = [o for o in mod.walk() if isinstance(o, gpu.KernelOp)]
    allocs = [o for o in k.walk() if isinstance(o, gpu.AllocSharedOp)]
    a_tile = allocs[0].result
    layout = a_tile.type.layout
    assert isinstance(layout, SwizzleLayoutAttr | PaddedLayoutAttr)
    shape = a_tile.type.get_shape()
    accs = accesses_of(a_tile, LaneEvaluator(k))
    assert accs
    before = sum(warp_access(ROW, shape, 4, f, v).conflicts for f, v in accs)
    after = sum(warp_access(layout, shape, 4, f, v).conflicts for f, v in accs)
    assert before > 0 and after == 0
    laid_out = [c.wavefronts for c in access_costs(a_tile, LaneEvaluator(k))]
    run_pipeline(mod, passes[-1:])
    (k,) = [o for o in mod.walk() if isinstance(o, gpu.KernelOp)]
    flat = [o for o in k.walk() if isinstance(o, gpu.AllocSharedOp)][0].result
    assert flat.type.get_num_dims() == 1 and isinstance(flat.type.layout, NoneAttr)
    lowered = access_costs(flat, LaneEvaluator(k))
    assert [c.wavefronts for c in lowered] == laid_out
    assert sum(c.conflicts for c in lowered) == 0
