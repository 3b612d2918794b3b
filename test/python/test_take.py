"""take (gather along an axis) on the cpu target and, marked gpu, on cuda: integer
indices of both widths, every axis, out-of-range indices (a negative one counts from
the end once, then it is clamped, as JAX's gathers), the tracer's `x[ids]`,
`np.take` and `wpe[range(n)]`. The reference is NumPy's take of explicitly
wrapped-and-clamped indices.

Run on the GPU machine: `python3 -m pytest -m gpu test/python/test_take.py`.
`take_programs()` (no GPU needed) gives the loop-level programs whose kernels
test_nvcc_kernels.py compiles with nvcc.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import tensor as T

from gpu_support import cp, gpu
from test_gpu_fusion import FUSE_PIPELINE

RNG = np.random.default_rng(11)

TAKE = """func.func @main(%x: tensor<{xs}x{dt}>, %i: tensor<{is_}x{it}>) -> tensor<{ys}x{dt}> {{
  %y = aicf_tensor.take %x, %i axis = {axis} : (tensor<{xs}x{dt}>, tensor<{is_}x{it}>) -> tensor<{ys}x{dt}>
  func.return %y : tensor<{ys}x{dt}>
}}"""

# an embedding lookup whose result a fused elementwise nest reads
EMBED = """func.func @main(%w: tensor<{V}x{D}xf32>, %p: tensor<{N}x{D}xf32>, %i: tensor<{N}xi64>) -> tensor<{N}x{D}xf32> {{
  %e = aicf_tensor.take %w, %i axis = 0 : (tensor<{V}x{D}xf32>, tensor<{N}xi64>) -> tensor<{N}x{D}xf32>
  %s = aicf_tensor.add %e, %p : (tensor<{N}x{D}xf32>, tensor<{N}x{D}xf32>) -> tensor<{N}x{D}xf32>
  %y = aicf_tensor.tanh %s : (tensor<{N}x{D}xf32>) -> tensor<{N}x{D}xf32>
  func.return %y : tensor<{N}x{D}xf32>
}}"""

CASES = [  # source shape, index shape, axis, element type, index type
    ((10, 4), (7,), 0, "f32", "i64"),
    ((3, 5, 6), (2, 3), 1, "f16", "i32"),
    ((3, 5, 6), (4,), -1, "f32", "i64"),
    ((6,), (), 0, "f64", "i32"),
    ((5, 3), (0,), 0, "f32", "i64"),
    ((4, 1000), (3, 129), 1, "f32", "i32"),  # more elements than one block
]
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def fmt(shape) -> str:
    return "x".join(map(str, shape)) if shape else ""


def program(xs, is_, axis, dt, it) -> str:
    ax = axis % len(xs)
    ys = (*xs[:ax], *is_, *xs[ax + 1 :])
    text = TAKE.format(xs=fmt(xs), is_=fmt(is_), ys=fmt(ys), axis=axis, dt=dt, it=it)
    return text.replace("tensor<x", "tensor<")  # rank-0 types


def reference(x: np.ndarray, i: np.ndarray, axis: int) -> np.ndarray:
    n = x.shape[axis]
    i = i.astype(np.int64)
    return np.take(x, np.clip(np.where(i < 0, i + n, i), 0, n - 1), axis=axis)


def inputs(xs, is_, axis, dt, it):
    x = RNG.standard_normal(xs).astype(NP[dt])
    n = xs[axis]
    # every in-range index, negative ones, and ones past either end
    i = RNG.integers(-3 * n, 3 * n, is_).astype(NP[it])
    return x, i


def take_programs() -> list[str]:
    """Loop-level texts (entry @main) of this file's programs, for the nvcc CI test."""
    out = []
    for text in [program(*c) for c in CASES] + [EMBED.format(V=50, D=96, N=33)]:
        module = parse_module(make_context(), text, "<take>")
        run_pipeline(module, FUSE_PIPELINE)
        out.append(str(module))
    return out


@pytest.mark.parametrize("case", CASES, ids=[f"{fmt(c[0])}-{fmt(c[1])}-ax{c[2]}-{c[3]}-{c[4]}" for c in CASES])
def test_take_cpu(case):
    x, i = inputs(*case)
    exe = aicf.compile(program(*case), target="cpu")
    y = exe(x, i)
    ref = reference(x, i, case[2])
    assert y.dtype == ref.dtype and y.shape == ref.shape
    np.testing.assert_array_equal(y, ref)


def test_out_of_range_indices_clamp_after_one_wrap():
    """The rule, spelt out on a vector: -1 is the last, -n the first, what is still
    out of range goes to the nearest end."""
    x = np.arange(5, dtype=np.float32) * 10
    i = np.array([0, 4, 5, 99, -1, -5, -6, -99, np.iinfo(np.int64).min, np.iinfo(np.int64).max])
    exe = aicf.compile(program((5,), (10,), 0, "f32", "i64"), target="cpu")
    np.testing.assert_array_equal(exe(x, i), [0, 40, 40, 40, 40, 0, 0, 0, 0, 40])


def test_embedding_lookup_feeds_a_fused_consumer_cpu():
    w, p = RNG.standard_normal((50, 96)).astype(np.float32), RNG.standard_normal((33, 96)).astype(np.float32)
    i = RNG.integers(0, 50, 33)
    y = aicf.compile(EMBED.format(V=50, D=96, N=33), target="cpu")(w, p, i)
    ref = np.tanh(w.astype(np.float64)[i] + p)
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-7)


# --- the tracer ---------------------------------------------------------------------------------


def ops_of(fn, *args) -> list[str]:
    module = aicf.trace(fn, *args)
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return [op.name for op in f.body.block.ops]


def test_fancy_indexing_is_a_take():
    w, ids = RNG.standard_normal((20, 6)).astype(np.float32), np.array([[3, -1], [25, 0]])
    f = aicf.jit(lambda w, ids: w[ids])
    np.testing.assert_array_equal(f(w, ids), reference(w, ids, 0))
    assert T.TakeOp.name in ops_of(lambda w, ids: w[ids], w, ids)
    g = aicf.jit(lambda w, ids: w[:, ids] * 2)
    np.testing.assert_array_equal(g(w, ids.astype(np.int32) % 6), w[:, ids % 6] * 2)
    h = aicf.jit(lambda w, ids: w[None, ..., ids])
    np.testing.assert_array_equal(h(w, ids % 6), w[None, ..., ids % 6])


def test_np_take_and_constant_indices():
    x = RNG.standard_normal((4, 9)).astype(np.float32)
    f = aicf.jit(lambda x: np.take(x, [[8, 0], [2, 2]], axis=1) + np.take(x, 5))
    np.testing.assert_allclose(f(x), np.take(x, [[8, 0], [2, 2]], axis=1) + np.take(x, 5), rtol=1e-6)
    g = aicf.jit(lambda x: x[[3, 1, 1]])
    np.testing.assert_array_equal(g(x), x[[3, 1, 1]])


def test_range_index_is_a_slice():
    """wpe[range(len(ids))], picoGPT's positional embedding: an in-range arithmetic
    sequence is a slice (a view its reader reads in place), not a gather."""
    w = RNG.standard_normal((16, 4)).astype(np.float32)
    ids = np.arange(5)
    names = ops_of(lambda w, ids: w[range(len(ids))], w, ids)
    assert T.SliceOp.name in names and T.TakeOp.name not in names
    f = aicf.jit(lambda w, ids: w[range(len(ids))] + w[range(13, 0, -3)])
    np.testing.assert_array_equal(f(w, ids), w[range(5)] + w[range(13, 0, -3)])


@pytest.mark.parametrize("index", [range(14, 20), [3, 16], np.array([[0], [-17]]), (Ellipsis, [4, 0]), (None, [-20])])
def test_constant_indices_out_of_range_are_located_errors(index):
    """NumPy raises IndexError; a constant index past the end was clamped (w[[3, 16]]
    of 16 rows read row 15 for 16), where np.take(mode='raise') already raised."""
    w = RNG.standard_normal((16, 4)).astype(np.float32)
    with pytest.raises(aicf.CompileError, match=r"test_take.py:\d+: error: index -?\d+ is out of bounds for axis \d with size (16|4)"):
        aicf.jit(lambda w: w[index])(w)
    ids = np.array([3, 16], np.int64)  # traced indices are clamped (a kernel cannot raise)
    np.testing.assert_array_equal(aicf.jit(lambda w, i: w[i])(w, ids), w[[3, 15]])


# --- cuda ---------------------------------------------------------------------------------------


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=[f"{fmt(c[0])}-{fmt(c[1])}-ax{c[2]}-{c[3]}-{c[4]}" for c in CASES])
def test_take_cuda(case):
    x, i = inputs(*case)
    exe = aicf.compile(program(*case), target="cuda")
    y = cp.asnumpy(exe(cp.asarray(x), cp.asarray(i)))
    np.testing.assert_array_equal(y, reference(x, i, case[2]))


@gpu
@pytest.mark.gpu
def test_embedding_lookup_cuda():
    V, D, N = 50257, 768, 1024
    w, p = RNG.standard_normal((V, D)).astype(np.float32), RNG.standard_normal((N, D)).astype(np.float32)
    i = RNG.integers(-V, 2 * V, N)
    y = aicf.compile(EMBED.format(V=V, D=D, N=N), target="cuda")(cp.asarray(w), cp.asarray(p), cp.asarray(i))
    ref = np.tanh(reference(w.astype(np.float64), i, 0) + p)
    np.testing.assert_allclose(cp.asnumpy(y), ref, rtol=2e-6, atol=1e-6)
