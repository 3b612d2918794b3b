"""CUDA graphs (backend/cuda/program.py): a program of several kernels called again on
the same buffers replays one captured graph, with the results of launching kernel by
kernel; new data in the same buffers is read at replay; a second stream gets its own
graph; cuBLAS calls are captured with the kernels, library calls that allocate
(CuPy's reductions) never; graphs=False turns it off."""

from __future__ import annotations

import numpy as np
import pytest

import aicf
from aicf.backend.cuda.program import graphs_default

from gpu_support import cp, gpu

CHAIN = """
func.func @main(%x: tensor<256x1000xf32>) -> tensor<256x1000xf32> {
  %m = aicf_tensor.reduce_max %x axes = [-1] keepdims : (tensor<256x1000xf32>) -> tensor<256x1xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<256x1000xf32>, tensor<256x1xf32>) -> tensor<256x1000xf32>
  %e = aicf_tensor.exp %d : (tensor<256x1000xf32>) -> tensor<256x1000xf32>
  %s = aicf_tensor.reduce_sum %e axes = [-1] keepdims : (tensor<256x1000xf32>) -> tensor<256x1xf32>
  %y = aicf_tensor.div %e, %s : (tensor<256x1000xf32>, tensor<256x1xf32>) -> tensor<256x1000xf32>
  func.return %y : tensor<256x1000xf32>
}
"""


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_graphs_are_on_unless_turned_off(monkeypatch):
    monkeypatch.delenv("AICF_CUDA_GRAPHS", raising=False)
    assert graphs_default() is True
    monkeypatch.setenv("AICF_CUDA_GRAPHS", "0")
    assert graphs_default() is False


@gpu
def test_replay_matches_kernel_by_kernel():
    exe = aicf.compile(CHAIN, target="cuda", fuse=False)  # one kernel per op
    prog = exe._program
    prog.graphs = True
    rng = np.random.default_rng(0)
    x = cp.asarray(rng.standard_normal((256, 1000), dtype=np.float32))
    out = cp.empty((256, 1000), cp.float32)
    for _ in range(3):
        prog(x, out)
    assert len(prog._graphs) == 1  # captured on the second call, replayed on the third
    np.testing.assert_allclose(cp.asnumpy(out), _softmax(cp.asnumpy(x)), rtol=1e-5, atol=1e-7)
    # new data in the same buffers: the graph reads it at replay
    x[...] = cp.asarray(rng.standard_normal((256, 1000), dtype=np.float32)) * 3
    prog(x, out)
    np.testing.assert_allclose(cp.asnumpy(out), _softmax(cp.asnumpy(x)), rtol=1e-5, atol=1e-7)
    # another stream: a graph of its own, ordered on that stream
    s = cp.cuda.Stream(non_blocking=True)
    for _ in range(2):
        prog(x, out, stream=s)
    s.synchronize()
    assert len(prog._graphs) == 2
    np.testing.assert_allclose(cp.asnumpy(out), _softmax(cp.asnumpy(x)), rtol=1e-5, atol=1e-7)


@gpu
def test_outputs_the_program_allocates_are_replayed_too(monkeypatch):
    """`y = exe(x)`: the graph writes outputs of its own and each call gets fresh
    arrays (copies), so an earlier result is never overwritten by a later call.
    (Programs of a few launches launch directly instead: the limit is lowered here so
    that the five kernels replay.)"""
    from aicf.backend.cuda import program

    monkeypatch.setattr(program, "DIRECT_MAX_LAUNCHES", 1)
    exe = aicf.compile(CHAIN, target="cuda", fuse=False)
    prog = exe._program
    prog.graphs = True
    rng = np.random.default_rng(4)
    x = cp.asarray(rng.standard_normal((256, 1000), dtype=np.float32))
    results = []
    for k in range(4):
        x[...] = cp.asarray(rng.standard_normal((256, 1000), dtype=np.float32)) * (k + 1)
        results.append((cp.asnumpy(x), exe(x)))
    assert len(prog._graphs) == 1  # seen on the first call, captured on the second
    assert len({y.data.ptr for _, y in results}) == len(results)
    for xs, y in results:
        np.testing.assert_allclose(cp.asnumpy(y), _softmax(xs), rtol=1e-5, atol=1e-7)


@gpu
def test_off_means_no_capture():
    exe = aicf.compile(CHAIN, target="cuda", fuse=False)
    prog = exe._program
    prog.graphs = False
    x = cp.asarray(np.random.default_rng(1).standard_normal((256, 1000), dtype=np.float32))
    out = cp.empty((256, 1000), cp.float32)
    for _ in range(3):
        prog(x, out)
    assert len(prog._graphs) == 0


@gpu
def test_cublas_calls_are_captured_with_the_kernels():
    mm = """
func.func @main(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %c = aicf_tensor.matmul %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %d = aicf_tensor.tanh %c : (tensor<512x512xf32>) -> tensor<512x512xf32>
  func.return %d : tensor<512x512xf32>
}
"""
    exe = aicf.compile(mm, target="cuda", force="gpu.cublas_gemm", fuse=False)
    prog = exe._program
    rng = np.random.default_rng(2)
    a = cp.asarray(rng.standard_normal((512, 512), dtype=np.float32))
    out = cp.empty((512, 512), cp.float32)
    prog.graphs = False
    prog(a, a, out)
    eager = cp.asnumpy(out)
    prog.graphs = True
    for _ in range(3):
        out.fill(np.nan)
        prog(a, a, out)
    assert len(prog._graphs) == 1
    assert np.array_equal(cp.asnumpy(out), eager)
    a[...] = cp.asarray(rng.standard_normal((512, 512), dtype=np.float32))  # same buffer, new values
    prog(a, a, out)
    ref = np.tanh(cp.asnumpy(a).astype(np.float64) @ cp.asnumpy(a).astype(np.float64))
    np.testing.assert_allclose(cp.asnumpy(out), ref, rtol=1e-4, atol=1e-4)


@gpu
def test_library_calls_that_allocate_are_not_captured():
    red = """
func.func @main(%a: tensor<512x4096xf16>) -> tensor<512xf16> {
  %e = aicf_tensor.exp %a : (tensor<512x4096xf16>) -> tensor<512x4096xf16>
  %s = aicf_tensor.reduce_sum %e axes = [1] : (tensor<512x4096xf16>) -> tensor<512xf16>
  func.return %s : tensor<512xf16>
}
"""
    exe = aicf.compile(red, target="cuda", force="gpu.cub_reduce", fuse=False)
    assert "cub.reduce" in exe._program.source
    exe._program.graphs = True
    a = cp.asarray(np.random.default_rng(3).uniform(-1, 1, (512, 4096)).astype(np.float16))
    for _ in range(3):
        got = exe(a)
    assert len(exe._program._graphs) == 0
    ref = np.exp(cp.asnumpy(a).astype(np.float64)).sum(1)
    np.testing.assert_allclose(cp.asnumpy(got).astype(np.float64), ref, rtol=2e-3)


@gpu
def test_a_model_forward_is_replayed_as_one_graph(caplog):
    """picoGPT's forward under aicf.jit (2 layers, GPT-2 small widths): its kernels and
    cuBLAS calls replay as one graph once the same weights come again."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
    import gpt2_numpy as g

    cfg = dict(g.CONFIGS["small"], n_layer=2)
    params = g.init_params(**cfg)

    def on_device(tree):
        if isinstance(tree, dict):
            return {k: on_device(v) for k, v in tree.items()}
        if isinstance(tree, list):
            return [on_device(v) for v in tree]
        return cp.asarray(tree) if isinstance(tree, np.ndarray) else tree

    dev = on_device(params)
    ids = cp.asarray(np.random.default_rng(1).integers(0, cfg["n_vocab"], 64))
    model = aicf.jit(g.gpt2, target="cuda", static_argnames="n_head")
    prog = model.executable(ids, **dev, n_head=cfg["n_head"])._program
    prog.graphs = False
    eager = cp.asnumpy(model(ids, **dev, n_head=cfg["n_head"]))
    prog.graphs = True
    ptrs = []
    with caplog.at_level("INFO", logger="aicf"):
        for _ in range(3):
            y = model(ids, **dev, n_head=cfg["n_head"])
            ptrs.append(y.data.ptr)  # a graph is keyed on every pointer, the output's too
            out = cp.asnumpy(y)
            del y
    why = f"{len(prog._seen)} keys seen once, output pointers {[hex(p) for p in ptrs]}; {caplog.text}"
    assert prog.graphs and len(prog._graphs) >= 1, why
    np.testing.assert_array_equal(out, eager)
