"""Fused programs on the cuda target against NumPy (float64), with and without fusion:
softmax and layer norm (row groups: ONE kernel each, lowering/gpu_schedules/
row_group.py), column groups (run as their member nests), random fused programs,
an aicf.jit MLP, and the cached launch plan of CudaProgram.__call__.

Run on the GPU machine: `python3 -m pytest -m gpu test/python/test_gpu_fusion.py`.
`row_group_programs()` (no GPU needed) gives the loop-level programs whose kernels
test_nvcc_kernels.py compiles with nvcc.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module

from test_fusion import LAYERNORM, SOFTMAX, programs

from gpu_support import cp, gpu

LAYERNORM_NO_AFFINE = """
func.func @layernorm(%x: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %mu = aicf_tensor.reduce_mean %x axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<*xf32>
  %xc = aicf_tensor.sub %x, %mu : (tensor<{R}x{C}xf32>, tensor<*xf32>) -> tensor<*xf32>
  %sq = aicf_tensor.mul %xc, %xc : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %var = aicf_tensor.reduce_mean %sq axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f32>
  %ve = aicf_tensor.add %var, %eps : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %sd = aicf_tensor.sqrt %ve : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %xc, %sd : (tensor<*xf32>, tensor<*xf32>) -> tensor<{R}x{C}xf32>
  func.return %y : tensor<{R}x{C}xf32>
}}
"""

# (rows, cols): short rows (a warp per row, streaming; odd sizes: vec 1), rows held in
# registers by a warp, by blocks of several sizes, and rows too long for registers
SOFTMAX_SHAPES = [(37, 129), (64, 256), (33, 1024), (16, 8192), (8, 12288), (4, 65536), (4096, 1000), (7, 1000)]
LAYERNORM_SHAPES = [(33, 200), (64, 4096), (16, 2048), (7, 24576), (45, 1000)]

FUSE_PIPELINE = ["aicf-infer-shapes", "canonicalize", "cse", "aicf-cleanup-reshapes", "aicf-fuse", "aicf-lower-to-loops"]


def row_group_programs() -> list[str]:
    """Loop-level texts (entry @main) of the row-group programs: what the nvcc CI test
    compiles (no GPU needed)."""
    texts = []
    for r, c in SOFTMAX_SHAPES + [(8192, 8192)]:
        texts.append(SOFTMAX.format(R=r, C=c, ax=-1))
    texts.append(SOFTMAX.format(R=37, C=129, ax=0))
    for r, c in LAYERNORM_SHAPES:
        texts.append(LAYERNORM.format(R=r, C=c))
    texts.append(LAYERNORM_NO_AFFINE.format(R=16384, C=4096))
    out = []
    for text in texts:
        module = parse_module(make_context(), text, "<row-group>")
        run_pipeline(module, FUSE_PIPELINE)
        s = str(module)
        for name in ("@softmax", "@layernorm"):
            s = s.replace(f"func.func {name}(", "func.func @main(")
        out.append(s)
    return out


def softmax64(x: np.ndarray, ax: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=ax, keepdims=True))
    return e / e.sum(axis=ax, keepdims=True)


def layernorm64(x: np.ndarray, g=None, b=None) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    y = (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    return y if g is None else y * g + b


def rel_err(out, ref) -> float:
    return float(np.linalg.norm(np.asarray(out, np.float64) - ref) / np.linalg.norm(ref))


def launches(exe, *args) -> list[str]:
    from aicf.profiling import profiler

    with profiler() as p:
        exe(*args)
    cp.cuda.Device().synchronize()
    return [r.kernel for r in p.records]


def run_both(text: str, *args, entry=None):
    """(fused output, fused kernels, unfused output, unfused kernels) as NumPy."""
    res = []
    for fuse in (True, False):
        exe = aicf.compile(text, target="cuda", entry=entry, fuse=fuse)
        out = exe(*args)
        names = launches(exe, *args)
        res += [cp.asnumpy(out).astype(np.float64), names]
    return res


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_softmax_one_kernel(shape):
    r, c = shape
    x = (np.random.default_rng(r * c).standard_normal(shape) * 4).astype(np.float32)
    ref = softmax64(x.astype(np.float64))
    fused, kf, unfused, ku = run_both(SOFTMAX.format(R=r, C=c, ax=-1), x)
    assert len(kf) == 1 and "group" in kf[0], kf
    assert len(ku) > 1
    for out in (fused, unfused):
        assert not np.isnan(out).any()
        assert rel_err(out, ref) < 1e-5
        np.testing.assert_allclose(out, ref, rtol=2e-5, atol=1e-8)


@pytest.mark.gpu
@gpu
def test_column_softmax_runs_as_member_nests():
    x = (np.random.default_rng(5).standard_normal((129, 37)) * 4).astype(np.float32)
    ref = softmax64(x.astype(np.float64), ax=0)
    fused, kf, unfused, _ = run_both(SOFTMAX.format(R=129, C=37, ax=0), x)
    assert len(kf) == 3  # rows not contiguous: the group's nests, one kernel each
    for out in (fused, unfused):
        assert rel_err(out, ref) < 1e-5


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("shape", LAYERNORM_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_layernorm_one_kernel(shape):
    r, c = shape
    rng = np.random.default_rng(r + c)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    g, b = (rng.standard_normal(c).astype(np.float32) for _ in range(2))
    ref = layernorm64(x.astype(np.float64), g.astype(np.float64), b.astype(np.float64))
    fused, kf, unfused, _ = run_both(LAYERNORM.format(R=r, C=c), x, g, b)
    assert len(kf) == 1 and "group" in kf[0], kf
    for out in (fused, unfused):
        assert rel_err(out, ref) < 1e-5
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=2e-5)
    ref0 = layernorm64(x.astype(np.float64))
    fused0, kf0, _, _ = run_both(LAYERNORM_NO_AFFINE.format(R=r, C=c), x)
    assert len(kf0) == 1
    assert rel_err(fused0, ref0) < 1e-5


@pytest.mark.gpu
@gpu
@settings(
    max_examples=1,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.tuples(*(programs(f"f{i}") for i in range(16))))
def test_random_programs_on_cuda(batch):
    """Random fused programs (test_fusion's generator) on the cuda target, with and
    without fusion, against NumPy float64."""
    rng = np.random.default_rng(0)
    for p, results in batch:
        text = p.text(results)
        args = [rng.uniform(-1, 1, s).astype(np.float32) for s in p.inputs]
        wide = [a.astype(np.float64) for a in args]
        refs = [np.asarray(p.ref[r](wide)) for r in results]
        for fuse in (True, False):
            outs = aicf.compile(text, target="cuda", entry=p.name, fuse=fuse)(*args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for out, ref, r in zip(outs, refs, results):
                o = cp.asnumpy(out).astype(np.float64)
                assert o.shape == np.shape(ref)
                assert not np.isnan(o).any(), f"fuse={fuse}\n{text}"
                bound = p.values[r][1]
                np.testing.assert_allclose(o, ref, rtol=2e-5, atol=2e-6 * max(1.0, bound),
                                           err_msg=f"fuse={fuse}\n{text}")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("act", ["relu", "gelu"])
def test_jit_mlp_on_cuda(act):
    @aicf.jit(target="cuda")
    def mlp(x, w1, b1, w2, b2):
        h = x @ w1 + b1
        h = aicf.ops.relu(h) if act == "relu" else aicf.ops.gelu(h)
        return h @ w2 + b2

    rng = np.random.default_rng(7)
    shapes = [(64, 96), (96, 128), (128,), (128, 40), (40,)]
    a = [rng.standard_normal(s).astype(np.float32) * (0.2 if len(s) == 2 else 1) for s in shapes]
    w = [v.astype(np.float64) for v in a]
    h = w[0] @ w[1] + w[2]
    if act == "relu":
        h = np.maximum(h, 0)
    else:
        h = h * 0.5 * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
    ref = h @ w[3] + w[4]
    out = cp.asnumpy(mlp(*[cp.asarray(v) for v in a])).astype(np.float64)
    assert rel_err(out, ref) < 1e-4
    # the bias + activation is an epilogue of the first matmul or its own kernel: at
    # most four launches (two matmuls, two elementwise)
    assert len(launches(mlp.executable(*a), *a)) <= 4


@pytest.mark.gpu
@gpu
def test_launch_plan_matches_general_path():
    """The cached plan (fast path) and the general interpreter give the same result;
    NumPy inputs, given outputs and the profiler take the paths they need."""
    from aicf.backend.cuda.program import compile_cuda

    module = parse_module(make_context(), row_group_programs()[1], "<sm>")
    prog = compile_cuda(module, "main")
    x = cp.asarray((np.random.default_rng(3).standard_normal((64, 256)) * 4).astype(np.float32))
    ref = softmax64(cp.asnumpy(x).astype(np.float64))
    y1 = prog(x)  # builds the plan
    assert prog._plan not in (None, False)
    y2 = prog._run_general(x)
    y3 = cp.full((64, 256), np.nan, np.float32)
    prog(x, y3)
    y4 = prog(cp.asnumpy(x))  # NumPy input: the general path copies it
    for y in (y1, y2, y3, y4):
        assert rel_err(cp.asnumpy(y), ref) < 1e-5
    with pytest.raises(aicf.ArgumentError):
        prog(x, x)  # output overlaps the input
    with pytest.raises(aicf.ArgumentError):
        prog(x[:, :128])
