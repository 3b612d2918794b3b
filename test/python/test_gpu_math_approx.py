"""math = "approx" on the GPU: special functions whose results are rounded to f16 or
bf16 run approximate (aicf/math_precision.py). Every finite f16 (and bf16) value goes
through sin, cos, tanh and exp; outputs are compared with NumPy float64 in units of the
stored type's spacing (steps between adjacent representable values): at most 2 (the
planner's budget is one ulp before rounding). bf16 sin/cos stay precise (their argument
range is not bounded by 2^19) and are checked the same way. The issue's f16 chain, with its f16
constants, is checked the same way against float64 rounded to f16 after each op.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpu_support import cp, gpu
from test_gpu_kernels import compile_text, from_bf16, poisoned

FUNCS = {"sin": np.sin, "cos": np.cos, "tanh": np.tanh, "exp": np.exp}


def unary_program(fn: str, dt: str, n: int) -> str:
    return f"""
func.func @main(%x: memref<{n}x{dt}>, %y: memref<{n}x{dt}>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.nest domain = [{n}] iterators = [parallel] ins(%x : memref<{n}x{dt}>) outs(%y : memref<{n}x{dt}>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {{
  ^bb0(%a: {dt}):
    %w = arith.extf %a : {dt} to f32
    %s = math.{fn} %w : f32
    %r = arith.truncf %s : f32 to {dt}
    aicf_loop.yield %r : {dt}
  }}
  func.return
}}"""


def math_programs() -> list[str]:
    """The programs of this file, for the nvcc compile test."""
    return [unary_program(fn, dt, 65536) for fn in FUNCS for dt in ("f16", "bf16")]


def all_values(dt: str) -> tuple[np.ndarray, np.ndarray]:
    """Every finite value of the type: its bits (uint16) and float64 values."""
    bits = np.arange(1 << 16, dtype=np.uint16)
    vals = bits.view(np.float16).astype(np.float64) if dt == "f16" else from_bf16(bits).astype(np.float64)
    keep = np.isfinite(vals)
    return bits[keep], vals[keep]


def ordered(bits: np.ndarray) -> np.ndarray:
    """16-bit float patterns as integers in value order (adjacent values differ by 1)."""
    b = bits.astype(np.int64)
    return np.where(b & 0x8000, -(b & 0x7FFF), b)


def round_to(v: np.ndarray, dt: str) -> np.ndarray:
    """float64 -> the type's bits, round to nearest even (through f32 for bf16)."""
    if dt == "f16":
        return v.astype(np.float16).view(np.uint16)
    u = v.astype(np.float32).view(np.uint32)
    nan = np.isnan(v)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), r)


def steps(out_bits: np.ndarray, ref: np.ndarray, dt: str) -> np.ndarray:
    return np.abs(ordered(out_bits) - ordered(round_to(ref, dt)))


def steps_where_defined(out_bits: np.ndarray, ref: np.ndarray, dt: str) -> tuple[np.ndarray, int]:
    """NaN exactly where float64 has NaN; elsewhere the steps from the correctly rounded
    result, and the index (into all elements) of the worst."""
    nan_ref = np.isnan(ref)
    out_vals = out_bits.view(np.float16).astype(np.float64) if dt == "f16" else from_bf16(out_bits).astype(np.float64)
    assert (np.isnan(out_vals) == nan_ref).all(), "NaN where float64 has none (or the reverse)"
    d = steps(out_bits[~nan_ref], ref[~nan_ref], dt)
    return d, int(np.flatnonzero(~nan_ref)[np.argmax(d)])


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("fn", sorted(FUNCS))
def test_approx_within_two_steps_on_every_value(fn, dt):
    bits, vals = all_values(dt)
    n = bits.size
    prog = compile_text(unary_program(fn, dt, n))
    # sin/cos are approximate for f16 arguments only (bounded by 65504 < 2^19)
    approx = not (dt == "bf16" and fn in ("sin", "cos"))
    assert ("math=approx" in prog.source) == approx, "the planner's math mode"
    x = cp.asarray(bits)
    y = poisoned((n,), dt).view(cp.uint16) if dt == "f16" else poisoned((n,), dt)
    prog(x.view(cp.float16) if dt == "f16" else x, y.view(cp.float16) if dt == "f16" else y)
    cp.cuda.Device().synchronize()
    out = cp.asnumpy(y).view(np.uint16)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = FUNCS[fn](vals)
    d, worst = steps_where_defined(out, ref, dt)
    assert d.max() <= 2, f"{fn} {dt}: {d.max()} steps at x = {vals[worst]}"


CHAIN = """
func.func @main(%x: tensor<{n}xf16>) -> tensor<{n}xf16> {{
  %a = aicf_tensor.constant dense<1.7> : tensor<f16>
  %b = aicf_tensor.constant dense<0.3> : tensor<f16>
  %one = aicf_tensor.constant dense<1.0> : tensor<f16>
  %h = aicf_tensor.constant dense<0.5> : tensor<f16>
  %0 = aicf_tensor.mul %a, %x : (tensor<f16>, tensor<{n}xf16>) -> tensor<{n}xf16>
  %1 = aicf_tensor.add %0, %b : (tensor<{n}xf16>, tensor<f16>) -> tensor<{n}xf16>
  %2 = aicf_tensor.sin %1 : (tensor<{n}xf16>) -> tensor<{n}xf16>
  %3 = aicf_tensor.mul %2, %x : (tensor<{n}xf16>, tensor<{n}xf16>) -> tensor<{n}xf16>
  %4 = aicf_tensor.add %3, %one : (tensor<{n}xf16>, tensor<f16>) -> tensor<{n}xf16>
  %5 = aicf_tensor.tanh %4 : (tensor<{n}xf16>) -> tensor<{n}xf16>
  %6 = aicf_tensor.mul %5, %h : (tensor<{n}xf16>, tensor<f16>) -> tensor<{n}xf16>
  func.return %6 : tensor<{n}xf16>
}}
"""


def chain_reference(x: np.ndarray) -> np.ndarray:
    """The chain in float64, rounded to f16 after every op (each tensor op's result is
    an f16 tensor), with the f16 constants."""
    def r(v):
        return v.astype(np.float16).astype(np.float64)

    c = [float(np.float16(v)) for v in (1.7, 0.3, 1.0, 0.5)]
    x = x.astype(np.float64)
    v = r(r(r(c[0] * x) + c[1]))
    v = r(np.tanh(r(r(r(np.sin(v)) * x) + c[2])))
    return v * c[3]


@gpu
@pytest.mark.gpu
def test_f16_chain_matches_float64_per_op():
    import aicf

    n = 1 << 20
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-8, 8, n - 4096), rng.uniform(-38000, 38000, 4096)]).astype(np.float16)
    exe = aicf.compile(CHAIN.format(n=n), target="cuda")
    out = cp.asnumpy(exe(cp.asarray(x))).view(np.uint16)
    ref = chain_reference(x)
    # sin and tanh may each land one step off (|sin|, |tanh| <= 1: 2^-11 absolute); sin's
    # step is scaled by |x| before tanh (slope <= 1), then halved; plus the last rounding
    err = np.abs(out.view(np.float16).astype(np.float64) - ref)
    bound = 0.5 * (2.0 ** -11 * (np.abs(x.astype(np.float64)) + 1) + 2.0 ** -11) + 2.0 ** -12
    assert (err <= bound).all(), f"worst excess {np.max(err - bound)} at x = {x[np.argmax(err - bound)]}"
    assert "math=approx" in exe.source


DIVIDE = """
func.func @main(%x: tensor<{n}x{dt}>, %y: tensor<{n}x{dt}>) -> tensor<{n}x{dt}> {{
  %q = aicf_tensor.div %x, %y : (tensor<{n}x{dt}>, tensor<{n}x{dt}>) -> tensor<{n}x{dt}>
  func.return %q : tensor<{n}x{dt}>
}}
"""


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_approx_division_within_one_step(dt):
    """a / b rounded to f16/bf16 runs as div.full.f32 (2 f32 ulp): every finite value of
    the type over divisors of every magnitude (subnormal, huge, negative, zero) is at
    most one step from the correctly rounded quotient, with IEEE's inf and NaN."""
    import aicf

    bits, vals = all_values(dt)
    tiny = float(np.float16(6e-8)) if dt == "f16" else 2.0 ** -133
    big = 65504.0 if dt == "f16" else 3.0e38
    divisors = [1.0, 3.0, -7.0, 0.1, 1e-3, -2.5, tiny, big, 0.0, -0.0]
    x = np.tile(vals, len(divisors))
    y = np.repeat(divisors, vals.size)
    n = x.size
    exe = aicf.compile(DIVIDE.format(n=n, dt=dt), target="cuda")
    assert "math=approx" in exe.source and "aicf_div_full(" in exe.source
    # bf16 arrays go in and come out as their 16-bit patterns
    to_dev = (lambda v: cp.asarray(v.astype(np.float16))) if dt == "f16" else (
        lambda v: cp.asarray(round_to(v, "bf16")))
    out = cp.asnumpy(exe(to_dev(x), to_dev(y))).view(np.uint16)
    yr = y.astype(np.float16).astype(np.float64) if dt == "f16" else from_bf16(round_to(y, "bf16")).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ref = x / yr
    d, worst = steps_where_defined(out, ref, dt)
    assert d.max() <= 1, f"{d.max()} steps at {x[worst]} / {yr[worst]}"
