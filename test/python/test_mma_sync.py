"""The portable tensor-core matmul (`gpu.mma_sync`, sm_80 on) without a GPU:

- the emitted CUDA runs on the CPU (g++ against test_gpu_matmul.py's emulation header
  and cuda_emulation/sm80_emulation.h, where cp.async, ldmatrix and mma.sync are
  written from the PTX ISA's fragment layouts): every layout (A and B each k- or
  mn-major), partial tiles on every side, batches with a broadcast operand, copies of
  16, 8, 4 bytes and single elements, several k-tiles around the ring; cp.async landing
  at once and as late as wait_group allows; and no ldmatrix phase with a bank conflict;
- `nvcc -cubin -arch=sm_80`: the kernels assemble with no spills, and HMMA.16816 is in
  their SASS (where cuobjdump is on PATH);
- the planner: on sm_80 an f16/bf16 matmul takes gpu.mma_sync (gpu.wgmma does not
  apply there), and says why; on sm_90 large shapes still take gpu.wgmma; forcing
  gpu.mma_sync works on either.
The same kernels run on the GPU in test_gpu_mma_sync.py.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aicf.backend.cuda.emit import emit_cuda, emit_kernel, kernels_of
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import gpu as gpu_d
from aicf.lowering.gpu_schedules import mma_sync_space as ms

from test_gpu_matmul import EMU_HEADER, _params, as_f64, check, cpu_prelude, make_operand, mm_program, reference

GXX = shutil.which("g++")
NVCC = shutil.which("nvcc")
CUOBJDUMP = shutil.which("cuobjdump")
EMULATION = Path(__file__).parent / "cuda_emulation"


def mma_attrs(bm=64, bn=64, bk=32, wm=32, wn=32, stages=3, group_m=None) -> str:
    g = f", group_m = {group_m}" if group_m else ""
    return (f'aicf.schedule = {{kind = "gpu.mma_sync", bm = {bm}, bn = {bn}, bk = {bk}, wm = {wm}, wn = {wn}, '
            f"stages = {stages}{g}}}")


def lower(text: str, target: str = "a100"):
    mod = parse_module(make_context(), text, "<mma_sync>")
    run_pipeline(mod, [f"aicf-lower-to-gpu{{target={target}}}", "aicf-swizzle-smem"])
    return mod


# (problem, config): each line exercises something the others do not
EMU_CASES = [
    (dict(m=64, n=64, k=64), dict(bm=64, bn=64, bk=32, wm=32, wn=32, stages=2)),
    (dict(m=77, n=130, k=200), dict(stages=3)),  # every edge; B n-major in 4-byte copies (N = 130)
    (dict(m=100, n=72, k=96, b_t=True), dict(bk=64, stages=3)),  # B stored N x K (non-trans ldmatrix)
    (dict(m=96, n=64, k=80, a_t=True), dict(bm=64, bn=64, bk=32, stages=4)),  # A stored K x M (.trans)
    (dict(m=40, n=72, k=48, a_t=True, b_t=True), dict(bm=64, bn=64, bk=32, wm=16, wn=64, stages=2)),
    (dict(m=33, n=17, k=40), dict(stages=2)),  # N = 17: B element by element
    (dict(m=70, n=64, k=52, a_batch=(2,), b_batch=()), dict(stages=3)),  # B broadcast over the batch
    (dict(m=30, n=40, k=24, a_batch=(2, 1), b_batch=(1, 2)), dict(stages=2)),  # two batch dims, both broadcast
    (dict(m=64, n=80, k=520), dict(bm=64, bn=64, bk=32, wm=32, wn=32, stages=4)),  # 17 k-tiles round a ring of 4
    (dict(m=130, n=140, k=70), dict(bm=128, bn=128, bk=32, wm=64, wn=64, stages=3)),  # 64x64 warp tiles
    (dict(m=50, n=200, k=100, dt="bf16"), dict(bm=64, bn=128, bk=64, wm=32, wn=64, stages=3)),
    (dict(m=100, n=36, k=22, dt="bf16", b_t=True), dict(stages=2)),  # K = 22: 4-byte copies of A and B
]


def _case_program(case, cfg):
    case = {"dt": "f16", **case}
    return mm_program(**case, attrs=mma_attrs(**cfg))


class Emulated:
    """Lowered modules' kernels built for the CPU in one shared library (one g++ run per
    cp.async mode), run one launch each."""

    def __init__(self, mods: dict[str, object], tmp: Path, deferred: bool):
        header = EMU_HEADER.replace("#include <cmath>", "#include <cmath>\n#include <cstdio>")
        parts = [header, f"#define AICF_CP_ASYNC_DEFERRED {int(deferred)}",
                 (EMULATION / "sm80_emulation.h").read_text(), cpu_prelude()]
        self.kernels = {}
        for tag, mod in mods.items():
            (k,) = kernels_of(mod)  # type: ignore[arg-type]
            src = emit_kernel(k)
            src = re.sub(r"extern __shared__ __align__\(\d+\) unsigned char aicf_dyn_smem\[\];",
                         "unsigned char* aicf_dyn_smem = aicf_dyn_smem_buf;", src)
            cname = f"{tag}_{k.kernel_name}"
            src = src.replace(f" {k.kernel_name}(", f" {cname}(")
            parts.append(src)
            ps = _params(src, cname)
            parts.append(
                f'extern "C" void run_{tag}(unsigned gx, unsigned gy, unsigned gz, unsigned nt, '
                + ", ".join(d for d, _ in ps)
                + f") {{ aicf_launch_warps(gx, gy, gz, nt, [=] {{ {cname}({', '.join(p for _, p in ps)}); }}); }}")
            self.kernels[tag] = k
        parts.append('extern "C" long ldmatrix_conflicts() { return aicf_ldmatrix_conflicts.load(); }')
        cpp = tmp / f"mma_emulated_{int(deferred)}.cpp"
        cpp.write_text("\n".join(parts))
        so = tmp / f"mma_emulated_{int(deferred)}.so"
        r = subprocess.run([GXX, "-O1", "-std=c++17", "-shared", "-fPIC", "-pthread", "-w", str(cpp), "-o", str(so)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        self.lib = ctypes.CDLL(str(so))
        self.lib.ldmatrix_conflicts.restype = ctypes.c_long

    def run(self, tag: str, *arrays: np.ndarray) -> None:
        k = self.kernels[tag]
        gx, gy, gz = k.grid_dims
        getattr(self.lib, f"run_{tag}")(ctypes.c_uint(gx), ctypes.c_uint(gy), ctypes.c_uint(gz),
                                       ctypes.c_uint(k.block_dims[0]),
                                       *[ctypes.c_void_p(a.ctypes.data) for a in arrays])


@pytest.fixture(scope="module", params=[False, True], ids=["cp.async-at-issue", "cp.async-deferred"])
def emulated(request, tmp_path_factory):
    if GXX is None:
        pytest.skip("g++ is not on PATH")
    mods, infos = {}, {}
    for i, (case, cfg) in enumerate(EMU_CASES):
        text, info = _case_program(case, cfg)
        mods[f"c{i}"] = lower(text)
        infos[f"c{i}"] = info
    return Emulated(mods, tmp_path_factory.mktemp("mma"), request.param), infos


@pytest.mark.parametrize("ci", range(len(EMU_CASES)))
def test_mma_sync_emulated(emulated, ci):
    emu, infos = emulated
    tag = f"c{ci}"
    info = infos[tag]
    rng = np.random.default_rng(100 + ci)
    a = np.ascontiguousarray(make_operand(rng, info["a"], info["dt"], False))
    b = np.ascontiguousarray(make_operand(rng, info["b"], info["dt"], False))
    c = np.full(info["c"], 0xFFFF, dtype=np.uint16)
    if info["dt"] == "f16":
        c = c.view(np.float16)
    emu.run(tag, a, b, c)
    out, ref = as_f64(c, info["dt"]), reference(a, b, info)
    check(out, ref, info["dt"])
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 5e-3
    assert emu.lib.ldmatrix_conflicts() == 0, "an ldmatrix phase hit a bank twice"


def test_copy_widths_follow_the_layout():
    """16-byte copies where rows allow them, narrower ones where they do not, and the
    ldmatrix flavours the layouts call for."""
    text, _ = _case_program(dict(m=77, n=130, k=200), dict(stages=3))
    ir = str(lower(text))
    assert re.search(r"aicf_gpu.cp_async %a\[.*bytes = 16", ir) and re.search(r"aicf_gpu.cp_async %b\[.*bytes = 4", ir)
    assert "trans = 1" in ir  # B stored K x N: ldmatrix.trans
    text, _ = _case_program(dict(m=33, n=17, k=40), dict(stages=2))
    ir = str(lower(text))
    assert not re.search(r"aicf_gpu.cp_async %b", ir) and "memref.load %b" in ir  # N = 17: one element at a time


def test_swizzle_is_a_conflict_free_permutation():
    """mma_sync_space.swizzle: a permutation of each tile, 16-byte chunks kept whole, and
    any 8 consecutive rows at one chunk in 8 distinct bank groups."""
    for width in (32, 64, 128, 192, 256):
        rows = 16
        offs = [ms.swizzle(r, c, width) for r in range(rows) for c in range(width)]
        assert sorted(offs) == list(range(rows * width))
        for r in range(rows):
            for c in range(0, width, 8):
                o = ms.swizzle(r, c, width)
                assert o % 8 == 0 and all(ms.swizzle(r, c + e, width) == o + e for e in range(8))
        for r0 in range(0, rows - 7):
            for c in range(0, width, 8):
                groups = {(ms.swizzle(r0 + r, c, width) * 2 // 16) % 8 for r in range(8)}
                assert len(groups) == 8 if r0 % 8 == 0 or width * 2 % 128 == 0 else True


# --- nvcc / ptxas / cuobjdump ---------------------------------------------------------------
NVCC_CASES = [
    (dict(m=4096, n=4096, k=4096), dict(bm=128, bn=128, bk=32, wm=64, wn=64, stages=4)),
    (dict(m=4096, n=4096, k=4096), dict(bm=128, bn=256, bk=32, wm=64, wn=64, stages=3)),
    (dict(m=1000, n=1000, k=1000, b_t=True), dict(bm=128, bn=128, bk=64, wm=64, wn=32, stages=3)),
    (dict(m=77, n=130, k=200, a_t=True), dict(stages=3)),
    (dict(m=256, n=512, k=384, dt="bf16", a_batch=(3,), b_batch=()), dict(bm=128, bn=64, bk=32, wm=32, wn=64)),
]


def _sass_of(tmp_path: Path, mod, name: str) -> tuple[str, str]:
    cu = tmp_path / f"{name}.cu"
    cu.write_text(emit_cuda(mod))
    cubin = tmp_path / f"{name}.cubin"
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_80", "-std=c++17", "-Xptxas", "-v", str(cu), "-o", str(cubin)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    sass = ""
    if CUOBJDUMP is not None:
        sass = subprocess.run([CUOBJDUMP, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    return r.stderr, sass


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("ci", range(len(NVCC_CASES)))
def test_mma_sync_kernels_assemble_for_sm80(tmp_path, ci):
    """sm_80 code (no sm_90a instruction: the Hopper prelude is not even included), no
    spills, and on the tensor cores: HMMA.16816.F32 in the SASS, LDSM (ldmatrix) and
    LDGSTS (cp.async)."""
    case, cfg = NVCC_CASES[ci]
    text, _ = _case_program(case, cfg)
    mod = lower(text)
    src = emit_cuda(mod)
    assert "aicf_mma_" in src and "wgmma" not in src and "cp.async.bulk" not in src
    log, sass = _sass_of(tmp_path, mod, f"k{ci}")
    assert "0 bytes spill stores" in log and "0 bytes stack frame" in log, log
    if CUOBJDUMP is None:
        pytest.skip("cuobjdump is not on PATH: assembled only (the SASS check runs where it is)")
    dt = "BF16" if case.get("dt") == "bf16" else "F16"
    assert re.search(r"\bHMMA\.16816\.F32" + (r"\.BF16" if dt == "BF16" else r"\b"), sass), sass[:3000]
    assert "LDSM" in sass and "LDGSTS" in sass


# --- the planner ----------------------------------------------------------------------------
def _plan(text: str, target: str, force: str = "", explain: bool = False, capsys=None):
    mod = parse_module(make_context(), text, "<mma_sync>")
    opts = f'target={target}' + (f' force="{force}"' if force else "") + (" explain=true" if explain else "")
    run_pipeline(mod, [f"aicf-plan{{{opts}}}"])
    return mod


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("shape", [(1000, 1000, 1000), (256, 512, 384), (2, 128, 77, 130, 200)])
def test_planner_takes_mma_sync_on_sm80(dt, shape, capsys):
    *batch, m, n, k = shape
    text, _ = mm_program(m, n, k, dt=dt, a_batch=tuple(batch), b_batch=tuple(batch))
    mod = _plan(text, "a100", explain=True)
    assert 'kind = "gpu.mma_sync"' in str(mod), str(mod)[-2000:]
    err = capsys.readouterr().err
    # why: wgmma is Hopper's, the tiled CUDA-core kernel is a lower tier; the chosen
    # line names the bound and the tiling
    assert re.search(r"gpu\.wgmma\s+does not apply: .*no wgmma \(sm_90a only\)", err), err
    chosen = next(ln for ln in err.splitlines() if "-> gpu.mma_sync" in ln)
    assert re.search(r"bm=\d+ bn=\d+ bk=\d+ wm=\d+ wn=\d+ stages=\d+", chosen)
    assert "tiles" in chosen and "blocks/SM" in chosen and "bound" in chosen, chosen
    assert re.search(r"gpu\.matmul_tiled .*not taken: gpu\.mma_sync is built for this shape", err), err


def test_large_matmul_on_sm80_weighs_mma_sync_against_cublas(capsys):
    """At 4096^3 cuBLAS is predicted faster than our kernel on the A100 (and takes it);
    gpu.mma_sync is the generated kernel it is weighed against."""
    text, _ = mm_program(4096, 4096, 4096, dt="f16")
    mod = _plan(text, "a100", explain=True)
    err = capsys.readouterr().err
    mma = next(ln for ln in err.splitlines() if "gpu.mma_sync" in ln)
    assert "us" in mma and "does not apply" not in mma
    s = str(mod)
    assert 'kind = "gpu.mma_sync"' in s or 'kind = "gpu.cublas_gemm"' in s


def test_planner_keeps_wgmma_for_large_shapes_on_sm90():
    """On sm_90 both tensor-core kernels apply and compete by cost: wgmma wins the large
    shapes (cuBLAS may still take the nest)."""
    from aicf.dialects.loop import NestOp
    from aicf.lowering.gpu_schedules.view import collapse, view_of
    from aicf.passes.loop import candidates as cands
    from aicf.target import H100

    for shape in [(4096, 4096, 4096), (8192, 3072, 768), (2048, 2048, 2048)]:
        text, _ = mm_program(*shape, dt="f16")
        mod = parse_module(make_context(), text, "<mma_sync>")
        view = collapse(view_of(next(o for o in mod.walk() if isinstance(o, NestOp)), "x"))
        found = cands.gpu_nest_candidates(view, H100, with_library=False)
        mma = next(c for c in found if c.kind == "gpu.mma_sync")
        assert mma.applies and cands.select(found).kind == "gpu.wgmma", shape
        assert 'kind = "gpu.mma_sync"' not in str(_plan(text, "h100")), shape


def test_mma_sync_cost_prefers_wgmma_on_hopper_and_is_sane_on_a100():
    from aicf.cost import tensor_core as tc
    from aicf.lowering.gpu_schedules import wgmma_space as wsp
    from aicf.target import A100, H100

    p = ms.MmaProblem((), (), 4096, 4096, 4096, "f16", ms.CopyOperand("k", 8), ms.CopyOperand("mn", 8))
    best_a100 = tc.mma_plan(p, A100, 2)[0]
    tflops = p.flops / best_a100.total / 1e12
    assert 0.6 * 312 < tflops < 0.9 * 312, tflops
    best_h100 = tc.mma_plan(p, H100, 2)[0]
    wp = wsp.WgmmaProblem((), (), 4096, 4096, 4096, "f16", wsp.TmaOperand("k", (1, 0), (2, 0)),
                          wsp.TmaOperand("mn", (1, 0), (1, 2)))
    assert tc.plan(wp, H100, 2)[0].total < best_h100.total
    assert p.flops / best_h100.total / 1e12 < H100.mma_sync_efficiency * H100.fp16_flops / 1e12


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_force_mma_sync(target):
    text, _ = mm_program(1000, 1000, 1000, dt="f16")
    mod = _plan(text, target, force="gpu.mma_sync")
    assert 'kind = "gpu.mma_sync"' in str(mod)
    run_pipeline(mod, [f"aicf-lower-to-gpu{{target={target}}}"])
    (k,) = kernels_of(mod)
    assert any(isinstance(o, gpu_d.KernelOp) for o in [k])
    assert "aicf_mma_f16" in emit_cuda(mod)


def test_space_is_enumerable_and_legal():
    """Every point the planner offers (calibration and aicf-tune time them) passes the
    builder's check; illegal ones say why."""
    from aicf.passes.loop import candidates as cands
    from aicf.lowering.loop_to_gpu import nest_view
    from aicf.dialects.loop import NestOp
    from aicf.target import A100

    text, _ = mm_program(1000, 1000, 1000, dt="f16")
    mod = parse_module(make_context(), text, "<mma_sync>")
    fn = next(o for o in mod.ops if o.name == "func.func")
    nest = next(o for o in fn.walk() if isinstance(o, NestOp))
    space = cands.gpu_space(fn, nest, A100)
    assert "gpu.mma_sync" in space and len(space["gpu.mma_sync"]) > 20
    p = ms.MmaProblem((), (), 1000, 1000, 1000, "f16", ms.CopyOperand("k", 8), ms.CopyOperand("mn", 8))
    for s, cost in space["gpu.mma_sync"]:
        c = ms.MmaConfig.from_params(s.params)
        assert ms.check_config(c, p, A100.smem_per_block_optin, A100.registers_per_sm) is None and cost > 0
    bad = ms.MmaConfig(256, 256, 32, 128, 128, 2)
    assert "registers" in ms.check_config(bad, p, A100.smem_per_block_optin, A100.registers_per_sm)
    assert "shared memory" in ms.check_config(ms.MmaConfig(256, 256, 64, 64, 64, 6), p, A100.smem_per_block_optin,
                                              A100.registers_per_sm)


def test_mma_sync_needs_sm80_and_f16():
    from aicf.passes.loop import candidates as cands
    from aicf.lowering.gpu_schedules.view import collapse, view_of
    from aicf.dialects.loop import NestOp
    from aicf.target import A100
    from dataclasses import replace

    text, _ = mm_program(128, 128, 128, dt="f32")
    mod = parse_module(make_context(), text, "<mma_sync>")
    nest = next(o for o in mod.walk() if isinstance(o, NestOp))
    c = cands.mma_sync_candidate(collapse(view_of(nest, "x")), A100)
    assert not c.applies and "not both f16 or both bf16" in c.reason
    c = cands.mma_sync_candidate(collapse(view_of(nest, "x")), replace(A100, sm_arch=75, name="T4"))
    assert not c.applies and "sm_80" in c.reason
