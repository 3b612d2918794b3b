"""math = "approx" (aicf/math_precision.py): when a special function may run
approximate, and the accuracy of the approximations the CUDA emitter prints.

The sin/cos approximation (backend/cuda/emit.py, aicf_sin_quarter_approx) is replayed
here in NumPy float32, operation for operation (an FMA as the exact f64 product-sum
rounded once to f32), over every finite f16 and a bf16-range sweep, against NumPy
float64: the bound the planner relies on (2^-15 relative) and at most one f16 ulp
after rounding. On the GPU, test_gpu_math_approx.py measures the kernels themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.ir import Block

from aicf.math_precision import APPROX, APPROXIMATIONS, PRECISE, is_approximate, mark_approximate, math_mode

f32 = np.float32
SHIFTER = f32(12582912.0)  # 1.5 * 2^23
TWO_OVER_PI = f32(0.636619747)
PI_2 = (f32(-1.57079637), f32(4.37113883e-8), f32(1.71512451e-15))
SIN = (f32(0.00815248396), f32(-0.166629583))
COS = (f32(-0.00135726877), f32(0.0416543148), f32(-0.499998599))


def fma(a, b, c):
    a, b, c = np.broadcast_arrays(np.float32(a), np.float32(b), np.float32(c))
    return (a.astype(np.float64) * b + c).astype(np.float32)


def sin_quarter(x: np.ndarray, quarter: int) -> np.ndarray:
    """aicf_sin_quarter_approx, step by step (for |x| < 2^19)."""
    x = x.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        t = fma(x, TWO_OVER_PI, SHIFTER)
        k = (t - SHIFTER).astype(np.float32)
        r = fma(k, PI_2[0], x)
        r = fma(k, PI_2[1], r)
        r = fma(k, PI_2[2], r)
        q = t.view(np.int32) + quarter
        s = (r * r).astype(np.float32)
        ps = fma((r * s).astype(np.float32), fma(s, SIN[0], SIN[1]), r)
        pc = fma(s, fma(s, fma(s, COS[0], COS[1]), COS[2]), f32(1.0))
        v = np.where(q & 1, pc, ps).astype(np.float32)
        return (v.view(np.int32) ^ ((q & 2) << 30).astype(np.int32)).view(np.float32)


FUNCS = [("math.sin", 0, np.sin), ("math.cos", 1, np.cos)]


def all_f16() -> np.ndarray:
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    return h[np.isfinite(h)].astype(np.float32)


@pytest.mark.parametrize("name,quarter,ref", FUNCS)
def test_sin_cos_within_bound_on_every_f16(name, quarter, ref):
    x = all_f16()
    y = sin_quarter(x, quarter).astype(np.float64)
    r = ref(x.astype(np.float64))
    nz = r != 0
    rel = np.abs(y[nz] - r[nz]) / np.abs(r[nz])
    assert np.log2(rel.max()) <= APPROXIMATIONS[name].log2_rel_error
    # stored as f16: at most one ulp from the correctly rounded result
    y16, r16 = y.astype(np.float16), r.astype(np.float16)
    ulp = np.spacing(np.abs(r16)).astype(np.float64)
    assert (np.abs(y16.astype(np.float64) - r16.astype(np.float64)) / ulp).max() <= 1.0


@pytest.mark.parametrize("name,quarter,ref", FUNCS)
def test_sin_cos_whole_range(name, quarter, ref):
    """Up to the range the bound is stated for (2^19), the quadrant boundaries and tiny
    arguments; and past it, the reason f16 arguments are required."""
    rng = np.random.default_rng(0)
    x = np.concatenate([
        rng.uniform(-2.0**19, 2.0**19, 200_000),
        np.arange(-64, 65) * np.pi / 4, 2.0 ** np.arange(-40, 19),
    ]).astype(np.float32)
    y = sin_quarter(x, quarter).astype(np.float64)
    r = ref(x.astype(np.float64))
    nz = np.abs(r) > 1e-30
    rel = np.abs(y[nz] - r[nz]) / np.abs(r[nz])
    assert np.log2(rel.max()) <= APPROXIMATIONS[name].log2_rel_error
    yb, rb = _bf16(y), _bf16(r)
    ulp = 2.0 ** (np.floor(np.log2(np.abs(rb[nz]))) - 7)
    assert (np.abs(yb[nz] - rb[nz]) / ulp).max() <= 1.0
    far = rng.uniform(2.0**23, 2.0**24, 1000).astype(np.float32)
    assert np.abs(sin_quarter(far, quarter) - ref(far.astype(np.float64))).max() > 2.0**-8


def _bf16(v: np.ndarray) -> np.ndarray:
    b = v.astype(np.float32).view(np.uint32)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def test_sin_cos_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)
    s = sin_quarter(x, 0)
    assert np.isnan(s[:3]).all() and (s[3:] == 0).all()
    assert (sin_quarter(x[3:], 1) == 1).all()


# --- when an op may run approximate ------------------------------------------------------


def _body(result_type, uses=("trunc",), fn=math.SinOp, arg=Float16Type()):
    """x: arg (widened to f32 unless f32) -> fn -> rounded to `result_type` (and/or
    used as f32)."""
    b = Block(arg_types=[arg])
    x = b.args[0]
    if not isinstance(arg, Float32Type):
        w = arith.ExtFOp(x, Float32Type())
        b.add_op(w)
        x = w.result
    op = fn(x)
    b.add_op(op)
    for u in uses:
        if u == "trunc":
            b.add_op(arith.TruncFOp(op.results[0], result_type))
        else:
            b.add_op(arith.AddfOp(op.results[0], op.results[0]))
    return list(b.ops), op


@pytest.mark.parametrize("fn", [math.SinOp, math.CosOp, math.TanhOp, math.ExpOp])
@pytest.mark.parametrize("t", [Float16Type(), BFloat16Type()])
def test_f16_argument_rounded_to_half_types_is_approximate(t, fn):
    ops, op = _body(t, fn=fn)
    assert math_mode(ops) == APPROX
    assert mark_approximate(ops) == 1 and is_approximate(op)


@pytest.mark.parametrize("t", [Float16Type(), BFloat16Type()])
def test_division_rounded_to_half_types_is_approximate(t):
    """a / b rounded to f16/bf16 may take div.full.f32 (2 f32 ulp); an f32 quotient
    (or one also used as f32) stays correctly rounded."""
    ops, op = _body(t, fn=lambda x: arith.DivfOp(x, x))
    assert math_mode(ops) == APPROX and mark_approximate(ops) == 1 and is_approximate(op)
    assert math_mode(_body(t, uses=("trunc", "f32"), fn=lambda x: arith.DivfOp(x, x))[0]) == PRECISE
    assert math_mode(_body(Float32Type(), uses=("f32",), fn=lambda x: arith.DivfOp(x, x),
                           arg=Float32Type())[0]) == PRECISE


@pytest.mark.parametrize("arg", [BFloat16Type(), Float32Type()])
def test_sin_of_unbounded_argument_keeps_precise(arg):
    """sin/cos's bound holds for |x| < 2^19: a bf16 or f32 argument may be larger."""
    assert math_mode(_body(Float16Type(), arg=arg)[0]) == PRECISE
    assert math_mode(_body(BFloat16Type(), fn=math.TanhOp, arg=arg)[0]) == APPROX


def test_f32_use_keeps_precise():
    ops, op = _body(Float16Type(), uses=("trunc", "f32"))
    assert math_mode(ops) == PRECISE and mark_approximate(ops) == 0 and not is_approximate(op)


def test_no_approximation_for_log():
    assert math_mode(_body(Float16Type(), fn=math.LogOp)[0]) == PRECISE


@pytest.mark.parametrize("fn", [arith.DivfOp, math.ExpOp])
def test_f64_op_rounded_to_half_types_keeps_precise(fn):
    """The approximations are f32 instructions: an f64 op whose result is rounded to f16
    (an f64 op fused with a cast) has none, and stays precise."""
    b = Block(arg_types=[Float64Type()])
    op = fn(b.args[0], b.args[0]) if fn is arith.DivfOp else fn(b.args[0])
    b.add_ops([op, arith.TruncFOp(op.results[0], Float16Type())])
    assert math_mode(list(b.ops)) == PRECISE and mark_approximate(list(b.ops)) == 0


F64_TO_F16 = """
func.func @main(%x: tensor<1024xf64>, %y: tensor<1024xf64>) -> tensor<1024xf16> {
  %q = aicf_tensor.div %x, %y : (tensor<1024xf64>, tensor<1024xf64>) -> tensor<1024xf64>
  %e = aicf_tensor.exp %q : (tensor<1024xf64>) -> tensor<1024xf64>
  %h = aicf_tensor.cast %e : (tensor<1024xf64>) -> tensor<1024xf16>
  func.return %h : tensor<1024xf16>
}
"""


def test_f64_chain_cast_to_f16_emits_for_cuda():
    """Fused with its cast, the f64 division and exp were marked approximate, and the
    CUDA emitter (which has f32 forms only) refused the program."""
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    mod = parse_module(make_context(), F64_TO_F16, "<f64>")
    run_pipeline(mod, ["aicf-infer-shapes", "aicf-fuse{target=gpu}", "aicf-lower-to-loops",
                       "aicf-plan{target=h100}", "aicf-lower-to-gpu{target=h100}"])
    src = emit_cuda(mod)
    assert "exp(" in src and "aicf_div_full(v" not in src and "aicf_ex2_approx(v" not in src
