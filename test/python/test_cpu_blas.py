"""Matmul through OpenBLAS on the cpu target (the cpu.blas_gemm schedule) against NumPy
float64: 2-D, batched with broadcast batch dims, folded batch dims, vectors, 0- and
1-size dims, odd sizes, f64, transposed operands, strided NumPy views; and the
diagnostic for a hand-written schedule that does not fit its nest.

Bounds (DESIGN.md): matmul f32 relative error < 1e-4; f64 < 1e-12 here.

`compile_forced` puts the guard's schedule on every gemm nest whatever the cost says,
so the BLAS path is what runs even for the shapes where the loop nest is cheaper, with
each call whole or split into column chunks (OpenMP tasks).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.backend.c.blas import SCHEDULE_ATTR  # noqa: E402
from aicf.compiler import TENSOR_PIPELINE, run_pipeline  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402
from aicf.dialects.loop import NestOp  # noqa: E402
from aicf.errors import CompileError  # noqa: E402
from aicf.cost.blas import gemm_params  # noqa: E402

RNG = np.random.default_rng(7)
NP_DT = {"f32": np.float32, "f64": np.float64}
TOL = {"f32": 1e-4, "f64": 1e-12}


def ttype(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def matmul_text(sa, sb, dt):
    ta, tb = ttype(sa, dt), ttype(sb, dt)
    return (f"func.func @mm(%a: {ta}, %b: {tb}) -> tensor<*x{dt}> {{\n"
            f"  %0 = aicf_tensor.matmul %a, %b : ({ta}, {tb}) -> tensor<*x{dt}>\n"
            f"  func.return %0 : tensor<*x{dt}>\n}}")  # fmt: skip


def compile_forced(text, tasks_n=1):
    """Lower to loops, schedule every gemm nest the guard accepts as BLAS (each call
    split into `tasks_n` column chunks where N allows), build."""
    module = parse_module(make_context(), text, "<test>")
    run_pipeline(module, TENSOR_PIPELINE)
    forced = 0
    for nest in module.walk():
        if isinstance(nest, NestOp):
            p = gemm_params(nest)
            if not isinstance(p, str):
                p = replace(p, tasks_n=max(1, min(tasks_n, p.sizes[1])))
                nest.attributes[SCHEDULE_ATTR] = p.attr()
                forced += 1
    return aicf.compile(module, target="cpu"), forced


def rel_error(out, ref):
    assert not np.any(np.isnan(out))
    n = np.linalg.norm(ref)
    d = np.linalg.norm(out.astype(np.float64) - ref)
    return d / n if n else d


def rand(shape, dt):
    return RNG.standard_normal(shape).astype(NP_DT[dt])


def check(out, a, b, dt):
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert out.shape == ref.shape
    assert rel_error(out, ref) < TOL[dt]


SHAPES = [
    ((64, 32), (32, 48)),            # 2-D
    ((33, 65), (65, 17)),            # odd, non-square
    ((2, 9, 13), (13, 11)),          # batch dim folds into M: one call
    ((3, 1, 5, 7), (4, 7, 6)),       # broadcast batch dims: a loop of 12 calls
    ((6, 1, 8), (1, 8, 3)),          # size-1 batch dim on the second operand
    ((1, 1), (1, 1)),                # 1-size dims
    ((1, 7), (7, 1)),
    ((7,), (7, 5)),                  # vector @ matrix
    ((5, 7), (7,)),                  # matrix @ vector
    ((0, 4), (4, 3)),                # empty M
    ((4, 0), (0, 3)),                # empty K: zeros
    ((2, 0, 3), (3, 4)),             # empty folded M
]  # fmt: skip


@pytest.mark.parametrize("tasks_n", [1, 4])
@pytest.mark.parametrize("dt", ["f32", "f64"])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_through_blas(sa, sb, dt, tasks_n):
    exe, forced = compile_forced(matmul_text(sa, sb, dt), tasks_n)
    assert forced == 1
    routine = {"f32": "scipy_cblas_sgemm(", "f64": "scipy_cblas_dgemm("}[dt]
    empty = 0 in (*sa, *sb)
    assert (routine in exe.source) != empty
    a, b = rand(sa, dt), rand(sb, dt)
    check(exe(a, b), a, b, dt)


def test_compile_chooses_blas_for_a_large_matmul_only():
    big = aicf.compile(matmul_text((256, 256), (256, 256), "f32"), target="cpu")
    assert "scipy_cblas_sgemm(" in big.source
    assert 'kind = "cpu.blas_gemm"' in big.explain()
    a, b = rand((256, 256), "f32"), rand((256, 256), "f32")
    check(big(a, b), a, b, "f32")
    tiny = aicf.compile(matmul_text((2, 2), (2, 2), "f32"), target="cpu")
    assert "cblas" not in tiny.source


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_half_precision_matmul_is_not_blas(dt):
    exe = aicf.compile(matmul_text((128, 128), (128, 128), dt), target="cpu")
    assert "cblas" not in exe.source


def test_transposed_operands():
    """aicf_tensor.transpose on both operands (a^T @ b^T), then batched (x @ y^T per
    batch, perm [0, 2, 1])."""
    text = """
func.func @tt(%a: tensor<40x24xf32>, %b: tensor<56x40xf32>) -> tensor<*xf32> {
  %at = aicf_tensor.transpose %a perm = [1, 0] : (tensor<40x24xf32>) -> tensor<*xf32>
  %bt = aicf_tensor.transpose %b perm = [1, 0] : (tensor<56x40xf32>) -> tensor<*xf32>
  %0 = aicf_tensor.matmul %at, %bt : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @bt(%x: tensor<3x20x16xf32>, %y: tensor<3x24x16xf32>) -> tensor<*xf32> {
  %yt = aicf_tensor.transpose %y perm = [0, 2, 1] : (tensor<3x24x16xf32>) -> tensor<*xf32>
  %0 = aicf_tensor.matmul %x, %yt : (tensor<3x20x16xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}"""
    tt = aicf.compile(text, target="cpu", entry="tt")
    assert "scipy_cblas_sgemm(" in tt.source
    a, b = rand((40, 24), "f32"), rand((56, 40), "f32")
    check(tt(a, b), a.T, b.T, "f32")
    bt = aicf.compile(text, target="cpu", entry="bt")
    x, y = rand((3, 20, 16), "f32"), rand((3, 24, 16), "f32")
    check(bt(x, y), x, y.transpose(0, 2, 1), "f32")


def _views(base_a, base_b):
    """(name, a, b): strided NumPy views of the operands of a (48 x 40) @ (40 x 56)."""
    return [
        ("a column-major (CblasTrans)", np.asfortranarray(base_a), base_b),
        ("both transposed views", base_a.T.copy().T, base_b.T.copy().T),
        ("row offset and padding (lda > K)",
         np.pad(base_a, ((1, 0), (3, 5)))[1:, 3:43], base_b),
        ("steps along both dims (loop nest)", np.repeat(np.repeat(base_a, 2, 0), 2, 1)[::2, ::2], base_b),
        ("negative row stride (loop nest)", base_a[::-1].copy()[::-1], base_b[::-1].copy()[::-1]),
        ("stride 0 from broadcast_to (loop nest)",
         base_a, np.broadcast_to(base_b[:1], base_b.shape)),
    ]  # fmt: skip


@pytest.mark.parametrize("tasks_n", [1, 2])
@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_strided_views(dt, tasks_n):
    exe, _ = compile_forced(matmul_text((48, 40), (40, 56), dt), tasks_n)
    assert "cblas" in exe.source
    for name, a, b in _views(rand((48, 40), dt), rand((40, 56), dt)):
        assert not (a.flags.c_contiguous and b.flags.c_contiguous), name
        out = exe(a, b)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        assert rel_error(out, ref) < TOL[dt], name


def test_strided_batched_view_unfolds():
    """A strided 3-D x in x @ W: the batch dim no longer folds (its stride is only known
    at run time), so the calls loop over it."""
    exe = aicf.compile(matmul_text((4, 24, 32), (32, 40), "f32"), target="cpu")
    assert "fold = 1" in str(exe.module)
    big = rand((4, 30, 45), "f32")
    x = big[:, 3:27, 5:37]
    w = rand((32, 40), "f32")
    check(exe(x, w), x, w, "f32")


def test_wrong_schedule_is_a_located_error():
    text = """
func.func @mm(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 8, 8] iterators = [parallel, parallel, reduction]
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
      maps = [(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)] combiners = [add]
      attrs = {aicf.schedule = {kind = "cpu.blas_gemm", routine = "sgemm", m = 0, n = 1, k = 2, fold = 0, tasks_n = 1,
               trans_a = "T", lda = 8, trans_b = "N", ldb = 8, ldc = 8}} {
  ^bb0(%x: f32, %w: f32):
    %p = arith.mulf %x, %w : f32
    aicf_loop.yield %p : f32
  }
  func.return
}"""
    with pytest.raises(CompileError) as e:
        aicf.compile(text, target="cpu")
    assert str(e.value).startswith("<string>:3:3: error: 'aicf_loop.nest' aicf.schedule "
                                   "cpu.blas_gemm does not fit this nest: input #0 with strides "
                                   "[8, 1] is not trans_a = 'T' with lda = 8")  # fmt: skip
