"""The portable tensor-core matmul (`gpu.mma_sync`) on the GPU: numerics over layouts,
edges, batches and tile configurations, against float64 NumPy on the rounded inputs
(relative error < 5e-3, and within 2 ulp of the output type elementwise); outputs are
poisoned (0xFFFF: NaN in f16 and bf16) before each run so unwritten elements fail.
sm_80 code: it runs on the A100 and on Hopper alike. The same kernels are emulated on
the CPU in test_mma_sync.py."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from aicf.context import make_context
from aicf.diagnostics import parse_module

from gpu_support import cp, gpu
from test_gpu_matmul import mm_program
from test_gpu_wgmma import check_fused_mlp, f32_output_rel_err, run_and_check
from test_mma_sync import mma_attrs

CASES = [
    dict(m=256, n=512, k=384),
    dict(m=1000, n=1000, k=1000),
    dict(m=77, n=130, k=200),  # every edge; B rows of 130: 4-byte copies
    dict(m=300, n=200, k=136, b_t=True),  # B stored N x K (x @ W.T)
    dict(m=136, n=64, k=600, a_t=True),  # A stored K x M
    dict(m=96, n=320, k=80, a_t=True, b_t=True),
    dict(m=200, n=328, k=72, a_batch=(4,), b_batch=(4,)),
    dict(m=96, n=80, k=64, a_batch=(3,), b_batch=()),  # B broadcast over the batch
    dict(m=64, n=128, k=64, a_batch=(2, 3), b_batch=(1, 3)),  # two batch dims, one broadcast
    dict(m=200, n=333, k=96, b_t=True),  # odd N: C's rows take no column pairs
    dict(m=33, n=17, k=40),  # N = 17: B element by element
]
CONFIGS = [
    dict(bm=128, bn=128, bk=32, wm=64, wn=64, stages=4),
    dict(bm=64, bn=64, bk=32, wm=32, wn=32, stages=3),
    dict(bm=256, bn=128, bk=32, wm=64, wn=64, stages=3),
    dict(bm=128, bn=64, bk=64, wm=32, wn=64, stages=2),
]


def _run(prog, info, dt, seed):
    out, ref = run_and_check(prog, info, dt, seed)
    err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    assert err < 5e-3, err


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("ci", range(len(CASES)))
@pytest.mark.parametrize("cfg", range(len(CONFIGS)))
def test_mma_sync_numerics(dt, ci, cfg):
    from aicf.backend.cuda.program import compile_cuda

    text, info = mm_program(**CASES[ci], dt=dt, attrs=mma_attrs(**CONFIGS[cfg]))
    mod = parse_module(make_context(), text, "<mma_sync>")
    prog = compile_cuda(mod, "main", sync="full-sync")
    assert "aicf_mma_" in prog.source and "wgmma" not in prog.source
    _run(prog, info, dt, seed=7 + ci)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("shape", [(256, 512, 384), (1000, 1000, 1000), (77, 130, 200), (4096, 4096, 512)])
def test_planned_mma_sync(dt, shape):
    """The planner's own point of the space (forced: on Hopper it would take wgmma)."""
    import aicf.compiler as C
    from aicf.backend.cuda.program import compile_cuda

    text, info = mm_program(*shape, dt=dt)
    mod = parse_module(make_context(), text, "<mma_sync>")
    C.run_pipeline(mod, ['aicf-plan{target=gpu force="gpu.mma_sync"}'])
    assert 'kind = "gpu.mma_sync"' in str(mod)
    _run(compile_cuda(mod, "main", sync="full-sync"), info, dt, seed=3)


@gpu
@pytest.mark.gpu
def test_mma_sync_f32_output():
    """f16 inputs, f32 output: the accumulator stored as is (relative error ~1e-7)."""
    assert f32_output_rel_err(mma_attrs(128, 128, 32, 64, 64, 4), "<mma_sync>") < 1e-5


@gpu
@pytest.mark.gpu
def test_mma_sync_misaligned_view():
    """An operand view starting one element into its buffer: cp.async needs 16-byte
    aligned rows, so the runtime stages the argument (its vector alignment)."""
    import aicf

    src = """
func.func @f(%x: tensor<128x256xf16>, %w: tensor<256x192xf16>) -> tensor<128x192xf16> {
  %o = aicf_tensor.matmul %x, %w : (tensor<128x256xf16>, tensor<256x192xf16>) -> tensor<128x192xf16>
  func.return %o : tensor<128x192xf16>
}"""
    exe = aicf.compile(src, target="cuda", force="gpu.mma_sync", tune=False)
    rng = np.random.default_rng(4)
    xbuf = cp.asarray((rng.standard_normal(128 * 256 + 1) / 8).astype(np.float16))
    x = xbuf[1:].reshape(128, 256)
    w = cp.asarray((rng.standard_normal((256, 192)) / 8).astype(np.float16))
    got = cp.asnumpy(exe(x, w)).astype(np.float64)
    ref = cp.asnumpy(x).astype(np.float64) @ cp.asnumpy(w).astype(np.float64)
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 5e-3


@gpu
@pytest.mark.gpu
def test_mma_sync_kernel_runs_on_tensor_cores(tmp_path):
    """SASS of the kernel for the GPU's arch: HMMA (warp-level MMA), LDSM, LDGSTS."""
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import run_pipeline

    tool, nvcc = shutil.which("cuobjdump"), shutil.which("nvcc")
    assert tool is not None and nvcc is not None, "the CUDA toolkit is on the GPU machine"
    text, _ = mm_program(1024, 1024, 1024, dt="f16", attrs=mma_attrs(128, 128, 32, 64, 64, 4))
    mod = parse_module(make_context(), text, "<mma_sync>")
    run_pipeline(mod, ["aicf-lower-to-gpu{target=gpu}"])
    cu = tmp_path / "k.cu"
    cu.write_text(emit_cuda(mod))
    cubin = tmp_path / "k.cubin"
    subprocess.run([nvcc, "-cubin", "-arch=sm_80", "-std=c++17", str(cu), "-o", str(cubin)], check=True,
                   capture_output=True)
    sass = subprocess.run([tool, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    assert re.search(r"\bHMMA\.16816\.F32\b", sass) and "LDSM" in sass and "LDGSTS" in sass, sass[:2000]


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("shape", [(300, 520, 264), (256, 512, 1024)])
def test_fused_epilogue_one_kernel_and_exact(dt, shape):
    """matmul + bias + gelu + residual as one gpu.mma_sync_epilogue kernel (the
    intermediate never stored), every rounding step of the unfused program kept."""
    check_fused_mlp(dt, shape, force="gpu.mma_sync_epilogue", tune=False)
