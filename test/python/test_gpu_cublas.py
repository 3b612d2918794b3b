"""cuBLAS as the cuda target's matmul (`aicf_gpu.library_call "cublas.gemm"`): the
nests get the guard's parameters as their schedule (what the planner writes), and
the program runs the call through CuPy. Numerics against NumPy float64 over 2-D,
batched with broadcast batch dims, transposed operands, f32/f16/bf16, zero-size
dims, odd sizes and strided inputs, outputs poisoned first; the order with the
kernels around the call, a user stream, and the profiler's record of the call.

GPU only (`pytest -m gpu`); test_cublas_guard.py checks the parameters on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from aicf.context import make_context
from aicf.cost.library import CUBLAS_GEMM, cublas_gemm_candidate
from aicf.diagnostics import parse_module
from aicf.dialects import gpu as gpu_d
from aicf.dialects.loop import NestOp
from aicf.lowering.gpu_schedules.library import to_attr

from gpu_support import cp, gpu
from test_gpu_matmul import as_f64, check, make_operand, mm_program, reference, rel_err, to_dtype

def scheduled(text: str, tf32: bool = False):
    """The module with every matmul nest scheduled onto cuBLAS (what aicf-schedule
    writes when cuBLAS wins or is forced)."""
    mod = parse_module(make_context(), text, "<cublas>")
    for nest in [o for o in mod.walk() if isinstance(o, NestOp)]:
        p = cublas_gemm_candidate(nest, tf32=tf32)
        if isinstance(p, dict):
            nest.attributes["aicf.schedule"] = DictionaryAttr(
                {"kind": StringAttr(CUBLAS_GEMM), **{k: to_attr(v) for k, v in p.items()}}
            )
    return mod


def program(text: str, tf32: bool = False, sync: str = "full-sync"):
    from aicf.backend.cuda.program import compile_cuda

    prog = compile_cuda(scheduled(text, tf32), "main", sync=sync)
    assert any(isinstance(o, gpu_d.LibraryCallOp) for o in prog.module.walk())
    return prog


def poisoned(shape, dt):
    if dt == "f32":
        return cp.full(shape, np.nan, dtype=np.float32)
    bits = cp.full(shape, 0xFFFF, dtype=np.uint16)  # a NaN in f16 and in bf16
    return bits.view(np.float16) if dt == "f16" else bits


CASES = [
    # (m, n, k, dt, a_batch, b_batch, a_t, b_t, strided)
    (64, 48, 32, "f32", (), (), False, False, (False, False)),
    (33, 17, 9, "f32", (), (), False, False, (False, False)),
    (257, 129, 65, "f32", (), (), False, False, (False, False)),
    (1, 4096, 4096, "f32", (), (), False, False, (False, False)),
    (40, 24, 16, "f32", (), (), True, False, (False, False)),
    (40, 24, 16, "f32", (), (), False, True, (False, False)),
    (40, 24, 16, "f32", (), (), True, True, (False, False)),
    (12, 10, 8, "f32", (3,), (3,), False, False, (False, False)),
    (12, 10, 8, "f32", (2, 1), (5,), False, False, (False, False)),  # a loop of calls
    (12, 10, 8, "f32", (4,), (), False, True, (False, False)),  # B broadcast: stride 0
    (12, 10, 8, "f32", (), (2, 3), True, False, (False, False)),  # A broadcast over two dims
    (64, 32, 48, "f16", (), (), False, False, (False, False)),
    (33, 17, 65, "f16", (2,), (2,), True, False, (False, False)),
    (64, 32, 48, "bf16", (), (), False, False, (False, False)),
    (33, 17, 65, "bf16", (3,), (), False, True, (False, False)),
    (24, 20, 12, "f32", (), (), False, False, (True, False)),  # strided A: copied
    (24, 20, 12, "f32", (2,), (2,), False, False, (True, True)),
    (24, 20, 12, "f16", (), (), False, False, (False, True)),
    (0, 5, 4, "f32", (), (), False, False, (False, False)),
    (5, 0, 4, "f32", (), (), False, False, (False, False)),
    (5, 6, 0, "f32", (), (), False, False, (False, False)),  # empty sum: zeros
    (5, 6, 4, "f32", (0,), (0,), False, False, (False, False)),
    (1, 1, 1, "bf16", (), (), False, False, (False, False)),
    # f16 rows of C 42 bytes apart (misaligned), A's and B's aligned
    (40, 21, 32, "f16", (), (), False, True, (False, False)),
    (40, 21, 32, "bf16", (3,), (3,), False, True, (False, False)),
]


def _id(c):
    m, n, k, dt, ab, bb, at, bt, st = c
    return f"{dt}-{m}x{n}x{k}-a{'x'.join(map(str, ab))}-b{'x'.join(map(str, bb))}{'-aT' if at else ''}{'-bT' if bt else ''}{'-strided' if any(st) else ''}"


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_cublas_gemm(case):
    m, n, k, dt, a_batch, b_batch, a_t, b_t, strided = case
    text, info = mm_program(m, n, k, dt, a_batch, b_batch, a_t, b_t, strided)
    prog = program(text)
    rng = np.random.default_rng(m * 7 + n * 5 + k)
    a = make_operand(rng, info["a"], dt, strided[0])
    b = make_operand(rng, info["b"], dt, strided[1])
    out = poisoned(info["c"], dt)
    prog(_dev(a), _dev(b), out)
    got = as_f64(cp.asnumpy(out), dt)
    check(got, reference(a, b, info), dt)


def _dev(x):
    """A device copy of a host operand with its strides (a strided view stays one)."""
    if x.flags.c_contiguous:
        return cp.asarray(x)
    base = x.base if x.base is not None else x
    dev = cp.asarray(np.ascontiguousarray(base))
    off = (x.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    return cp.ndarray(x.shape, x.dtype, dev.data + off, strides=x.strides)


@gpu
@pytest.mark.gpu
def test_tf32_is_used_only_when_asked():
    """f32 in TF32 rounds the inputs to 10 mantissa bits: a measurable error that
    the f32 call does not have."""
    text, info = mm_program(256, 256, 1024, "f32")
    rng = np.random.default_rng(3)
    a = make_operand(rng, info["a"], "f32", False)
    b = make_operand(rng, info["b"], "f32", False)
    ref = reference(a, b, info)
    e32 = rel_err(cp.asnumpy(program(text)(a, b)).astype(np.float64), ref)
    etf = rel_err(cp.asnumpy(program(text, tf32=True)(a, b)).astype(np.float64), ref)
    assert e32 < 1e-5 and 1e-5 < etf < 5e-3, (e32, etf)


AROUND = """
func.func @main(%x: memref<48x32xf32>, %w: memref<32x24xf32>, %y: memref<48x24xf32>) attributes {aicf.num_outputs = 1 : i64} {
  %t = memref.alloc() : memref<48x32xf32>
  %u = memref.alloc() : memref<48x24xf32>
  aicf_loop.nest domain = [48, 32] iterators = [parallel, parallel]
      ins(%x : memref<48x32xf32>) outs(%t : memref<48x32xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %s = math.sin %v : f32
    aicf_loop.yield %s : f32
  }
  aicf_loop.nest domain = [48, 24, 32] iterators = [parallel, parallel, reduction]
      ins(%t, %w : memref<48x32xf32>, memref<32x24xf32>) outs(%u : memref<48x24xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add] {
  ^bb0(%p: f32, %q: f32):
    %r = arith.mulf %p, %q : f32
    aicf_loop.yield %r : f32
  }
  aicf_loop.nest domain = [48, 24] iterators = [parallel, parallel]
      ins(%u : memref<48x24xf32>) outs(%y : memref<48x24xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)] {
  ^bb0(%v: f32):
    %s = math.tanh %v : f32
    aicf_loop.yield %s : f32
  }
  memref.dealloc %t : memref<48x32xf32>
  memref.dealloc %u : memref<48x24xf32>
  func.return
}
"""


def _around_inputs():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (48, 32)).astype(np.float32)
    w = rng.uniform(-1, 1, (32, 24)).astype(np.float32)
    return x, w, np.tanh(np.sin(x.astype(np.float64)) @ w.astype(np.float64))


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("sync", ["event-record", "full-sync", "none"])
def test_order_with_kernels_on_a_user_stream(sync):
    """sin kernel -> cuBLAS -> tanh kernel, on a non-default stream, through the
    launch plan (CuPy inputs) and the general path (NumPy inputs)."""
    prog = program(AROUND, sync=sync)
    prog.debug = True
    x, w, ref = _around_inputs()
    s = cp.cuda.Stream()  # blocking: the NumPy uploads (default stream) come first
    for args in ((cp.asarray(x), cp.asarray(w)), (x, w)):
        y = prog(*args, stream=s)
        s.synchronize()
        got = cp.asnumpy(y).astype(np.float64)
        assert not np.isnan(got).any()
        assert rel_err(got, ref) < 1e-5


@gpu
@pytest.mark.gpu
def test_profiler_records_the_call():
    import aicf

    prog = program(AROUND)
    x, w, _ = _around_inputs()
    with aicf.profiler() as prof:
        prog(cp.asarray(x), cp.asarray(w))
    names = [r.kernel for r in prof.records]
    assert len(names) == 3 and names[1].startswith("cublas.gemm"), names
    rec = prof.records[1]
    assert rec.flops == 2 * 48 * 24 * 32
    assert rec.nbytes == 4 * (48 * 32 + 32 * 24 + 48 * 24)
    assert rec.ms > 0 and rec.ms == rec.ms
    assert "cublas.gemm" in prof.table()


@gpu
@pytest.mark.gpu
def test_dtype_is_checked_at_the_boundary():
    """bf16 crosses the API as uint16 bits; a float32 array where bf16 is expected is
    refused before cuBLAS sees it."""
    from aicf.errors import ArgumentError

    text, info = mm_program(8, 8, 8, "bf16")
    prog = program(text)
    a = np.zeros(info["a"], np.float32)
    b = to_dtype(np.zeros(info["b"], np.float32), "bf16")
    with pytest.raises(ArgumentError, match="bf16 is passed as uint16"):
        prog(a, b)


PADDED = [
    # (m, n, k, dt, a_t, b_t): C's rows misaligned for cuBLAS's fast kernels
    (40, 21, 32, "f16", False, False),
    (64, 33, 48, "bf16", True, False),
    (1000, 1001, 64, "f16", False, True),
    (7, 5, 3, "f32", False, False),
]


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", PADDED, ids=lambda c: f"{c[3]}-{c[0]}x{c[1]}x{c[2]}{'-aT' if c[4] else ''}{'-bT' if c[5] else ''}")
def test_cublas_gemm_into_a_padded_c(case):
    """pad_c: C computed into a scratch of aligned rows, then copied into place; the
    poisoned output is written everywhere and nowhere else."""
    from aicf.backend.cuda.program import compile_cuda

    m, n, k, dt, a_t, b_t = case
    text, info = mm_program(m, n, k, dt, (), (), a_t, b_t)
    mod = scheduled(text)
    per = 16 // {"f32": 4, "f16": 2, "bf16": 2}[dt]
    for nest in [o for o in mod.walk() if isinstance(o, NestOp)]:
        sched = dict(nest.attributes["aicf.schedule"].data)
        sched["pad_c"] = to_attr(-(-n // per) * per)
        nest.attributes["aicf.schedule"] = DictionaryAttr(sched)
    prog = compile_cuda(mod, "main", sync="full-sync")
    calls = [o for o in prog.module.walk() if isinstance(o, gpu_d.LibraryCallOp)]
    assert len(calls) == 1 and len(calls[0].outputs) == 2
    rng = np.random.default_rng(m + n + k)
    a = make_operand(rng, info["a"], dt, False)
    b = make_operand(rng, info["b"], dt, False)
    out = poisoned(info["c"], dt)
    prog(_dev(a), _dev(b), out)
    check(as_f64(cp.asnumpy(out), dt), reference(a, b, info), dt)


@gpu
@pytest.mark.gpu
def test_a_padded_matmul_replays_as_a_graph():
    """A pad_c call's scratch is the program's own buffer, so graph replays (which reuse
    it) give the same result as the first, kernel-by-kernel call. (The planner pads
    only a C whose pitch alone is misaligned; the schedule is written here.)"""
    from aicf.backend.cuda.program import compile_cuda

    m, n, k = 2048, 4097, 768
    text, info = mm_program(m, n, k, "f16")
    # two products (a graph takes a program of two steps or more), into C and C2
    nest = text[text.index("  aicf_loop.nest"):text.index("  func.return")]
    text = (text.replace("%c: memref<2048x4097xf16>)", "%c: memref<2048x4097xf16>, %c2: memref<2048x4097xf16>)")
            .replace("aicf.num_outputs = 1", "aicf.num_outputs = 2")
            .replace("  func.return", nest.replace("outs(%c :", "outs(%c2 :") + "  func.return"))
    mod = scheduled(text)
    for nest in [o for o in mod.walk() if isinstance(o, NestOp)]:
        sched = dict(nest.attributes["aicf.schedule"].data)
        sched["pad_c"] = to_attr(4104)
        nest.attributes["aicf.schedule"] = DictionaryAttr(sched)
    prog = compile_cuda(mod, "main")
    prog.graphs = True
    assert "pad_c" in str(prog.module)
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(info["a"]) / 16).astype(np.float16)
    b = (rng.standard_normal(info["b"]) / 16).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    da, db = _dev(a), _dev(b)  # the same buffers each call: the graph's key
    outs = [[cp.asnumpy(o).astype(np.float64) for o in prog(da, db)] for _ in range(4)]
    assert len(prog._graphs) == 1
    for got, got2 in outs:
        assert np.max(np.abs(got - ref)) < 5e-3 and np.max(np.abs(got2 - ref)) < 5e-3
        np.testing.assert_array_equal(got, outs[0][0])
        np.testing.assert_array_equal(got2, outs[0][1])
