"""i1 as arith defines it (two's complement of one bit: true is -1 to the signed ops,
sums are modulo 2) on the cpu target, against NumPy on hand-written loop-level IR
(C's bool is 1 and saturates: addi gave 1 + 1 = 1, extsi gave 1, maxsi was an or);
and the GPU lowering's i1 reductions fold as the nest's i1 combiners do (or for add
and max from false, and for mul and min from true), as the cpu target and the
upstream lowering fold them, not through the signed max from the signed minimum."""

from __future__ import annotations

import numpy as np
import pytest

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module

A = np.array([0, 0, 1, 1], bool)
B = np.array([0, 1, 0, 1], bool)
SA, SB = -A.astype(np.int64), -B.astype(np.int64)  # the signed values of the bits

ELEMENTWISE = """func.func @f(%x: memref<4xi1>, %z: memref<4xi1>, %y: memref<4xRT>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel]
      ins(%x, %z : memref<4xi1>, memref<4xi1>) outs(%y : memref<4xRT>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] combiners = [none] {
  ^bb0(%a : i1, %b : i1):
    BODY
    aicf_loop.yield %c : RT
  }
  func.return
}"""

CASES = [
    ("%c = arith.addi %a, %b : i1", "i1", (SA + SB) % 2),
    ("%c = arith.subi %a, %b : i1", "i1", (SA - SB) % 2),
    ("%c = arith.maxsi %a, %b : i1", "i1", -np.maximum(SA, SB)),
    ("%c = arith.minsi %a, %b : i1", "i1", -np.minimum(SA, SB)),
    ("%c = arith.maxui %a, %b : i1", "i1", np.maximum(A, B)),
    ("%c = arith.cmpi slt, %a, %b : i1", "i1", SA < SB),
    ("%c = arith.cmpi sge, %a, %b : i1", "i1", SA >= SB),
    ("%c = arith.cmpi ult, %a, %b : i1", "i1", A < B),
    ("%c = arith.extsi %a : i1 to i32", "i32", SA),
    ("%c = arith.extui %a : i1 to i32", "i32", A),
    ("%c = arith.sitofp %a : i1 to f32", "f32", SA),
    ("%c = arith.uitofp %a : i1 to f32", "f32", A),
]


@pytest.mark.parametrize("body,rt,want", CASES, ids=[c[0].split("= ")[1].split(" %")[0] for c in CASES])
def test_i1_arith_on_cpu(body, rt, want):
    text = ELEMENTWISE.replace("BODY", body).replace("RT", rt)
    got = aicf.compile(parse_module(make_context(), text, "<test>"), target="cpu")(A, B)
    np.testing.assert_array_equal(got.astype(np.int64), np.asarray(want).astype(np.int64))


def test_trunci_to_i1_keeps_the_low_bit():
    text = """func.func @f(%x: memref<5xi32>, %y: memref<5xi1>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [5] iterators = [parallel]
      ins(%x : memref<5xi32>) outs(%y : memref<5xi1>)
      maps = [(d0) -> (d0), (d0) -> (d0)] combiners = [none] {
  ^bb0(%a : i32):
    %c = arith.trunci %a : i32 to i1
    aicf_loop.yield %c : i1
  }
  func.return
}"""
    x = np.array([0, 1, 2, 3, -2], np.int32)
    got = aicf.compile(parse_module(make_context(), text, "<test>"), target="cpu")(x)
    np.testing.assert_array_equal(got, (x & 1).astype(bool))


@pytest.mark.parametrize("op", ["fptosi", "fptoui"])
def test_float_to_i1_truncates_and_saturates(op):
    """As every float to int cast: toward zero, then into the type's range (i1's is
    [-1, 0] signed, [0, 1] unsigned), NaN to 0."""
    text = f"""func.func @f(%x: memref<8xf32>, %y: memref<8xi1>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [8] iterators = [parallel]
      ins(%x : memref<8xf32>) outs(%y : memref<8xi1>)
      maps = [(d0) -> (d0), (d0) -> (d0)] combiners = [none] {{
  ^bb0(%a : f32):
    %c = arith.{op} %a : f32 to i1
    aicf_loop.yield %c : i1
  }}
  func.return
}}"""
    x = np.array([0.5, -0.5, 1.0, -1.0, 2.5, -2.5, np.nan, 0.0], np.float32)
    lo, hi = (-1, 0) if op == "fptosi" else (0, 1)
    want = np.clip(np.trunc(np.nan_to_num(x)), lo, hi) != 0
    got = aicf.compile(parse_module(make_context(), text, "<test>"), target="cpu")(x)
    np.testing.assert_array_equal(got, want)


REDUCE = """func.func @f(%x: memref<8x4096xi1>, %y: memref<8xi1>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [8, 4096] iterators = [parallel, reduction]
      ins(%x : memref<8x4096xi1>) outs(%y : memref<8xi1>)
      maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [COMB] {
  ^bb0(%a : i1):
    aicf_loop.yield %a : i1
  }
  func.return
}"""


@pytest.mark.parametrize("comb,fold,start", [("max", "arith.ori", "false"), ("min", "arith.andi", "true"),
                                             ("add", "arith.ori", "false"), ("mul", "arith.andi", "true")])
def test_gpu_i1_reductions_fold_as_the_nest_does(comb, fold, start):
    m = parse_module(make_context(), REDUCE.replace("COMB", comb), "<test>")
    run_pipeline(m, ["aicf-plan{target=h100}", "aicf-lower-to-gpu{target=h100}"])
    kernels = [o for o in m.walk() if o.name == "aicf_gpu.kernel"]
    assert kernels
    for k in kernels:
        ops = [o for o in k.walk()]
        assert not [o for o in ops if o.name in ("arith.maxsi", "arith.minsi", "arith.addi", "arith.muli")
                    and str(o.results[0].type) == "i1"]
        assert any(o.name == fold and str(o.results[0].type) == "i1" for o in ops)
        # the fold's start: the identity of its or / and
        consts = {str(o.value) for o in ops if o.name == "arith.constant" and str(o.results[0].type) == "i1"}
        assert consts == {start}


@pytest.mark.gpu
@pytest.mark.parametrize("shape,axis", [((8, 4096), -1), ((4096, 8), 0), ((3, 1001), -1), ((2000, 3), 0)])
@pytest.mark.parametrize("name", ["max", "min"])
def test_bool_reductions_on_the_gpu_match_numpy(shape, axis, name):
    """Bool max/min (NumPy's, traced: min is a max of the negation) over rows (gpu.rows)
    and columns (gpu.per_output) on the GPU, at densities where any/all flip, against
    NumPy."""
    from gpu_support import HAVE_GPU, cp

    if not HAVE_GPU:
        pytest.skip("needs an NVIDIA GPU with CuPy")
    rng = np.random.default_rng(shape[0])
    f = aicf.jit(target="cuda")(lambda a: getattr(np, name)(a, axis=axis))
    for p in (0.0, 0.001, 0.5, 0.999, 1.0):
        x = rng.random(shape) < p
        got = cp.asnumpy(f(cp.asarray(x))).astype(bool)
        np.testing.assert_array_equal(got, getattr(np, name)(x, axis=axis), err_msg=f"p={p}")


CPU_REDUCTION = """func.func @f(%x: memref<DOMAINxi1>, %a: memref<ROWSxi1>, %m: memref<ROWSxi1>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [DOMAIN_LIST] iterators = [ITERATORS]
      ins(%x : memref<DOMAINxi1>) outs(%a, %m : memref<ROWSxi1>, memref<ROWSxi1>)
      maps = [MAP_IN, MAP_OUT, MAP_OUT] combiners = [add, mul] {
  ^bb0(%v : i1):
    aicf_loop.yield %v, %v : i1, i1
  }
  func.return
}
"""


@pytest.mark.parametrize("outer", [False, True])
def test_i1_add_and_mul_reductions_are_any_and_all_on_cpu(outer):
    """The add and mul combiners over i1 are any() and all(), as aicf-to-upstream folds
    them: the cpu target summed C bools under `omp simd reduction(+:)`, so a row of 19
    trues among 37 gave false."""
    rows, n = 6, 37
    x = np.zeros((rows, n), bool)
    x[0, :19] = True  # 19 trues
    x[1, 5] = True  # one
    x[2] = True  # all
    x[4, ::2] = True  # 19 again, spread
    x[5, 36] = True  # the last
    if outer:  # the reduction dim outermost
        domain, iters, mi, mo, data = (n, rows), "reduction, parallel", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)", x.T.copy()
    else:
        domain, iters, mi, mo, data = (rows, n), "parallel, reduction", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)", x
    src = (CPU_REDUCTION.replace("DOMAIN_LIST", ", ".join(map(str, domain))).replace("DOMAIN", "x".join(map(str, domain)))
           .replace("ROWS", str(rows)).replace("ITERATORS", iters).replace("MAP_IN", mi).replace("MAP_OUT", mo))  # fmt: skip
    any_, all_ = aicf.compile(src, target="cpu")(data)
    np.testing.assert_array_equal(any_, [True, True, True, False, True, True])
    np.testing.assert_array_equal(all_, [False, False, True, False, False, False])
