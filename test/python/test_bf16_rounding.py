"""float64 -> bf16 rounds once, to nearest even from the float64 value, everywhere a
float64 becomes a bf16: aicf.dtypes' conversion, the reference's round_bf16, constants
of the front end, folding, and the cpu target's cast. Through f32 it rounded twice: a
value just past a bf16 midpoint rounds to the midpoint in f32, then ties to even the
wrong way. The reference here is exact rational arithmetic (fractions), sharing no
code with aicf."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from xdsl.dialects import func

import aicf
from gpu_support import cp, gpu
from aicf.dialects import tensor as T
from aicf.dtypes import f32_to_bf16_bits
from aicf.interpreters.tensor import dense_storage
from aicf.reference import round_bf16


def exact_bf16_bits(x: float) -> int:
    """The bf16 nearest to `x` (ties to even), by rational arithmetic: 8 significant
    bits, exponents down to -126 (then subnormal steps of 2^-133), past the largest
    finite value infinity."""
    if math.isnan(x):
        return 0x7FC0
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        return sign | 0x7F80
    mag = abs(Fraction(x))
    if mag == 0:
        return sign
    e = max(math.floor(math.log2(mag)), -126)
    while Fraction(2) ** (e + 1) <= mag:  # log2 of a Fraction can be off by one
        e += 1
    while e > -126 and Fraction(2) ** e > mag:
        e -= 1
    ulp = Fraction(2) ** (e - 7)
    n = round(mag / ulp)  # round() of a Fraction ties to even
    value = n * ulp
    if value >= Fraction(2) ** 128:
        return sign | 0x7F80
    (u32,) = struct.unpack("<I", struct.pack("<f", float(value)))  # exact: 8 bits
    assert u32 & 0xFFFF == 0
    return sign | (u32 >> 16)


def bf16_float(bits: int) -> Fraction:
    if bits == 0x7F80:
        return Fraction(2) ** 128  # the step past the largest finite value
    (f,) = struct.unpack("<f", struct.pack("<I", bits << 16))
    return Fraction(f)


def double_rounding_cases() -> np.ndarray:
    """float64 values a hair above and below bf16 midpoints (f32 rounds them onto the
    midpoint), exact midpoints, across exponents, signs, subnormals and the overflow
    threshold; plus random values."""
    out = []
    for bits in [0x3F80, 0x3F81, 0x3F82, 0x4049, 0x0080, 0x0081, 0x0001, 0x0002, 0x7F7E, 0x7F7F, 0x1234, 0x5A5B]:
        lo, hi = bf16_float(bits), bf16_float(bits + 1)
        mid = (lo + hi) / 2
        for eps in (Fraction(1, 2**40), Fraction(1, 2**30), 0):
            step = mid * eps if mid else eps
            for v in (mid + step, mid - step):
                out += [float(v), -float(v)]
    rng = np.random.default_rng(5)
    out += list(rng.standard_normal(200) * 10.0 ** rng.integers(-40, 38, 200))
    out += [0.0, -0.0, 1e300, -1e300, 5e-324, 1e-45, float("inf"), float("-inf")]
    return np.array(out, np.float64)


CASES = double_rounding_cases()
EXPECTED = np.array([exact_bf16_bits(float(v)) for v in CASES], np.uint16)


def test_the_cases_do_round_twice_through_f32():
    """Guards the cases: rounding through f32 gets some of them wrong."""
    with np.errstate(over="ignore"):
        through_f32 = f32_to_bf16_bits(CASES.astype(np.float32))
    assert np.count_nonzero(through_f32 != EXPECTED) >= 20


def test_conversion_of_float64_rounds_once():
    np.testing.assert_array_equal(f32_to_bf16_bits(CASES), EXPECTED)
    for v, e in zip(CASES[:40], EXPECTED[:40]):
        assert int(f32_to_bf16_bits(float(v))) == e  # Python floats too


def test_reference_round_bf16_rounds_once():
    out = round_bf16(CASES)
    np.testing.assert_array_equal(out.astype(np.float32).view(np.uint32) >> 16, EXPECTED)


def test_nan_stays_a_quiet_nan():
    assert int(f32_to_bf16_bits(np.float64("nan"))) == 0x7FC0


def _constants(module) -> list[np.ndarray]:
    return [dense_storage(op.value) for op in module.walk() if isinstance(op, T.ConstantOp)]


def test_front_end_constants_round_once():
    """A float64 array and a Python float beside a bf16 tensor become bf16 constants."""
    values = CASES[np.isfinite(CASES)][:64]
    expected = EXPECTED[np.isfinite(CASES)][:64]

    def f(x):
        return x + aicf.ops.constant(values, "bf16")

    (storage,) = _constants(aicf.trace(f, aicf.TensorSpec((64,), "bf16")))
    np.testing.assert_array_equal(storage, expected)

    scalar = float(CASES[0])

    def g(x):
        return x * scalar

    (storage,) = _constants(aicf.trace(g, aicf.TensorSpec((4,), "bf16")))
    assert int(storage) == EXPECTED[0]


def test_folded_cast_rounds_once():
    values = CASES[:64]

    def f(x):
        return x + aicf.ops.cast(aicf.ops.constant(values, "f64"), "bf16")

    module = aicf.trace(f, aicf.TensorSpec((64,), "bf16"))
    (f_op,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    assert not any(isinstance(op, T.CastOp) for op in f_op.walk())  # folded
    (storage,) = _constants(module)
    np.testing.assert_array_equal(storage, EXPECTED[:64])


def test_cpu_target_cast_rounds_once():
    cast = aicf.jit(lambda x: x.astype("bf16"), target="cpu")
    np.testing.assert_array_equal(cast(CASES), EXPECTED)


@pytest.mark.parametrize("op", ["mul", "add"])
def test_cpu_target_f64_arithmetic_into_bf16_rounds_once(op):
    """A bf16 result computed in f64 (an f64 operand promotes) and cast back."""
    ones = np.full(CASES.shape, 1.0 if op == "mul" else -0.0)  # x + -0.0 is x, -0.0 too
    fn = (lambda x, y: (x * y).astype("bf16")) if op == "mul" else (lambda x, y: (x + y).astype("bf16"))
    np.testing.assert_array_equal(aicf.jit(fn, target="cpu")(CASES, ones), EXPECTED)


CAST = """
func.func @f(%x: tensor<352xf64>) -> tensor<352x{t}> {{
  %y = aicf_tensor.cast %x : (tensor<352xf64>) -> tensor<352x{t}>
  func.return %y : tensor<352x{t}>
}}
"""


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_cuda_source_rounds_a_double_once(t):
    """The cuda target rounds f64 to odd into f32 (__double2float_rz, sticky bit) before
    the f32 -> half rounding, for f16 as for bf16."""
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import pipeline_for, run_pipeline, target_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    mod = parse_module(make_context(), CAST.format(t=t), "<cast>")
    run_pipeline(mod, pipeline_for("cuda", tune=False)[:-1] + target_pipeline("cuda", gpu="h100"))
    source = emit_cuda(mod)
    narrow = "aicf_f2bf" if t == "bf16" else "aicf_f2h"
    assert f"{narrow}(aicf_d2f_odd(" in source and f"{narrow}((float)" not in source, source


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_cuda_cast_rounds_once(t):
    out = cp.asnumpy(aicf.compile(CAST.format(t=t), target="cuda")(cp.asarray(CASES)))
    if t == "bf16":
        np.testing.assert_array_equal(out, EXPECTED)
    else:  # NumPy converts float64 to float16 directly, rounding once
        np.testing.assert_array_equal(out.view(np.uint16), CASES.astype(np.float16).view(np.uint16))


def integer_cases(bits: int) -> np.ndarray:
    """Integers one above, at and one below bf16 midpoints past 2^24 (where float
    rounds them), both signs, and the extremes."""
    out = []
    for e in range(25, bits - 1):
        for low in (0, 1, 0x55, 0x7F):  # the bf16 mantissa below the midpoint
            mid = (1 << e) + (low << (e - 7)) + (1 << (e - 8))
            out += [mid + 1, mid, mid - 1, -(mid + 1), -mid, -(mid - 1)]
    info = np.iinfo(f"int{bits}")
    out += [int(info.min), int(info.max), int(info.min) + 1, 0, 1, -1, 2**24 + 1]
    return np.array(out, f"int{bits}")


INT_CASES = {bits: integer_cases(bits) for bits in (32, 64)}
INT_EXPECTED = {
    bits: np.array([exact_bf16_bits(int(v)) for v in c], np.uint16) for bits, c in INT_CASES.items()
}


@pytest.mark.parametrize("bits", [32, 64])
def test_the_integer_cases_do_round_twice_through_float(bits):
    through_f32 = f32_to_bf16_bits(INT_CASES[bits].astype(np.float32))
    assert np.count_nonzero(through_f32 != INT_EXPECTED[bits]) >= 40


def test_conversion_of_int64_rounds_once():
    """Through float64 an int64 past 2^53 rounds first, onto a bf16 midpoint."""
    np.testing.assert_array_equal(f32_to_bf16_bits(INT_CASES[64]), INT_EXPECTED[64])


@pytest.mark.parametrize("bits", [32, 64])
def test_cpu_target_integer_cast_rounds_once(bits):
    cast = aicf.jit(lambda x: x.astype("bf16"), target="cpu")
    np.testing.assert_array_equal(cast(INT_CASES[bits]), INT_EXPECTED[bits])


def test_folded_integer_cast_rounds_once():
    values = INT_CASES[64][-64:]  # past 2^53

    def f(x):
        return x + aicf.ops.cast(aicf.ops.constant(values, "i64"), "bf16")

    module = aicf.trace(f, aicf.TensorSpec((64,), "bf16"))
    (storage,) = _constants(module)
    np.testing.assert_array_equal(storage, INT_EXPECTED[64][-64:])


INT_CAST = """
func.func @f(%x: tensor<8x{s}>) -> tensor<8xbf16> {{
  %y = aicf_tensor.cast %x : (tensor<8x{s}>) -> tensor<8xbf16>
  func.return %y : tensor<8xbf16>
}}
"""


@pytest.mark.parametrize("s", ["i32", "i64"])
def test_cuda_source_rounds_an_integer_once(s):
    """The cuda target rounds an integer to odd into f32 before the f32 -> bf16
    rounding ((float)x rounded once already)."""
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import pipeline_for, run_pipeline, target_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    mod = parse_module(make_context(), INT_CAST.format(s=s), "<cast>")
    run_pipeline(mod, pipeline_for("cuda", tune=False)[:-1] + target_pipeline("cuda", gpu="h100"))
    source = emit_cuda(mod)
    kernel = source[source.index("__global__"):]
    assert "aicf_i64_to_f32_odd(" in kernel, source
