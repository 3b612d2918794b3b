"""CuPy's reductions (CUB) as a library kernel: `cub_reduce_candidate` takes plain
sums and maxes of one input over its trailing dims and says why not for the rest;
its parameters lower to a verified `aicf_gpu.library_call "cub.reduce"`; on the GPU
(`pytest -m gpu`) the call matches NumPy float64 with outputs poisoned first."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from aicf.backend.cuda.program import lower_to_gpu
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.cost.library import CUB_REDUCE, cub_reduce_candidate, cub_reduce_terms
from aicf.diagnostics import parse_module
from aicf.dialects import gpu
from aicf.dialects.loop import NestOp
from aicf.lowering.gpu_schedules.library import to_attr
from aicf.target import H100

from gpu_support import cp, gpu as needs_gpu
from test_cublas_runtime import _Array, _dev, _poisoned, cublas_calls  # noqa: F401 (a fixture)
from test_gpu_matmul import as_f64, to_dtype

OPS = {"sum": "reduce_sum", "max": "reduce_max", "mean": "reduce_mean"}


def loops_of(shape, axes, op="sum", dt="f32", keepdims=False) -> str:
    """The loop-level program of one tensor reduction (aicf-lower-to-loops)."""
    out = [1 if i in axes else e for i, e in enumerate(shape)] if keepdims else [
        e for i, e in enumerate(shape) if i not in axes]
    t = lambda s: f"tensor<{'x'.join(map(str, [*s, dt]))}>"  # noqa: E731
    kd = " keepdims" if keepdims else ""
    text = f"""
func.func @main(%x: {t(shape)}) -> {t(out)} {{
  %0 = aicf_tensor.{OPS[op]} %x axes = {list(axes)}{kd} : ({t(shape)}) -> {t(out)}
  func.return %0 : {t(out)}
}}"""
    mod = parse_module(make_context(), text, "<reduce>")
    run_pipeline(mod, ["aicf-lower-to-loops"])
    return mod


def scheduled(mod):
    for nest in [o for o in mod.walk() if isinstance(o, NestOp)]:
        p = cub_reduce_candidate(nest)
        if isinstance(p, dict):
            nest.attributes["aicf.schedule"] = DictionaryAttr(
                {"kind": StringAttr(CUB_REDUCE), **{k: to_attr(v) for k, v in p.items()}}
            )
    return mod


def first_nest(mod) -> NestOp:
    return next(o for o in mod.walk() if isinstance(o, NestOp))


@pytest.mark.parametrize(
    "shape,axes,op,dt,keepdims,want",
    [
        ((4, 1000), (1,), "sum", "f32", False, dict(op="sum", reduce_dims=1, rows=4, cols=1000, out_dtype="f32")),
        ((4, 8), (1,), "sum", "f16", True, dict(op="sum", reduce_dims=1, rows=4, cols=8, out_dtype="f16")),
        ((2, 4, 8), (1, 2), "max", "f16", False, dict(op="max", reduce_dims=2, rows=2, cols=32, out_dtype="f16")),
        ((5, 3), (0, 1), "sum", "f32", False, dict(op="sum", reduce_dims=2, rows=1, cols=15, out_dtype="f32")),
        ((4, 8), (1,), "mean", "f32", False, dict(op="sum", reduce_dims=1, rows=4, cols=8, out_dtype="f32")),
    ],
    ids=["rows", "f16_keepdims", "max_two_dims", "all", "mean_sum_part"],
)
def test_takes(shape, axes, op, dt, keepdims, want):
    p = cub_reduce_candidate(first_nest(loops_of(shape, axes, op, dt, keepdims)))
    assert p == {**want, "dtype": dt}


@pytest.mark.parametrize(
    "mod,reason",
    [
        (lambda: loops_of((4, 8), (0,)), "the reduced dims are not the trailing ones"),
        (lambda: loops_of((4, 8), (1,), dt="bf16"), "CuPy reduces f32 and f16 here, not bf16"),
        (lambda: loops_of((4, 8), (1,), dt="f64"), "CuPy reduces f32 and f16 here, not f64"),
        (lambda: _fused_exp_sum(), "the body is not the plain input (other ops are fused into the reduction)"),
        (lambda: _nest_mod("memref<4x8xf32>, memref<8xf32>", "(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)",
                           "%a, %b", "^bb0(%u: f32, %v: f32):\n %s = arith.addf %u, %v : f32\n aicf_loop.yield %s : f32"),
         "a reduction of one input into one output, the nest has 2 and 1"),
        (lambda: _nest_mod("memref<8x4xf32>", "(d0, d1) -> (d1, d0), (d0, d1) -> (d0)", "%a",
                           "^bb0(%u: f32):\n aicf_loop.yield %u : f32"),
         "the input is not read in the domain's order (a broadcast, transpose or reshape)"),
        (lambda: _nest_mod("memref<4x8xf16>", "(d0, d1) -> (d0, d1), (d0, d1) -> (d0)", "%a",
                           "^bb0(%u: f16):\n aicf_loop.yield %u : f16", out="memref<4xf16>"),
         "the nest sums in f16; CuPy sums f16 in f32"),
    ],
    ids=["column", "bf16", "f64", "epilogue", "two_inputs", "transposed", "f16_accumulator"],
)
def test_declines_with_reason(mod, reason):
    assert cub_reduce_candidate(first_nest(mod())) == reason


def _fused_exp_sum():
    mod = parse_module(make_context(), """
func.func @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = aicf_tensor.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = aicf_tensor.reduce_sum %e axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}""", "<fused>")
    run_pipeline(mod, ["aicf-fuse", "aicf-lower-to-loops"])
    return mod


def _nest_mod(in_types: str, maps: str, ins: str, body: str, out: str = "memref<4xf32>"):
    names = ins.split(", ")
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, in_types.split(", ")))
    return parse_module(make_context(), f"""
func.func @main({args}, %y: {out}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction] ins({ins} : {in_types}) outs(%y : {out})
      maps = [{maps}] combiners = [add] {{
  {body}
  }}
  func.return
}}""", "<nest>")


def test_lowers_to_a_verified_call():
    mod = scheduled(loops_of((2, 4, 8), (1, 2), "max", "f16", keepdims=True))
    run_pipeline(mod, ["aicf-lower-to-gpu"])
    calls = [o for o in mod.walk() if isinstance(o, gpu.LibraryCallOp)]
    assert [c.routine for c in calls] == ["cub.reduce"] and calls[0].param("cols") == 32


def test_cost_is_the_bytes_read_plus_a_launch():
    big = cub_reduce_terms({"rows": 8192, "cols": 8192, "dtype": "f32", "out_dtype": "f32"}, H100)
    # DESIGN.md: cupy.sum over 8192x8192 f32 rows takes 0.101 ms (2651 GB/s)
    assert 0.08e-3 < big["total"] < 0.12e-3
    assert cub_reduce_terms({"rows": 0, "cols": 5, "dtype": "f32", "out_dtype": "f32"}, H100)["total"] == 0


@pytest.mark.parametrize(
    "shape,axes,op,dt,keepdims",
    [((5, 7), (1,), "sum", "f32", False), ((2, 3, 4), (1, 2), "max", "f16", True),
     ((3, 0), (1,), "sum", "f16", True), ((0, 4), (1,), "sum", "f32", False)],
)
def test_runtime_call(shape, axes, op, dt, keepdims, cublas_calls):
    """The runtime's axes, output view and empty cases, with CuPy's reductions
    replaced by NumPy's (test_cublas_runtime.py)."""
    from aicf.backend.cuda.library import prepare

    mod = lower_to_gpu(scheduled(loops_of(shape, axes, op, dt, keepdims)))
    call = prepare(next(o for o in mod.walk() if isinstance(o, gpu.LibraryCallOp)))
    x = to_dtype(np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32), dt)
    out_shape = tuple(1 if i in axes else e for i, e in enumerate(shape)) if keepdims else tuple(
        e for i, e in enumerate(shape) if i not in axes)
    y = _poisoned(out_shape, dt)
    call([_dev(x)], [y], contextlib.nullcontext())
    fold = np.sum if op == "sum" else np.max
    ref = fold(as_f64(x, dt), axis=axes, keepdims=keepdims, **({} if op == "sum" else {"initial": -np.inf}))
    got = as_f64(np.asarray(y), dt)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, rtol=2**-10)
    assert bool(cublas_calls) == (0 not in shape)


# --------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------

GPU_CASES = [
    # (shape, axes, op, dt, keepdims)
    ((8192, 8192), (1,), "sum", "f32", False),
    ((3000, 3001), (1,), "sum", "f32", False),
    ((1024, 65536), (1,), "sum", "f32", False),
    ((7, 5, 33), (1, 2), "max", "f32", True),
    ((256, 4096), (1,), "sum", "f16", False),
    ((33, 1000), (1,), "max", "f16", False),
    ((4, 0), (1,), "sum", "f32", False),
    ((0, 7), (1,), "sum", "f32", False),
    ((1, 1), (1,), "sum", "f16", False),
]


@needs_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU_CASES, ids=lambda c: f"{c[2]}-{c[3]}-{'x'.join(map(str, c[0]))}")
def test_gpu_reduce(case):
    from aicf.backend.cuda.program import compile_cuda

    shape, axes, op, dt, keepdims = case
    prog = compile_cuda(scheduled(loops_of(shape, axes, op, dt, keepdims)), "main", sync="full-sync")
    assert any(isinstance(o, gpu.LibraryCallOp) for o in prog.module.walk())
    prog.debug = True  # outputs poisoned
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    xd = to_dtype(x, dt)
    got = as_f64(cp.asnumpy(prog(cp.asarray(xd))), dt)
    x64 = as_f64(xd, dt)
    if op == "sum":
        ref = np.sum(x64, axis=axes, keepdims=keepdims)
    else:
        ref = np.max(x64, axis=axes, keepdims=keepdims, initial=-np.inf)
    assert not np.isnan(got).any()
    if op == "max":
        assert np.array_equal(got, ref)
    elif dt == "f32":
        assert np.linalg.norm(got - ref) <= 1e-5 * max(np.linalg.norm(ref), 1e-30)
    else:  # f32 accumulation, one rounding to f16 at the end
        assert np.allclose(got, ref, rtol=2**-10, atol=2**-10 * np.abs(ref).max(initial=1.0))


@needs_gpu
@pytest.mark.gpu
def test_gpu_reduce_strided_input_and_profiler():
    """A strided input is reduced in place (CuPy takes the strides); the profiler
    records the call."""
    import aicf
    from aicf.backend.cuda.program import compile_cuda

    text = """
func.func @main(%x: memref<64x100xf32, strided<[?, ?], offset: ?>>, %y: memref<64xf32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [64, 100] iterators = [parallel, reduction]
      ins(%x : memref<64x100xf32, strided<[?, ?], offset: ?>>) outs(%y : memref<64xf32>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [add] {
  ^bb0(%v: f32):
    aicf_loop.yield %v : f32
  }
  func.return
}"""
    prog = compile_cuda(scheduled(parse_module(make_context(), text, "<s>")), "main")
    big = cp.asarray(np.random.default_rng(1).uniform(-1, 1, (128, 300)).astype(np.float32))
    x = big[1::2, 5:205:2]
    with aicf.profiler() as prof:
        y = prog(x)
    ref = cp.asnumpy(x).astype(np.float64).sum(axis=1)
    assert np.linalg.norm(cp.asnumpy(y) - ref) <= 1e-5 * np.linalg.norm(ref)
    assert [r.kernel for r in prof.records] == ["cub.reduce[sum 64x100 f32]"]
    assert prof.records[0].nbytes == 4 * (64 * 100 + 64)


@needs_gpu
@pytest.mark.gpu
def test_gpu_mean_runs_the_sum_by_cub():
    from aicf.backend.cuda.program import compile_cuda

    prog = compile_cuda(scheduled(loops_of((300, 700), (1,), "mean")), "main")
    x = np.random.default_rng(2).uniform(-1, 1, (300, 700)).astype(np.float32)
    got = cp.asnumpy(prog(cp.asarray(x))).astype(np.float64)
    ref = x.astype(np.float64).mean(axis=1)
    assert np.linalg.norm(got - ref) <= 1e-5 * np.linalg.norm(ref)


def test_program_lowering_without_gpu():
    """What the GPU tests compile lowers here too: the sum is the call, the division
    of the mean a kernel after it."""
    mod = lower_to_gpu(scheduled(loops_of((300, 700), (1,), "mean")))
    fn = next(o for o in mod.ops if o.name == "func.func")
    host = [o.name for o in fn.body.block.ops]
    assert host == ["aicf_gpu.library_call", "aicf_gpu.launch", "func.return"]
