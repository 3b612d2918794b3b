"""cuBLAS as a candidate for a nest (aicf/cost/library.py): which nests the guard
takes and the reasons it gives for the others; that the parameters it writes
compute the nest (checked on the CPU by reading the buffers the way cuBLAS reads
them, against NumPy float64 on the nest's own maps); that they lower to a verified
`aicf_gpu.library_call`; and the cost model's terms."""

from __future__ import annotations

import string

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.ir.affine import AffineDimExpr
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects

from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.cost.library import (
    CUBLAS_GEMM,
    cublas_gemm_candidate,
    cublas_gemm_terms,
    cublas_gemm_time,
    describe,
)
from aicf.diagnostics import parse_module
from aicf.dialects import gpu
from aicf.dialects.loop import NestOp
from aicf.lowering.gpu_schedules.library import to_attr
from aicf.target import H100

MUL = "^bb0(%x: {t}, %w: {t}):\n{ext}    %p = arith.mulf {xa}, {wa} : f32\n    aicf_loop.yield %p : f32"


def body(dt: str) -> str:
    if dt == "f32":
        return MUL.format(t="f32", ext="", xa="%x", wa="%w")
    ext = f"    %x2 = arith.extf %x : {dt} to f32\n    %w2 = arith.extf %w : {dt} to f32\n"
    return MUL.format(t=dt, ext=ext, xa="%x2", wa="%w2")


def module_of(domain, ins, out, maps, dt="f32", out_dt=None, bdy=None, combiner="add"):
    """A func with one nest: `ins`/`out` are memref shapes (or full memref types)."""
    out_dt = out_dt or dt

    def ty(s, d):
        return s if isinstance(s, str) else f"memref<{'x'.join(map(str, s))}{'x' if s else ''}{d}>"

    tys = [ty(s, dt) for s in ins] + [ty(out, out_dt)]
    names = ["%a", "%b", "%c"][: len(ins)] + ["%y"]
    iters = ", ".join("reduction" if i == len(domain) - 1 else "parallel" for i in range(len(domain)))
    text = f"""
func.func @f({', '.join(f'{n}: {t}' for n, t in zip(names, tys))}) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = {list(domain)} iterators = [{iters}]
      ins({', '.join(names[:-1])} : {', '.join(tys[:-1])}) outs(%y : {tys[-1]})
      maps = [{', '.join(maps)}] combiners = [{combiner}] {{
  {bdy or body(dt)}
  }}
  func.return
}}"""
    return parse_module(make_context(), text, "<t>")


def nest_in(mod) -> NestOp:
    return next(o for o in mod.walk() if isinstance(o, NestOp))


def mm_maps(rank=3, a="(d0, d2)", b="(d2, d1)", c="(d0, d1)"):
    ds = ", ".join(f"d{i}" for i in range(rank))
    return [f"({ds}) -> {a}", f"({ds}) -> {b}", f"({ds}) -> {c}"]


# --------------------------------------------------------------------------------------
# The parameters compute the nest: cuBLAS's reading of the buffers, in NumPy
# --------------------------------------------------------------------------------------


def reference(nest: NestOp, arrays):
    """The nest's sum of products in float64, from its maps (einsum over the dims)."""
    letters = string.ascii_letters
    subs = []
    ops = []
    for x, m in zip(arrays, nest.input_maps):
        idx = tuple(slice(None) if isinstance(r, AffineDimExpr) else r.value for r in m.results)
        ops.append(np.asarray(x, np.float64)[idx])
        subs.append("".join(letters[r.position] for r in m.results if isinstance(r, AffineDimExpr)))
    out = "".join(letters[r.position] for r in nest.output_maps[0].results)
    return np.einsum(f"{','.join(subs)}->{out}", *ops)


def run_params(p: dict, arrays, out_shape):
    """C as cuBLAS computes it from `p` over the dense buffers (row-major terms of
    gpu.LibraryCallOp): poisoned first, so unwritten elements stay NaN."""
    A, B = (np.ascontiguousarray(arrays[p[x]], np.float64).ravel() for x in "ab")
    C = np.full(int(np.prod(out_shape)), np.nan)
    m, n, k, batch = p["m"], p["n"], p["k"], p["batch"]
    loops = p["loops"]

    def view(buf, off, rows, cols, ld, trans, stride):
        st = (stride, 1, ld) if trans else (stride, ld, 1)
        if buf.size == 0 or batch == 0 or rows == 0 or cols == 0:
            return np.zeros((batch, rows, cols))
        return np.lib.stride_tricks.as_strided(buf[off:], (batch, rows, cols), tuple(s * 8 for s in st))

    if 0 in (m, n, batch, *loops):
        return C.reshape(out_shape)
    for idx in np.ndindex(*loops):
        off = [p[f"offset_{x}"] + sum(i * s for i, s in zip(idx, p[f"loop_stride_{x}"])) for x in "abc"]
        a = view(A, off[0], m, k, p["lda"], p["trans_a"], p["stride_a"])
        b = view(B, off[1], k, n, p["ldb"], p["trans_b"], p["stride_b"])
        c = np.lib.stride_tricks.as_strided(C[off[2]:], (batch, m, n), (p["stride_c"] * 8, p["ldc"] * 8, 8))
        c[...] = a @ b
    return C.reshape(out_shape)


CASES = {
    # name: (domain, input shapes, output shape, maps)
    "2d": ((5, 7, 3), [(5, 3), (3, 7)], (5, 7), mm_maps()),
    "odd": ((33, 17, 9), [(33, 9), (9, 17)], (33, 17), mm_maps()),
    "a_transposed": ((4, 6, 5), [(5, 4), (5, 6)], (4, 6), mm_maps(a="(d2, d0)")),
    "b_transposed": ((4, 6, 5), [(4, 5), (6, 5)], (4, 6), mm_maps(b="(d1, d2)")),
    "both_transposed": ((4, 6, 5), [(5, 4), (6, 5)], (4, 6), mm_maps(a="(d2, d0)", b="(d1, d2)")),
    "b_first": ((4, 6, 5), [(5, 6), (4, 5)], (4, 6), [mm_maps()[1], mm_maps()[0], mm_maps()[2]]),
    "batched": ((2, 3, 4, 5, 6), [(2, 3, 4, 6), (2, 3, 6, 5)], (2, 3, 4, 5),
                mm_maps(5, a="(d0, d1, d2, d4)", b="(d0, d1, d4, d3)", c="(d0, d1, d2, d3)")),
    "broadcast_a": ((3, 4, 5, 6), [(4, 6), (3, 6, 5)], (3, 4, 5),
                    mm_maps(4, a="(d1, d3)", b="(d0, d3, d2)", c="(d0, d1, d2)")),
    "broadcast_loops": ((2, 5, 3, 6, 4), [(2, 1, 3, 4), (5, 4, 6)], (2, 5, 3, 6),
                        mm_maps(5, a="(d0, 0, d2, d4)", b="(d1, d4, d3)", c="(d0, d1, d2, d3)")),
    "const_index": ((4, 5, 3), [(4, 3), (2, 3, 5)], (4, 5), mm_maps(b="(1, d2, d1)")),
    "m1": ((1, 7, 3), [(1, 3), (3, 7)], (1, 7), mm_maps()),
    "n1_k1": ((5, 1, 1), [(5, 1), (1, 1)], (5, 1), mm_maps()),
    "zero_m": ((0, 4, 3), [(0, 3), (3, 4)], (0, 4), mm_maps()),
    "zero_batch": ((0, 2, 4, 3), [(0, 2, 3), (3, 4)], (0, 2, 4),
                   mm_maps(4, a="(d0, d1, d3)", b="(d3, d2)", c="(d0, d1, d2)")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_params_compute_the_nest(name):
    domain, ins, out, maps = CASES[name]
    nest = nest_in(module_of(domain, ins, out, maps))
    p = cublas_gemm_candidate(nest)
    assert isinstance(p, dict), p
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ins]
    got = run_params(p, arrays, out)
    assert not np.isnan(got).any(), f"elements left unwritten by {describe(p)}"
    np.testing.assert_allclose(got, reference(nest, arrays), rtol=1e-12, atol=1e-12)


def test_zero_k_is_a_fill():
    """k = 0: an empty sum; cuBLAS does not touch C, so the runtime fills zeros."""
    p = cublas_gemm_candidate(nest_in(module_of((3, 4, 0), [(3, 0), (0, 4)], (3, 4), mm_maps())))
    assert isinstance(p, dict) and p["k"] == 0 and p["m"] == 3 and p["n"] == 4
    assert cublas_gemm_terms(p, H100)["launch"] == H100.launch_overhead_s


@pytest.mark.parametrize("name", sorted(CASES))
def test_params_lower_to_a_verified_call(name):
    """The guard's parameters, written as the nest's schedule, lower to a library
    call that the verifier accepts (bounds, leading dims, types)."""
    domain, ins, out, maps = CASES[name]
    mod = module_of(domain, ins, out, maps)
    nest = nest_in(mod)
    p = cublas_gemm_candidate(nest)
    assert isinstance(p, dict), p
    nest.attributes["aicf.schedule"] = DictionaryAttr(
        {"kind": StringAttr(CUBLAS_GEMM), **{k: to_attr(v) for k, v in p.items()}}
    )
    run_pipeline(mod, ["aicf-lower-to-gpu"])
    calls = [o for o in mod.walk() if isinstance(o, gpu.LibraryCallOp)]
    assert len(calls) == 1 and not any(isinstance(o, NestOp | gpu.KernelOp) for o in mod.walk())
    assert {k: calls[0].param(k) for k in p} == p
    # reads A and B, writes C, nothing else (what a pass moving host ops relies on)
    assert get_effects(calls[0]) == {
        *(EffectInstance(MemoryEffectKind.READ, v) for v in calls[0].inputs),
        EffectInstance(MemoryEffectKind.WRITE, calls[0].outputs[0]),
    }


# --------------------------------------------------------------------------------------
# What the guard takes and why it declines
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt,out_dt", [("f16", "f16"), ("bf16", "bf16"), ("f16", "f32"), ("bf16", "f32")])
def test_half_inputs_accumulate_in_f32(dt, out_dt):
    nest = nest_in(module_of((8, 4, 16), [(8, 16), (16, 4)], (8, 4), mm_maps(), dt=dt, out_dt=out_dt))
    p = cublas_gemm_candidate(nest, tf32=True)
    assert isinstance(p, dict), p
    assert (p["dtype"], p["out_dtype"], p["compute"]) == (dt, out_dt, "f32")  # tf32 is for f32 inputs


def test_tf32_only_when_asked():
    nest = nest_in(module_of((8, 4, 16), [(8, 16), (16, 4)], (8, 4), mm_maps()))
    assert cublas_gemm_candidate(nest)["compute"] == "f32"  # type: ignore[index]
    assert cublas_gemm_candidate(nest, tf32=True)["compute"] == "tf32"  # type: ignore[index]


def test_dynamic_strides_are_planned_dense():
    """A strided argument (strides known at run time) is described as dense
    row-major; the runtime copies a non-contiguous array to that."""
    t = "memref<8x4xf32, strided<[?, ?], offset: ?>>"
    nest = nest_in(module_of((8, 5, 4), [t, (4, 5)], (8, 5), mm_maps()))
    p = cublas_gemm_candidate(nest)
    assert isinstance(p, dict)
    assert (p["trans_a"], p["lda"]) == (0, 4)


def test_static_column_major_layout():
    """A static strided layout with unit stride along m is a transposed A."""
    t = "memref<8x4xf32, strided<[1, 8]>>"
    p = cublas_gemm_candidate(nest_in(module_of((8, 5, 4), [t, (4, 5)], (8, 5), mm_maps())))
    assert isinstance(p, dict)
    assert (p["trans_a"], p["lda"]) == (1, 8)


I32_BODY = "^bb0(%x: i32, %w: i32):\n    %p = arith.muli %x, %w : i32\n    aicf_loop.yield %p : i32"
F16_ACC = "^bb0(%x: f16, %w: f16):\n    %p = arith.mulf %x, %w : f16\n    aicf_loop.yield %p : f16"
EPILOGUE = (
    "^bb0(%x: f32, %w: f32):\n    %p = arith.mulf %x, %w : f32\n    %q = math.exp %p : f32\n"
    "    aicf_loop.yield %q : f32"
)
MAX_BODY = "^bb0(%x: f32, %w: f32):\n    %p = arith.mulf %x, %w : f32\n    aicf_loop.yield %p : f32"


@pytest.mark.parametrize(
    "mod,reason",
    [
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), dt="f64"),
         "cuBLAS takes A and B of one type of f32, f16, bf16, not f64 and f64"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), dt="i32", bdy=I32_BODY),
         "cuBLAS takes A and B of one type of f32, f16, bf16, not i32 and i32"),
        (lambda: module_of((4, 4, 4), ["memref<4x4xf16>", (4, 4)], (4, 4), mm_maps(),
                           bdy=body("f16").replace("%w: f16", "%w: f32").replace(
                               "    %w2 = arith.extf %w : f16 to f32\n", "").replace("%w2", "%w")),
         "cuBLAS takes A and B of one type of f32, f16, bf16, not f16 and f32"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), dt="f32", out_dt="f16"),
         "C is f16: cuBLAS writes C in the inputs' type (f32) or f32"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), dt="f16", bdy=F16_ACC),
         "the nest accumulates in f16; cuBLAS is called with f32 accumulation"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), bdy=EPILOGUE),
         "the body is not a plain product of the two inputs (an epilogue or other ops are fused into it)"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(), bdy=MAX_BODY, combiner="max"),
         "the combiner is ['max'], not a sum"),
        (lambda: module_of((4, 4), [(4, 4)], (4,), ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"],
                           bdy="^bb0(%x: f32):\n    aicf_loop.yield %x : f32"),
         "a matmul has 2 inputs and 1 output, the nest has 1 and 1"),
        (lambda: module_of((4, 4, 4), [(4, 4), (4, 4)], (4, 4), mm_maps(b="(d2, d0)")),
         "the access maps are not a matmul's (one reduction dim k, A over m and k, B over k and n, C over the rest)"),
        (lambda: module_of((4, 5, 3), ["memref<4x3xf32, strided<[6, 2]>>", (3, 5)], (4, 5), mm_maps()),
         "A has no unit stride along either of its matrix dims (cuBLAS needs one)"),
        (lambda: module_of((4, 5, 3), [(4, 3), (3, 5)], "memref<4x5xf32, strided<[1, 4]>>", mm_maps()),
         "C is not row-major with a unit stride along n"),
        (lambda: module_of((4, 5, 3), ["memref<4x3xf32, strided<[3, 1], offset: 7>>", (3, 5)], (4, 5), mm_maps()),
         "a static layout offset (memref<4x3xf32, strided<[3, 1], offset: 7>>)"),
    ],
    ids=["f64", "i32", "mixed", "f16_out_of_f32", "f16_accumulator", "epilogue", "max", "elementwise",
         "not_matmul_maps", "no_unit_stride", "c_column_major", "static_offset"],
)
def test_declines_with_reason(mod, reason):
    assert cublas_gemm_candidate(nest_in(mod())) == reason


# --------------------------------------------------------------------------------------
# Cost
# --------------------------------------------------------------------------------------


def params(m, n, k, dt="f32", compute="f32", batch=1, loops=()):
    nest = nest_in(module_of((m, n, k), [(m, k), (k, n)], (m, n), mm_maps(), dt=dt))
    p = cublas_gemm_candidate(nest)
    assert isinstance(p, dict)
    return {**p, "compute": compute, "batch": batch, "loops": list(loops),
            "loop_stride_a": [0] * len(loops), "loop_stride_b": [0] * len(loops),
            "loop_stride_c": [m * n * batch] * len(loops)}


def test_large_gemm_is_compute_bound_at_the_measured_rate():
    t = cublas_gemm_terms(params(4096, 4096, 4096), H100)
    assert t["compute"] > 10 * t["memory"]
    # the target's f32 rate is cuBLAS's measured sgemm: 4096^3 in ~2.7 ms
    assert 2.5e-3 < t["total"] < 2.9e-3


def test_tensor_core_modes_are_faster():
    f32 = cublas_gemm_time(params(4096, 4096, 4096), H100)
    tf32 = cublas_gemm_time(params(4096, 4096, 4096, compute="tf32"), H100)
    f16 = cublas_gemm_time(params(4096, 4096, 4096, dt="f16"), H100)
    assert f16 < tf32 < f32 / 5


def test_gemv_is_memory_bound():
    """1 x 4096 @ 4096 x 4096 (DESIGN.md's GEMV, ~0.03 ms measured through cuBLAS)."""
    t = cublas_gemm_terms(params(1, 4096, 4096), H100)
    assert t["memory"] > 2 * t["compute"]
    assert 5e-6 < t["total"] < 0.05e-3


def test_loops_cost_a_launch_each_and_empty_costs_nothing():
    one = cublas_gemm_terms(params(64, 64, 64), H100)
    three = cublas_gemm_terms(params(64, 64, 64, loops=(3,)), H100)
    assert three["launch"] == pytest.approx(3 * one["launch"])
    assert cublas_gemm_time(params(0, 64, 64), H100) == 0.0


def test_library_candidates_for_the_planner():
    """Both kinds are listed for a nest, the one that applies with its schedule and
    predicted time, the other with its guard's reason."""
    from aicf.cost.library import CUB_REDUCE, library_candidates

    nest = nest_in(module_of((256, 256, 256), [(256, 256), (256, 256)], (256, 256), mm_maps()))
    gemm, red = library_candidates(nest, H100)
    assert (gemm.kind, red.kind) == (CUBLAS_GEMM, CUB_REDUCE)
    assert gemm.schedule() == {"kind": CUBLAS_GEMM, **cublas_gemm_candidate(nest), "est_ns": round(gemm.time * 1e9)}
    assert red.params is None and red.reason == "a reduction of one input into one output, the nest has 2 and 1"
    assert red.explain() == f"{CUB_REDUCE}: not applicable: {red.reason}"
    assert gemm.explain().startswith(f"{CUBLAS_GEMM}: {gemm.time * 1e6:.1f}us (compute ")


def test_batches_of_rows_against_a_broadcast_b_are_one_call():
    """x @ W with x: [4, 8, 6] row-major: the batches continue A's and C's rows, so
    the call has M = 32 rows and no batch; a transposed A's batches do not fold."""
    maps = mm_maps(4, "(d0, d1, d3)", "(d3, d2)", "(d0, d1, d2)")
    p = cublas_gemm_candidate(nest_in(module_of((4, 8, 5, 6), [(4, 8, 6), (6, 5)], (4, 8, 5), maps)))
    assert isinstance(p, dict)
    assert (p["m"], p["batch"], p["stride_a"], p["stride_c"]) == (32, 1, 0, 0)
    at = mm_maps(4, "(d0, d3, d1)", "(d3, d2)", "(d0, d1, d2)")
    p = cublas_gemm_candidate(nest_in(module_of((4, 8, 5, 6), [(4, 6, 8), (6, 5)], (4, 8, 5), at)))
    assert isinstance(p, dict)
    assert (p["m"], p["batch"], p["trans_a"]) == (8, 4, 1)
