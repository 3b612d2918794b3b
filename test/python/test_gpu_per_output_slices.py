"""gpu.per_output with `slices` (threads of a block sharing an output vector, their
partials folded through shared memory): on the GPU the kernel matches NumPy float64
for GEMV (f16, f32), column sums and maxes, several outputs, and slices with a split;
outputs are poisoned first, so an unwritten element shows. Without a GPU: the planner
takes the one-kernel sliced GEMV on the H100."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects.loop import NestOp
from aicf.lowering.gpu_schedules.library import to_attr

from gpu_support import cp, gpu


def loops(text: str):
    mod = parse_module(make_context(), text, "<slices>")
    run_pipeline(mod, ["aicf-infer-shapes", "aicf-lower-to-loops"])
    return mod


def with_schedule(mod, **params):
    combine = params.pop("combine", None)
    attrs = {"kind": StringAttr("gpu.per_output"), **{k: to_attr(v) for k, v in params.items()}}
    if combine is not None:
        attrs["combine"] = DictionaryAttr({"kind": StringAttr("gpu.per_output"),
                                           **{k: to_attr(v) for k, v in combine.items()}})
    for nest in [o for o in mod.walk() if isinstance(o, NestOp)]:
        nest.attributes["aicf.schedule"] = DictionaryAttr(attrs)
    return mod


def gemv(k: int, n: int, dt: str) -> str:
    return (f"func.func @main(%a: tensor<1x{k}x{dt}>, %b: tensor<{k}x{n}x{dt}>) -> tensor<1x{n}x{dt}> {{\n"
            f"  %c = aicf_tensor.matmul %a, %b : (tensor<1x{k}x{dt}>, tensor<{k}x{n}x{dt}>) -> tensor<1x{n}x{dt}>\n"
            f"  func.return %c : tensor<1x{n}x{dt}>\n}}")


def test_the_planner_takes_one_sliced_kernel_for_a_gemv():
    from aicf.compiler import TENSOR_PIPELINE

    mod = parse_module(make_context(), gemv(4096, 4096, "f16"), "<gemv>")
    run_pipeline(mod, [*TENSOR_PIPELINE, "aicf-plan{target=h100}"])
    (nest,) = [o for o in mod.walk() if isinstance(o, NestOp)]
    s = nest.attributes["aicf.schedule"]
    assert s.data["kind"].data == "gpu.per_output"
    assert s.data["slices"].value.data > 1 and s.data["split"].value.data == 1, s


def test_a_gemv_reading_b_across_rows_is_not_taken_from_the_matmul_kernels():
    """x @ W^T with W stored n x k: per_output's threads would read B rows apart, so it
    stays below the matmul kernels' tier."""
    from aicf.lowering.loop_to_gpu import nest_view
    from aicf.passes.loop.candidates import MATMUL_TIER, per_output_candidate
    from aicf.target import H100

    text = ("func.func @main(%a: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {\n"
            "  %t = aicf_tensor.transpose %w perm = [1, 0] : (tensor<4096x4096xf16>) -> tensor<4096x4096xf16>\n"
            "  %c = aicf_tensor.matmul %a, %t : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf16>\n"
            "  func.return %c : tensor<1x4096xf16>\n}")
    from aicf.compiler import TENSOR_PIPELINE

    for src, tier in ((gemv(4096, 4096, "f16"), MATMUL_TIER), (text, 0)):
        mod = parse_module(make_context(), src, "<gemv>")
        run_pipeline(mod, list(TENSOR_PIPELINE))  # the transpose folds into the matmul's map
        fn = next(o for o in mod.ops if o.name == "func.func")
        nests = [o for o in fn.walk() if isinstance(o, NestOp)]
        c = per_output_candidate(nest_view(fn, nests[-1], len(nests) - 1), H100)
        assert c.tier == tier, src


VECMAT = ("func.func @main(%a: tensor<{k}xf16>, %b: tensor<{b}xf16>) -> tensor<{c}xf16> {{\n"
          "  %c = aicf_tensor.matmul %a, %b : (tensor<{k}xf16>, tensor<{b}xf16>) -> tensor<{c}xf16>\n"
          "  func.return %c : tensor<{c}xf16>\n}}")


@pytest.mark.parametrize("b,c,kind", [
    ("4096x4096", "4096", "gpu.per_output"),  # v @ W: coalesced along n, as the 1 x k GEMV
    ("3x4096x1024", "3x1024", "gpu.per_output"),  # v @ W per batch entry
])
def test_a_vector_times_a_matrix_is_planned_as_the_gemv(b, c, kind):
    """NumPy's `v @ W` of a 1-D v has no m dim, so it was not seen as the GEMV:
    gpu.rows took it (its k is the domain's innermost dim) and each lane read W a row
    apart, down a column."""
    from aicf.compiler import TENSOR_PIPELINE

    mod = parse_module(make_context(), VECMAT.format(k=4096, b=b, c=c), "<vecmat>")
    run_pipeline(mod, [*TENSOR_PIPELINE, "aicf-plan{target=h100}"])
    (nest,) = [o for o in mod.walk() if isinstance(o, NestOp)]
    s = nest.attributes["aicf.schedule"]
    assert s.data["kind"].data == kind and s.data["slices"].value.data > 1, s


def test_a_matrix_times_a_vector_stays_a_row_reduction():
    """W @ v and v @ W^T read W along k: a warp per row (gpu.rows) reads it coalesced."""
    from aicf.compiler import TENSOR_PIPELINE

    mv = ("func.func @main(%w: tensor<1024x4096xf16>, %v: tensor<4096xf16>) -> tensor<1024xf16> {\n"
          "  %c = aicf_tensor.matmul %w, %v : (tensor<1024x4096xf16>, tensor<4096xf16>) -> tensor<1024xf16>\n"
          "  func.return %c : tensor<1024xf16>\n}")
    vmt = ("func.func @main(%v: tensor<4096xf16>, %w: tensor<1024x4096xf16>) -> tensor<1024xf16> {\n"
           "  %t = aicf_tensor.transpose %w perm = [1, 0] : (tensor<1024x4096xf16>) -> tensor<4096x1024xf16>\n"
           "  %c = aicf_tensor.matmul %v, %t : (tensor<4096xf16>, tensor<4096x1024xf16>) -> tensor<1024xf16>\n"
           "  func.return %c : tensor<1024xf16>\n}")
    for src in (mv, vmt):
        mod = parse_module(make_context(), src, "<mv>")
        run_pipeline(mod, [*TENSOR_PIPELINE, "aicf-plan{target=h100}"])
        (nest,) = [o for o in mod.walk() if isinstance(o, NestOp)]
        assert nest.attributes["aicf.schedule"].data["kind"].data == "gpu.rows", src


def test_the_planner_keeps_the_fold_within_a_blocks_shared_memory():
    """Four f64 column reductions of a wide f16 input: a sliced fold of 8-wide vectors
    would need 64 KiB of shared memory; the planner's pick fits 48 KiB."""
    from aicf.passes.loop.candidates import per_output_candidate
    from aicf.lowering.loop_to_gpu import nest_view
    from aicf.target import H100

    t = "tensor<4096x8192xf16>"
    outs = ", ".join(["tensor<8192xf64>"] * 4)
    body = "\n".join(f"  %c{i} = aicf_tensor.cast %x : ({t}) -> tensor<4096x8192xf64>\n"
                     f"  %r{i} = aicf_tensor.{op} %c{i} axes = [0] : (tensor<4096x8192xf64>) -> tensor<8192xf64>"
                     for i, op in enumerate(["reduce_sum", "reduce_max", "reduce_sum", "reduce_max"]))
    src = (f"func.func @main(%x: {t}) -> ({outs}) {{\n{body}\n"
           f"  func.return %r0, %r1, %r2, %r3 : {outs}\n}}")
    mod = parse_module(make_context(), src, "<fold>")
    from aicf.compiler import TENSOR_PIPELINE
    run_pipeline(mod, list(TENSOR_PIPELINE))
    fn = next(o for o in mod.ops if o.name == "func.func")
    for i, nest in enumerate(o for o in fn.walk() if isinstance(o, NestOp)):
        view = nest_view(fn, nest, i)
        s = per_output_candidate(view, H100).schedule
        if s.get("slices", 1) > 1:
            acc = sum(8 if "64" in str(a) else 4 for a in view.acc_types)
            assert s["block"] * s["vec"] * acc <= H100.smem_per_block_default, s.describe()


def run(mod, *arrays):
    from aicf.backend.cuda.program import compile_cuda

    prog = compile_cuda(mod, "main")
    prog.debug = True  # outputs poisoned (NaN) before the kernels run
    return prog(*[cp.asarray(a) for a in arrays])


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("k,n,dt,vec,block,slices", [
    (4096, 4096, "f16", 4, 256, 32),
    (4096, 4096, "f16", 2, 512, 16),
    (3072, 768, "f16", 4, 256, 16),
    (1000, 512, "f32", 4, 128, 8),   # k not a multiple of the slices
    (77, 96, "f32", 2, 64, 4),
    (1000, 1000, "f32", 4, 128, 8),  # 250 output vectors in tiles of 16: the last tile ragged
])
def test_gemv(k, n, dt, vec, block, slices):
    npdt = {"f16": np.float16, "f32": np.float32}[dt]
    rng = np.random.default_rng(k + n)
    a = rng.standard_normal((1, k)).astype(npdt)
    b = rng.standard_normal((k, n)).astype(npdt)
    mod = with_schedule(loops(gemv(k, n, dt)), vec=vec, block=block, grid=-(-(n // vec) // (block // slices)),
                        split=1, slices=slices, unroll=4, minblocks=1)
    got = cp.asnumpy(run(mod, a, b)).astype(np.float64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 5e-3 if dt == "f16" else 1e-5
    assert np.max(np.abs(got - ref)) <= tol * np.max(np.abs(ref))


COLS = """
func.func @main(%x: tensor<{m}x{n}xf32>) -> (tensor<{n}xf32>, tensor<{n}xf32>) {{
  %s = aicf_tensor.reduce_sum %x axes = [0] : (tensor<{m}x{n}xf32>) -> tensor<{n}xf32>
  %t = aicf_tensor.reduce_max %x axes = [0] : (tensor<{m}x{n}xf32>) -> tensor<{n}xf32>
  func.return %s, %t : tensor<{n}xf32>, tensor<{n}xf32>
}}
"""


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("m,n,block,slices,split", [
    (4096, 1024, 256, 32, 1),
    (4096, 1000, 256, 32, 1),  # 250 output vectors in tiles of 8: the last tile ragged
    (999, 64, 64, 4, 3),
])
def test_column_sum_and_max(m, n, block, slices, split):
    rng = np.random.default_rng(m)
    x = rng.standard_normal((m, n)).astype(np.float32)
    comb = dict(vec=4, block=64, grid=1, split=1, unroll=4, minblocks=1)
    params = dict(vec=4, block=block, grid=-(-(n // 4) // (block // slices)), split=split, slices=slices, unroll=4,
                  minblocks=1, **({"combine": comb} if split > 1 else {}))
    mod = loops(COLS.format(m=m, n=n))
    with_schedule(mod, **params)
    s, t = run(mod, x)
    np.testing.assert_allclose(cp.asnumpy(s), x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(cp.asnumpy(t), x.max(0))


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("k,n", [(4096, 4096), (1000, 1000), (77, 96)])
def test_vector_times_matrix_on_the_gpu(k, n):
    import aicf

    rng = np.random.default_rng(k)
    v = rng.standard_normal(k).astype(np.float16)
    w = rng.standard_normal((k, n)).astype(np.float16)
    exe = aicf.compile(VECMAT.format(k=k, b=f"{k}x{n}", c=n), target="cuda", tune=False, debug=True)
    got = cp.asnumpy(exe(cp.asarray(v), cp.asarray(w))).astype(np.float64)
    ref = v.astype(np.float64) @ w.astype(np.float64)
    assert np.max(np.abs(got - ref)) <= 5e-3 * np.max(np.abs(ref))
