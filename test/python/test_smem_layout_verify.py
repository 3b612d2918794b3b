"""The aicf_gpu.alloc_shared / load_vector / store_vector verifiers on shared layouts
and dynamic offsets: every swizzle layout the verifier accepts is a permutation of
each row; every vector access of a laid-out buffer it accepts (at an aligned index)
lands on contiguous, width-aligned physical elements (what aicf-lower-smem-layouts
emits: one vector at the first element's offset); dynamic_offset is bounded."""

from __future__ import annotations

import itertools

import pytest

from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import gpu
from aicf.errors import CompileError


def _alloc_ok(layout: str, shape, smem=0, off=None) -> bool:
    t = f"memref<{'x'.join(map(str, shape))}xf32, {layout}, #aicf_gpu.address_space<shared>>"
    dyn = f" dynamic_offset = {off}" if off is not None else ""
    text = (f"aicf_gpu.kernel @k(%x : f32) grid = [1, 1, 1] block = [32, 1, 1] smem = {smem} {{\n"
            f"  %s = aicf_gpu.alloc_shared{dyn} : {t}\n  aicf_gpu.return\n}}\n")
    try:
        parse_module(make_context(), text, "<t>")
        return True
    except CompileError:
        return False


@pytest.mark.parametrize("vec,mp", [(1, 2), (2, 4), (4, 8), (4, 2), (8, 4)])
def test_accepted_swizzle_is_a_row_permutation(vec, mp):
    for cols in range(1, 65):
        rows = 2 * mp
        ok = _alloc_ok(f"#aicf_gpu.swizzle<vec = {vec}, per_phase = 1, max_phase = {mp}>", (rows, cols))
        lay = gpu.SwizzleLayoutAttr(vec, 1, mp)
        perm = all(sorted(lay.offset((r, c), (rows, cols)) for c in range(cols))
                   == list(range(r * cols, (r + 1) * cols)) for r in range(rows))
        assert ok == (cols % (vec * mp) == 0)
        if ok:
            assert perm


def _vector_ok(lay, shape, w, idx) -> bool:
    from xdsl.dialects.builtin import Float32Type, VectorType, MemRefType
    from xdsl.utils.exceptions import VerifyException
    mt = MemRefType(Float32Type(), list(shape), lay, gpu.shared_space())
    try:
        gpu._check_vector_access(VectorType(Float32Type(), [w]), mt, len(shape))
        return True
    except VerifyException:
        return False


LAYOUTS = [gpu.PaddedLayoutAttr(iv, p) for iv, p in itertools.product((1, 2, 4, 8, 16), (0, 1, 2, 4, 8))] + [
    gpu.SwizzleLayoutAttr(v, pp, m) for v, pp, m in itertools.product((1, 2, 4, 8), (1, 2), (2, 4))]


@pytest.mark.parametrize("lay", LAYOUTS, ids=str)
@pytest.mark.parametrize("w", [1, 2, 4])
def test_accepted_vector_access_is_contiguous_and_aligned(lay, w):
    shape = (8, 16)
    if not _vector_ok(lay, shape, w, None):
        return
    for r in range(shape[0]):
        for c in range(0, shape[1], w):  # the verifier's (and lowering's) aligned indices
            offs = [lay.offset((r, c + k), shape) for k in range(w)]
            assert offs == list(range(offs[0], offs[0] + w)), (lay, r, c)
            assert offs[0] % w == 0, (lay, r, c)


def test_dynamic_offset_bounds():
    t = "#aicf_gpu.padded<interval = 16, pad = 4>"
    # 64 f32 padded: 64 + 3 * 4 = 76 elements = 304 bytes
    assert _alloc_ok(t, (64,), 304, 0)
    assert not _alloc_ok(t, (64,), 300, 0)
    assert _alloc_ok(t, (64,), 320, 16)
    assert not _alloc_ok(t, (64,), 320, 20)
    assert not _alloc_ok(t, (64,), 320, -4)
    assert not _alloc_ok(t, (64,), 320, 2)
