"""The cuda target's flash kernels (gpu.flash_attention: mma.sync in
backend/cuda/flash_attention.py, wgmma in backend/cuda/flash_attention_wgmma.py)
against softmax(q k^T * scale) v in NumPy float64, on shapes that are not tile
multiples, causal or not, f16 and bf16, head dims 64 and 128, the batch dims and
layouts models use; and, without a GPU, that every instantiation of the kernel
compiles (nvcc, where it is installed) and computes attention when its warps run on
the host (cuda_emulation/: the block's threads as std::threads, mma.sync, ldmatrix
and shfl emulated from the PTX ISA's fragment layouts), which checks the kernel's
indexing everywhere a C++20 compiler is.

The cuda target takes the kernel wherever it applies (aicf/compiler.py); the
score matrix is then never allocated.

    python3 -m pytest -m gpu test/python/test_flash_attention.py   # on a GPU machine
"""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_attention import DTYPES, attention_program, random, reference, rel_err

import aicf
from aicf.backend.cuda import flash_attention as fa
from aicf.backend.cuda import flash_attention_wgmma as fw
from aicf.dtypes import f32_to_bf16_bits
from aicf.lowering.gpu_schedules.flash_attention import DTYPES as FLASH_DTYPES
from aicf.lowering.gpu_schedules.flash_attention import HEAD_DIMS
from aicf.reference import bf16_bits_to_f64

from gpu_support import cp, gpu

FORCE = "gpu.flash_attention"


# each kernel with its tiles and the target nvcc builds it for
KERNELS = {"mma_sync": (fa, 64, "-arch=sm_80"), "wgmma": (fw, 128, "-gencode=arch=compute_90a,code=sm_90a")}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("dtype", FLASH_DTYPES)
@pytest.mark.parametrize("causal", [False, True])
def test_every_instantiation_compiles_without_spills(tmp_path, kernel, head_dim, dtype, causal):
    module, tile, arch = KERNELS[kernel]
    cu = tmp_path / "k.cu"
    cu.write_text(module.source(head_dim, dtype, tile, tile, causal))
    out = subprocess.run(["nvcc", "-cubin", arch, "-std=c++17", "-Xptxas", "-v", str(cu),
                          "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert " 0 bytes spill stores" in out.stderr and "C7508" not in out.stderr, out.stderr  # C7508: setmaxnreg ignored


@pytest.mark.parametrize("force", [(), (FORCE,)])
def test_the_cuda_program_is_one_flash_call_and_no_score_matrix(force):
    """What aicf.compile hands the cuda backend (planned loop IR), forced or not,
    reaches the GPU level as one library call of the flash kernel, no kernel of its
    own and no buffer besides the operands: the seq x seq scores live in registers."""
    from aicf.backend.cuda.program import lower_to_gpu
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.gpu import LibraryCallOp
    from aicf.dialects.loop import AttentionOp

    shape = (1, 2, 100, 64)
    src = attention_program(shape, shape, shape, "f16", 0.125, causal=True)
    module = parse_module(make_context(), src)
    run_pipeline(module, pipeline_for("cuda", force=force))
    gpu_module = lower_to_gpu(module)
    calls = [op for op in gpu_module.walk() if isinstance(op, LibraryCallOp)]
    assert [c.callee.data for c in calls] == ["aicf.flash_attention"]
    assert not any(isinstance(op, AttentionOp) for op in gpu_module.walk())
    assert not [op.name for op in gpu_module.walk() if op.name in ("memref.alloc", "aicf_gpu.kernel", "aicf_gpu.launch")]


@pytest.mark.parametrize("mma", ["mma_sync", "wgmma"])
def test_a_written_kernel_choice_is_kept(mma):
    """The planner leaves a written schedule alone, so the call runs the kernel it
    names (the GPU test above relies on it to run both)."""
    from aicf.backend.cuda.program import lower_to_gpu
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.dialects.gpu import LibraryCallOp

    module = parse_module(make_context(), _loop_program((1, 2, 100, 64), (1, 2, 77, 64), "f16", 0.125, True, mma))
    run_pipeline(module, pipeline_for("cuda"))
    (call,) = [op for op in lower_to_gpu(module).walk() if isinstance(op, LibraryCallOp)]
    assert call.param("mma") == mma if mma == "wgmma" else "mma" not in call.params.data
    assert (call.param("block_m"), call.param("block_n")) == ((128, 128) if mma == "wgmma" else (64, 64))


EMULATION = Path(__file__).parent / "cuda_emulation"
CXX = shutil.which("g++") or shutil.which("c++")


@functools.lru_cache(maxsize=None)
def _emulated(head_dim: int, dtype: str, causal: bool, block_m: int, block_n: int, tmp: str) -> Path:
    """The kernel built for the host (one binary per instantiation)."""
    d = Path(tmp) / f"fa_{head_dim}_{dtype}_{int(causal)}_{block_m}_{block_n}"
    d.mkdir(parents=True, exist_ok=True)
    (d / "kernel.inc").write_text(fa.source(head_dim, dtype, block_m, block_n, causal))
    exe = d / "flash_emu"
    out = subprocess.run([CXX, "-std=c++20", "-O1", "-pthread", f"-I{EMULATION}", f"-DIS_BF16={int(dtype == 'bf16')}",
                          f'-DKERNEL_SOURCE="{d / "kernel.inc"}"', str(EMULATION / "flash_main.cpp"), "-o", str(exe)],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    if out.returncode != 0:
        pytest.skip(f"the host compiler cannot build the emulation: {out.stderr[-400:]}")
    return exe


def _bits(a: np.ndarray, dtype: str) -> np.ndarray:
    return a.astype(np.float16).view(np.uint16) if dtype == "f16" else f32_to_bf16_bits(a.astype(np.float32))


def _from_bits(b: np.ndarray, dtype: str) -> np.ndarray:
    return b.view(np.float16).astype(np.float64) if dtype == "f16" else bf16_bits_to_f64(b)


@pytest.mark.skipif(CXX is None, reason="needs a C++20 compiler")
@pytest.mark.parametrize("dtype", FLASH_DTYPES)
@pytest.mark.parametrize("head_dim, sq, sk, b0, b1", [(64, 100, 77, 1, 2), (128, 37, 130, 2, 1), (64, 1, 1, 1, 1),
                                                      (64, 65, 64, 1, 1), (128, 64, 0, 1, 1)])
@pytest.mark.parametrize("causal", [False, True])
def test_the_kernel_computes_attention_on_emulated_warps(tmp_path_factory, dtype, head_dim, sq, sk, b0, b1, causal):
    exe = _emulated(head_dim, dtype, causal, 64, 64, str(tmp_path_factory.getbasetemp() / "flash"))
    rng = np.random.default_rng(sq * 1000 + sk)
    run = tmp_path_factory.mktemp("run")
    bits = {n: _bits(rng.standard_normal((b0 * b1, s, head_dim)), dtype) for n, s in (("q", sq), ("k", sk), ("v", sk))}
    for n, b in bits.items():
        b.tofile(run / f"{n}.bin")
    scale = 1 / math.sqrt(head_dim)
    out = subprocess.run([str(exe), str(sq), str(sk), str(b0), str(b1), str(run), repr(scale * math.log2(math.e))],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    got = _from_bits(np.fromfile(run / "o.bin", np.uint16).reshape(b0 * b1, sq, head_dim), dtype)
    assert not np.isnan(got).any()  # every row written (the output starts as NaN)
    if sk == 0:  # no key: every row is 0, as the op says
        assert np.all(got == 0)
        return
    q, k, v = (_from_bits(bits[n], dtype) for n in "qkv")
    assert rel_err(got, reference(q, k, v, scale=scale, causal=causal)) < DTYPES[dtype][2]


def _flash(src: str):
    exe = aicf.compile(src, target="cuda")
    assert "gpu.flash_attention" in exe.explain(), exe.explain()
    assert "aicf.flash_attention" in exe.source  # the host plan's library call
    return exe


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("sq, sk, head", [(1, 1, 64), (64, 64, 64), (100, 77, 64), (77, 100, 128),
                                          (256, 256, 128), (1000, 1000, 64)])
@pytest.mark.parametrize("causal", [False, True])
def test_matches_float64(dt, sq, sk, head, causal):
    qs, ks = (2, 3, sq, head), (2, 3, sk, head)
    scale = 1 / math.sqrt(head)
    exe = _flash(attention_program(qs, ks, ks, dt, scale, causal))
    (q, q64), (k, k64), (v, v64) = random(qs, dt), random(ks, dt), random(ks, dt)
    out = cp.asnumpy(exe(q, k, v))
    assert rel_err(DTYPES[dt][1](out), reference(q64, k64, v64, scale=scale, causal=causal)) < DTYPES[dt][2]


def _loop_program(qs, ks, dt, scale, causal, mma, perm=False):
    """A loop-level attention with its schedule written: one kernel chosen by hand."""
    def t(shape):
        return f"memref<{'x'.join(map(str, shape))}x{dt}>"

    os_ = (qs[0], qs[2], qs[1], qs[3]) if perm else qs
    perms = " q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3]" if perm else ""
    tiles = (128, 128) if mma == "wgmma" else (64, 64)
    return (
        f"func.func @f(%q: {t(qs)}, %k: {t(ks)}, %v: {t(ks)}, %o: {t(os_)}) attributes {{aicf.num_outputs = 1 : i64}} {{\n"
        f"  aicf_loop.attention scale = {scale!r}{' causal' if causal else ''}{perms} ins(%q, %k, %v : {t(qs)}, {t(ks)}, "
        f"{t(ks)}) outs(%o : {t(os_)}) {{aicf.schedule = {{kind = \"gpu.flash_attention\", block_m = {tiles[0]} : i64, "
        f"block_n = {tiles[1]} : i64, mma = \"{mma}\"}}}}\n  func.return\n}}\n"
    )


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("mma", ["mma_sync", "wgmma"])
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("sq, sk, head, causal, perm", [(100, 77, 64, True, False), (77, 300, 128, False, False),
                                                        (1000, 1000, 64, True, True), (257, 129, 128, True, False),
                                                        (1, 1, 64, False, False), (300, 0, 64, False, False)])
def test_each_kernel_matches_float64(mma, dt, sq, sk, head, causal, perm):
    """Both kernels, chosen by a written schedule (the planner leaves it), whatever
    the target would pick."""
    qs, ks = (2, 3, sq, head), (2, 3, sk, head)
    if perm:
        qs, ks = (2, sq, 3, head), (2, sk, 3, head)
    scale = 1 / math.sqrt(head)
    exe = aicf.compile(_loop_program(qs, ks, dt, scale, causal, mma, perm), target="cuda")
    (q, q64), (k, k64), (v, v64) = random(qs, dt), random(ks, dt), random(ks, dt)
    t = (0, 2, 1, 3)
    if perm:
        q64, k64, v64 = q64.transpose(t), k64.transpose(t), v64.transpose(t)
    got = DTYPES[dt][1](cp.asnumpy(exe(q, k, v)))
    if sk == 0:
        assert np.all(got == 0)
        return
    assert rel_err(got, reference(q64, k64, v64, scale=scale, causal=causal)) < DTYPES[dt][2]


@gpu
@pytest.mark.gpu
def test_heads_interleaved_as_a_model_stores_them():
    """Q, K, V as [batch, seq, heads, dim] (a qkv projection split and viewed), read
    through perms: the kernel takes the strides, nothing is copied."""
    b, s, h, d = 2, 130, 12, 64
    perm = " q_perm = [0, 2, 1, 3] k_perm = [0, 2, 1, 3] v_perm = [0, 2, 1, 3]"
    src = attention_program((b, s, h, d), (b, s, h, d), (b, s, h, d), "f16", 0.125, True, perms=perm)
    exe = _flash(src)
    (q, q64), (k, k64), (v, v64) = (random((b, s, h, d), "f16") for _ in range(3))
    out = cp.asnumpy(exe(q, k, v))
    t = (0, 2, 1, 3)
    ref = reference(q64.transpose(t), k64.transpose(t), v64.transpose(t), scale=0.125, causal=True)
    assert out.shape == (b, h, s, d)
    assert rel_err(out.astype(np.float64), ref) < 5e-3


@gpu
@pytest.mark.gpu
def test_rows_without_keys_give_zero_and_no_key_gives_zero():
    # causal with more keys than queries is top-left: every row keeps key 0, so use
    # Sk = 0 for rows with nothing to attend to
    src = attention_program((1, 5, 64), (1, 0, 64), (1, 0, 64), "f16", 0.125)
    exe = _flash(src)
    q = np.ones((1, 5, 64), np.float16)
    empty = np.zeros((1, 0, 64), np.float16)
    assert np.all(cp.asnumpy(exe(q, empty, empty)) == 0)


@gpu
@pytest.mark.gpu
def test_large_scores_do_not_overflow():
    """Scores of 1e4 (f16 operands of 100): the online softmax subtracts the running
    max, so nothing overflows where a naive exp would."""
    shape = (1, 128, 64)
    rng = np.random.default_rng(5)
    q = np.full(shape, 1.0, np.float16) * 10
    k = (rng.standard_normal(shape) * 10).astype(np.float16)
    v = rng.standard_normal(shape).astype(np.float16)
    exe = _flash(attention_program(shape, shape, shape, "f16", 1.0))
    out = cp.asnumpy(exe(q, k, v)).astype(np.float64)
    assert np.isfinite(out).all()
    ref = reference(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), scale=1.0)
    assert rel_err(out, ref) < 5e-3
