"""aicf-lower-smem-layouts: the arith index it generates from a shared layout's index
function equals the layout's definition at every index of the buffer (a reference
written here from the layouts' formulas, in NumPy); the NumPy evaluation the layout
search prices with (bank_conflicts.layout_offsets) and the per-lane evaluator of the
bank-conflict counter (swizzle_smem.LaneEvaluator) agree with it; the flat buffer is
the layout's footprint; and the emitter prints the lowered IR only."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import NoneAttr

from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import gpu
from aicf.errors import CompileError
from aicf.passes.gpu.bank_conflicts import WARP, layout_offsets
from aicf.passes.gpu.swizzle_smem import LaneEvaluator

SW = gpu.SwizzleLayoutAttr
PAD = gpu.PaddedLayoutAttr


def reference(layout, shape) -> np.ndarray:
    """Offsets of every index of `shape` (in row-major order of the indices), from
    the layouts' formulas as documented (Triton's swizzle and padded layouts)."""
    idx = np.indices(shape).reshape(len(shape), -1).astype(np.int64)
    lin = np.ravel_multi_index(tuple(idx), shape).astype(np.int64)
    if isinstance(layout, SW):
        v, p, m = layout.vec.data, layout.per_phase.data, layout.max_phase.data
        rows, cols = shape[-2], shape[-1]
        r, c = idx[-2], idx[-1]
        plane = lin // (rows * cols)  # the leading (batch) dims, row-major
        return plane * rows * cols + r * cols + (((c // v) ^ ((r // p) % m)) * v + c % v)
    assert isinstance(layout, PAD)
    return lin + (lin // layout.interval.data) * layout.pad.data


CASES = [
    (SW(4, 1, 8), (8, 128)),
    (SW(4, 2, 8), (2, 16, 128)),
    (SW(1, 1, 32), (32, 32)),
    (SW(8, 4, 4), (64, 64)),
    (SW(2, 1, 4), (3, 5, 16)),
    (SW(4, 1, 2), (2, 3, 4, 8)),
    (PAD(128, 4), (2, 8, 128)),
    (PAD(32, 1), (32, 32)),
    (PAD(64, 2), (16, 64)),
    (PAD(48, 2), (10, 32)),
    (PAD(7, 3), (40,)),
    (PAD(5, 1), (3, 4, 6)),
]


def _ids(case):
    lay, shape = case
    name = "swz" if isinstance(lay, SW) else "pad"
    params = [a.data for a in lay.parameters]
    return f"{name}{'_'.join(map(str, params))}-{'x'.join(map(str, shape))}"


def _type(layout, shape, elt="f32") -> str:
    from xdsl.printer import Printer
    import io

    s = io.StringIO()
    Printer(stream=s).print_attribute(layout)
    return f"memref<{'x'.join(map(str, shape))}x{elt}, {s.getvalue()}, #aicf_gpu.address_space<shared>>"


def _lowered(layout, shape):
    """A kernel storing to and loading from every index (the index values are kernel
    parameters), after aicf-lower-smem-layouts."""
    t = _type(layout, shape)
    n = len(shape)
    params = ", ".join(f"%i{d} : index" for d in range(n))
    ix = ", ".join(f"%i{d}" for d in range(n))
    text = f"""
aicf_gpu.kernel @k(%x : f32, {params}) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {{
  %s = aicf_gpu.alloc_shared : {t}
  memref.store %x, %s[{ix}] : {t}
  aicf_gpu.barrier
  %v = memref.load %s[{ix}] : {t}
  aicf_gpu.return
}}"""
    mod = parse_module(make_context(), text, "<t>")
    run_pipeline(mod, ["aicf-lower-smem-layouts"])
    (k,) = [o for o in mod.walk() if isinstance(o, gpu.KernelOp)]
    return k


_NUMPY = {
    arith.AddiOp: np.add, arith.MuliOp: np.multiply, arith.XOrIOp: np.bitwise_xor,
    arith.AndIOp: np.bitwise_and, arith.ShRUIOp: np.right_shift, arith.DivUIOp: np.floor_divide,
    arith.RemUIOp: np.remainder,
}  # fmt: skip


def _evaluate(k: gpu.KernelOp, inputs: dict) -> dict:
    """The kernel's index arith on NumPy arrays (an interpreter of the arith ops'
    unsigned semantics, independent of the layouts' code)."""
    env = dict(inputs)
    for op in k.body.block.ops:
        if isinstance(op, arith.ConstantOp):
            env[op.result] = np.int64(op.value.value.data)
        elif type(op) in _NUMPY:
            env[op.results[0]] = _NUMPY[type(op)](env[op.operands[0]], env[op.operands[1]])
        elif op.name.startswith("arith."):
            raise AssertionError(f"unexpected {op.name} in a lowered index")
    return env


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_lowered_index_is_the_layouts_offset_at_every_index(case):
    layout, shape = case
    k = _lowered(layout, shape)
    ref = reference(layout, shape)
    # the NumPy evaluation the layout search prices with is the same function
    idx = np.indices(shape).reshape(len(shape), -1).T
    assert np.array_equal(layout_offsets(layout, idx, shape), ref)
    # the flat buffer: one past the largest offset, identity layout, same space
    (alloc,) = [o for o in k.walk() if isinstance(o, gpu.AllocSharedOp)]
    ft = alloc.result.type
    assert ft.get_shape() == (int(ref.max()) + 1,) == (gpu.layout_footprint(layout, shape),)
    assert isinstance(ft.layout, NoneAttr) and gpu.is_shared(ft)
    assert len(np.unique(ref)) == ref.size  # distinct elements, distinct offsets
    # both accesses index the flat buffer at the generated arith, evaluated at all indices
    (store,) = [o for o in k.walk() if isinstance(o, memref.StoreOp)]
    (load,) = [o for o in k.walk() if isinstance(o, memref.LoadOp)]
    assert store.memref is alloc.result and load.memref is alloc.result
    assert len(store.indices) == 1 and store.indices[0] is load.indices[0]  # computed once
    args = list(k.args)[1:]
    env = _evaluate(k, {a: idx[:, d].astype(np.int64) for d, a in enumerate(args)})
    assert np.array_equal(np.broadcast_to(env[store.indices[0]], ref.shape), ref)
    # the bank-conflict counter's per-lane evaluator reads the same ops (32 indices a time)
    for start in range(0, len(idx), WARP):
        chunk = idx[start:start + WARP]
        lanes = np.resize(chunk, (WARP, len(shape)))  # the last chunk repeats its indices
        ev = LaneEvaluator(k)
        for d, a in enumerate(args):
            ev.memo[a] = tuple(int(x) for x in lanes[:, d])
        got = ev.lanes(store.indices[0])
        assert got is not None
        assert list(got[: len(chunk)]) == list(ref[start:start + WARP])


def test_only_index_arith_of_the_expected_kinds():
    """Shifts and masks for powers of two, unsigned division only where the divisor
    is none; nothing signed (indices are non-negative)."""
    kinds = set()
    for layout, shape in CASES:
        kinds |= {o.name for o in _lowered(layout, shape).walk() if o.name.startswith("arith.")}
    assert kinds <= {"arith.constant", "arith.addi", "arith.muli", "arith.xori", "arith.andi",
                     "arith.shrui", "arith.divui", "arith.remui"}
    assert {"arith.xori", "arith.andi", "arith.shrui", "arith.divui"} <= kinds
    assert "arith.divui" not in {o.name for o in _lowered(SW(4, 2, 8), (2, 16, 128)).walk()}


def test_emitter_prints_the_lowered_ir_and_refuses_a_layout():
    from aicf.backend.cuda.emit import emit_cuda

    k = _lowered(SW(4, 1, 8), (8, 128))
    src = emit_cuda(k.parent_op())
    assert "float s_1[1024];" in src.replace("__shared__ __align__(16) ", "")
    assert " ^ " in src and ">>" in src
    t = _type(SW(4, 1, 8), (8, 128))
    text = f"""
aicf_gpu.kernel @k(%x : f32, %i : index) grid = [1, 1, 1] block = [32, 1, 1] smem = 0 {{
  %s = aicf_gpu.alloc_shared : {t}
  memref.store %x, %s[%i, %i] : {t}
  aicf_gpu.return
}}"""
    mod = parse_module(make_context(), text, "<t>")
    with pytest.raises(CompileError, match="run aicf-lower-smem-layouts before -t cuda"):
        emit_cuda(mod)


def test_vector_accesses_in_loops_keep_their_types():
    t = _type(SW(4, 1, 8), (2, 8, 128))
    text = f"""
aicf_gpu.kernel @k(%x : memref<1024xf32>) grid = [1, 1, 1] block = [256, 1, 1] smem = 8192 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = aicf_gpu.thread_id x
  %s = aicf_gpu.alloc_shared dynamic_offset = 0 : {t}
  %r = arith.remui %t, %c8 : index
  %q = arith.divui %t, %c8 : index
  %col = arith.muli %q, %c4 : index
  scf.for %st = %c0 to %c2 step %c1 {{
    %v = aicf_gpu.load_vector %x[%col] : memref<1024xf32> -> vector<4xf32>
    aicf_gpu.store_vector %v, %s[%st, %r, %col] : vector<4xf32>, {t}
    %w = aicf_gpu.load_vector %s[%st, %r, %col] : {t} -> vector<4xf32>
    aicf_gpu.store_vector %w, %x[%col] : vector<4xf32>, memref<1024xf32>
    scf.yield
  }}
  aicf_gpu.return
}}"""
    mod = parse_module(make_context(), text, "<t>")
    run_pipeline(mod, ["aicf-lower-smem-layouts"])
    (alloc,) = [o for o in mod.walk() if isinstance(o, gpu.AllocSharedOp)]
    assert alloc.result.type.get_shape() == (2048,) and alloc.dynamic_offset.value.data == 0
    uses = [u.operation for u in alloc.result.uses]
    assert sorted(o.name for o in uses) == ["aicf_gpu.load_vector", "aicf_gpu.store_vector"]
    ld = next(o for o in uses if isinstance(o, gpu.LoadVectorOp))
    st = next(o for o in uses if isinstance(o, gpu.StoreVectorOp))
    assert ld.indices[0] is st.indices[0]
    assert ld.result.type.get_shape() == (4,) and ld.result.uses  # still feeds its store
    # warp 0, stage 0 (the loop counter at its lower bound): the laid-out offsets
    ev = LaneEvaluator(next(o for o in mod.walk() if isinstance(o, gpu.KernelOp)))
    want = [gpu.layout_offset(SW(4, 1, 8), (0, lane % 8, (lane // 8) * 4), (2, 8, 128)) for lane in range(WARP)]
    assert list(ev.lanes(st.indices[0])) == want
