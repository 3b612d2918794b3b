"""The exit to upstream MLIR (aicf-to-upstream, aicf.upstream): programs lowered to
upstream dialects, lowered further by MLIR 16's mlir-opt and run by its
mlir-cpu-runner, compute what the golden reference (NumPy, float64) and our cpu
target compute. The round trips need MLIR 16's tools (test/run-all.sh installs them
on Debian); without them they skip, saying so."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf import upstream  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402
from aicf.reference import evaluate  # noqa: E402
from aicf.testing import assert_close  # noqa: E402
from test_fusion import LAYERNORM, SOFTMAX  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
RNG = np.random.default_rng(12)


@pytest.fixture(scope="module")
def tools():
    try:
        return upstream.find_mlir_tools()
    except upstream.UpstreamError as e:
        pytest.skip(f"the upstream round trip needs MLIR 16: {e}")


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _random(spec) -> np.ndarray:
    if spec.dtype.kind == "f":
        return RNG.standard_normal(spec.shape).astype(spec.dtype)
    if spec.dtype.kind == "b":
        return RNG.random(spec.shape) < 0.5
    return RNG.integers(-9, 10, spec.shape).astype(spec.dtype)


def round_trip(module_or_text, args=None, *, entry=None):
    """Upstream's result against the float64 reference and against ours; returns
    (upstream, ours) results. Floats are compared relative to the largest element
    (assert_close's reduction rule): an f32 chain rounds at every step, and not at
    the same steps everywhere (our C compiler contracts a * x + b into an fma, upstream
    rounds the product), so elementwise ulps would measure the compilers. Integers
    and bools must be equal."""
    module = (parse_module(make_context(), module_or_text, "<test>")
              if isinstance(module_or_text, str) else module_or_text)  # fmt: skip
    ours = aicf.compile(module, target="cpu", entry=entry, debug=True)
    theirs = upstream.compile_upstream(module, entry=entry)
    if args is None:
        args = [_random(s) for s in ours.inputs]
    got_ours, got = _tuple(ours(*args)), _tuple(theirs(*args))
    ref = evaluate(module, ours.entry, *args)
    for k, (u, o, r, spec) in enumerate(zip(got, got_ours, ref, ours.outputs)):
        dtype = "bf16" if spec.is_bf16 else None
        assert u.dtype == o.dtype and u.shape == o.shape
        assert_close(u, r, reduction=True, dtype=dtype, msg=f"output #{k} vs the reference")
        assert_close(u, o.astype(np.float64) if not spec.is_bf16 else aicf.reference.bf16_bits_to_f64(o),
                     reduction=True, dtype=dtype, msg=f"output #{k} vs ours")  # fmt: skip
    return got, got_ours


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples(tools, path):
    round_trip(path.read_text())


@pytest.mark.parametrize("ax", [-1, 0])
def test_softmax(tools, ax):
    x = (RNG.standard_normal((33, 65)) * 4).astype(np.float32)
    np.moveaxis(x, ax, -1)[2, 5] = np.nan  # a NaN makes its slice NaN, upstream too
    (y,), _ = round_trip(SOFTMAX.format(R=33, C=65, ax=ax), [x])
    assert np.isnan(np.moveaxis(y, ax, -1)[2]).all()
    assert not np.isnan(np.moveaxis(y, ax, -1)[3]).any()


@pytest.mark.parametrize("causal", [" causal", ""])
def test_attention(tools, causal):
    """Upstream has no attention op: the cpu tensor pipeline's op is decomposed first."""
    t = "tensor<2x9x8xf32>"
    round_trip(f"""
func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{
  %o = aicf_tensor.attention %q, %k, %v scale = 0.35{causal} : ({t}, {t}, {t}) -> {t}
  func.return %o : {t}
}}""")


def test_layer_norm(tools):
    round_trip(LAYERNORM.format(R=17, C=96))


def f32(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def i32(lo, hi, *shape) -> np.ndarray:
    return RNG.integers(lo, hi, shape).astype(np.int32)


TRACED = {
    # reductions: inner, outer and mixed axes, keepdims, mean and var
    "reductions": (lambda x: (np.sum(x, axis=(0, 2), keepdims=True), np.max(x, axis=1),
                              np.mean(x, axis=0), np.var(x, axis=-1)), [f32(5, 7, 9)]),  # fmt: skip
    # broadcasting on both operands
    "broadcasts": (lambda a, b: np.tanh(a * b + 1), [f32(5, 1, 7), f32(6, 1)]),
    # strided and transposed views read through the maps: steps, a negative step
    "views": (lambda x: np.exp(x.T[::2, 1::3]) + x[::-1, ::2].T[:, ::3], [f32(8, 12)]),
    # a reshape ahead of a reduction (floordiv/mod maps or folded axes)
    "reshape": (lambda x: x.reshape(6, 20).sum(axis=0), [f32(4, 5, 6)]),
    # dtype conversions: to f16, to int (truncating), int to float, bool select
    "casts": (lambda x, i: (x.astype(np.float16), np.where(x > 0, x, i.astype(np.float32)),
                            x.astype(np.int32)), [f32(4, 6) * 10, i32(-5, 5, 4, 6)]),  # fmt: skip
    # integer powers, sums, max (division: test_integer_division)
    "integers": (lambda a, b, n: (a ** n, np.sum(a * b), np.maximum(a, b)),
                 [i32(-9, 9, 20), i32(-2, 3, 20), i32(0, 4, 20)]),  # fmt: skip
    # matmul, batched with a broadcast batch dim
    "matmul": (lambda a, b: a @ b, [f32(2, 1, 5, 6), f32(3, 6, 4)]),
    # a gather: negative and out-of-range indices wrap once and clamp
    "take": (lambda w, ids: np.take(w, ids, axis=0), [f32(10, 4), np.array([0, -1, 3, 9, -12, 14])]),
}


@pytest.mark.parametrize("name", TRACED)
def test_traced_programs(tools, name):
    fn, args = TRACED[name]
    round_trip(aicf.trace(fn, *args), args)


INT_DIVISION = """
func.func @f(%a: tensor<8xi32>, %b: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %0 = aicf_tensor.div %a, %b : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %1 = aicf_tensor.pow %a, %b : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  func.return %0, %1 : tensor<8xi32>, tensor<8xi32>
}
"""


def test_integer_division(tools):
    """What the cpu target defines where NumPy has no answer, upstream too: x / 0 is 0,
    MIN / -1 wraps, division truncates; x ** -n is the integer part of 1 / x ** n."""
    a = np.array([7, -7, 5, -(2**31), 3, -1, 1, 0], np.int32)
    b = np.array([2, 2, 0, -1, -2, -3, -5, -1], np.int32)
    ours = aicf.compile(INT_DIVISION, target="cpu")(a, b)
    theirs = upstream.compile_upstream(INT_DIVISION)(a, b)
    np.testing.assert_array_equal(theirs[0], [3, -3, 0, -(2**31), -1, 0, 0, 0])
    np.testing.assert_array_equal(theirs[1], [49, 49, 1, 0, 0, -1, 1, 0])
    for t, o in zip(theirs, ours):
        np.testing.assert_array_equal(t, o)


BF16 = """
func.func @bf(%x: tensor<8x16xf32>) -> (tensor<8x16xbf16>, tensor<8xbf16>, tensor<8x16xf32>) {
  %0 = aicf_tensor.cast %x : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<8x16xbf16>) -> tensor<8xbf16>
  %2 = aicf_tensor.cast %0 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
  func.return %0, %1, %2 : tensor<8x16xbf16>, tensor<8xbf16>, tensor<8x16xf32>
}
"""


def test_bf16_rounds_as_ours(tools):
    x = f32(8, 16)
    (bits, total, back), (our_bits, our_total, _) = round_trip(BF16, [x])
    np.testing.assert_array_equal(bits, aicf.dtypes.f32_to_bf16_bits(x))  # nearest even
    np.testing.assert_array_equal(bits, our_bits)
    np.testing.assert_array_equal(total, our_total)  # summed in f64, rounded through f32
    np.testing.assert_array_equal(back.view(np.uint32) >> 16, bits)


ROW_SUM = """
func.func @f(%x: tensor<6x10xf32>, %b: tensor<10xf32>) -> tensor<6xf32> {
  %0 = aicf_tensor.mul %x, %b : (tensor<6x10xf32>, tensor<10xf32>) -> tensor<6x10xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [1] : (tensor<6x10xf32>) -> tensor<6xf32>
  func.return %1 : tensor<6xf32>
}
"""


@pytest.mark.parametrize("view", ["transposed", "reversed", "broadcast", "offset"])
def test_strided_inputs(tools, view):
    """Non-contiguous arrays are passed as strided memrefs over the memory they span
    (negative and zero strides too), as the cpu target passes them."""
    base = f32(12, 20)
    x = {
        "transposed": base[:10, :6].T,
        "reversed": base[::-2, ::-2][:6, :10],
        "broadcast": np.broadcast_to(base[0, :10], (6, 10)),
        "offset": base[3:9, 5:15],
    }[view]
    assert not x.flags.c_contiguous
    b = base[1, ::2]  # strided too
    (y,), (ours,) = round_trip(ROW_SUM, [x, b])
    assert_close(y, (x.astype(np.float64) * b).sum(axis=1), reduction=True)


def test_output_is_upstream_only():
    """No aicf op, no property syntax MLIR 16 does not parse (`<{`), for programs with
    every op family; needs no MLIR tools."""
    text = upstream.to_upstream_mlir(SOFTMAX.format(R=4, C=8, ax=-1) + LAYERNORM.format(R=4, C=8))
    op = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_0-9]+)\.[a-z_0-9.]+')
    dialects = {m.group(1) for line in text.splitlines() if (m := op.match(line))}
    assert dialects == {"builtin", "func", "scf", "memref", "arith", "math"}, dialects
    assert "<{" not in text and "aicf_" not in text and "aicf.schedule" not in text


def test_missing_tools_say_what_to_install(monkeypatch):
    monkeypatch.setattr(upstream.shutil, "which", lambda name: None)
    with pytest.raises(upstream.UpstreamError, match=r"apt-get install mlir-16-tools libmlir-16"):
        upstream.find_mlir_tools.__wrapped__()


SATURATING_CAST = """
func.func @f(%x: tensor<8xf32>, %h: tensor<4xf16>) -> (tensor<8xi32>, tensor<4xi64>) {
  %0 = aicf_tensor.cast %x : (tensor<8xf32>) -> tensor<8xi32>
  %1 = aicf_tensor.cast %h : (tensor<4xf16>) -> tensor<4xi64>
  func.return %0, %1 : tensor<8xi32>, tensor<4xi64>
}
"""

UNSIGNED_AND_SHIFTS = """
func.func @f(%a: memref<6xi8>, %n: memref<6xi8>, %q: memref<6xi8>, %r: memref<6xi8>,
             %l: memref<6xi8>, %s: memref<6xi8>, %u: memref<6xi8>) attributes {aicf.num_outputs = 5 : i64} {
  aicf_loop.nest domain = [6] iterators = [parallel]
      ins(%a, %n : memref<6xi8>, memref<6xi8>) outs(%q, %r, %l, %s, %u : memref<6xi8>, memref<6xi8>, memref<6xi8>, memref<6xi8>, memref<6xi8>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%x: i8, %c: i8):
    %0 = arith.divui %x, %c : i8
    %1 = arith.remui %x, %c : i8
    %2 = arith.shli %x, %c : i8
    %3 = arith.shrsi %x, %c : i8
    %4 = arith.shrui %x, %c : i8
    aicf_loop.yield %0, %1, %2, %3, %4 : i8, i8, i8, i8, i8
  }
  func.return
}
"""


def test_what_llvm_leaves_undefined_is_ours(tools):
    """Float to int casts saturate (NaN is 0), unsigned x / 0 and x % 0 are 0, and a
    shift by the width or more is 0 (the sign's fill for shrsi), as on the cpu target:
    upstream's fptosi gave INT_MIN for 1e10 (poison in LLVM), divui by 0 killed
    mlir-cpu-runner with SIGFPE, and shrui i8 -1 by 9 was 127."""
    x = np.array([np.nan, 1e10, -1e10, np.inf, -np.inf, -2.5, 2.5, 2.0**31], np.float32)
    h = np.array([np.inf, -np.inf, np.nan, -3.5], np.float16)
    big, small = np.iinfo(np.int32).max, np.iinfo(np.int32).min
    i64 = np.iinfo(np.int64)
    casts = upstream.compile_upstream(SATURATING_CAST)(x, h)
    np.testing.assert_array_equal(casts[0], [0, big, small, big, small, -2, 2, big])
    np.testing.assert_array_equal(casts[1], [i64.max, i64.min, 0, -3])
    a = np.array([7, -8, -1, 5, -8, 3], np.int8)
    n = np.array([0, 0, 9, 8, 2, -1], np.int8)
    theirs = upstream.compile_upstream(UNSIGNED_AND_SHIFTS)(a, n)
    # unsigned: a is 7, 248, 255, 5, 248, 3 and n is 0, 0, 9, 8, 2, 255
    np.testing.assert_array_equal(theirs[0], [0, 0, 28, 0, 124, 0])
    np.testing.assert_array_equal(theirs[1], [0, 0, 3, 5, 0, 3])
    np.testing.assert_array_equal(theirs[2], [7, -8, 0, 0, -32, 0])
    np.testing.assert_array_equal(theirs[3], [7, -8, -1, 0, -2, 0])
    np.testing.assert_array_equal(theirs[4], [7, -8, 0, 0, 62, 0])
    for t, o in zip(theirs, aicf.compile(UNSIGNED_AND_SHIFTS, target="cpu")(a, n)):
        np.testing.assert_array_equal(t, o)


F64_TO_BF16 = """
func.func @f(%x: tensor<4xf64>) -> tensor<4xbf16> {
  %0 = aicf_tensor.cast %x : (tensor<4xf64>) -> tensor<4xbf16>
  func.return %0 : tensor<4xbf16>
}
"""


def test_f64_to_bf16_rounds_once(tools):
    """1 + 2^-8 + 2^-40 is past the halfway point between bf16's 1 and 1 + 2^-7: one
    rounding goes up (the cpu target's aicf_f64_to_bf16); upstream went through f32,
    which rounded it to the halfway point, and then to 1 (ties to even)."""
    x = np.array([1 + 2**-8 + 2**-40, -(1 + 2**-8 + 2**-40), 1 + 2**-8, 3.0])
    bits = upstream.compile_upstream(F64_TO_BF16)(x)
    # 0x3F81 is 1 + 2^-7, 0x3F80 is 1 (the tie 1 + 2^-8 goes to even), 0x4040 is 3
    np.testing.assert_array_equal(bits, np.array([0x3F81, 0xBF81, 0x3F80, 0x4040], np.uint16))


INT_TO_BF16 = """
func.func @f(%x: tensor<3xi32>, %y: tensor<3xi64>) -> (tensor<3xbf16>, tensor<3xbf16>) {
  %0 = aicf_tensor.cast %x : (tensor<3xi32>) -> tensor<3xbf16>
  %1 = aicf_tensor.cast %y : (tensor<3xi64>) -> tensor<3xbf16>
  func.return %0, %1 : tensor<3xbf16>, tensor<3xbf16>
}
"""


def test_integer_to_bf16_rounds_once(tools):
    """2^30 + 2^22 + 1 is past the halfway point between the bf16s 2^30 and 2^30 + 2^23:
    it rounds up (the cpu target's round to odd); through f32 it became the halfway
    point 2^30 + 2^22, then 2^30 (ties to even). The same at 2^62 for an i64."""
    x = np.array([2**30 + 2**22 + 1, -(2**30 + 2**22 + 1), 2**30 + 2**22], np.int32)
    y = np.array([2**62 + 2**54 + 1, -(2**62 + 2**54 + 1), 2**62 + 2**54], np.int64)
    a, b = upstream.compile_upstream(INT_TO_BF16)(x, y)
    # 0x4E81: 2^30 * (1 + 2^-7), 0x4E80: 2^30; 0x5E81 / 0x5E80 the same at 2^62
    np.testing.assert_array_equal(a, np.array([0x4E81, 0xCE81, 0x4E80], np.uint16))
    np.testing.assert_array_equal(b, np.array([0x5E81, 0xDE81, 0x5E80], np.uint16))


HALF_MATH = """
func.func @f(%x: memref<4xf16>, %l: memref<4xf16>, %e: memref<4xf16>) attributes {aicf.num_outputs = 2 : i64} {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf16>) outs(%l, %e : memref<4xf16>, memref<4xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f16):
    %0 = math.log1p %a : f16
    %1 = math.expm1 %a : f16
    aicf_loop.yield %0, %1 : f16, f16
  }
  func.return
}
"""


def test_half_math_computes_in_f32(tools):
    """math ops on f16 compute in f32 and round once, as on the cpu target: MLIR 16
    expanded log1p as log(1 + x) in f16, so log1p(1e-4) was 0 (expm1 likewise)."""
    x = np.array([1e-4, -3e-4, 2e-3, 0.5], np.float16)
    log1p, expm1 = upstream.compile_upstream(HALF_MATH)(x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(log1p.astype(np.float64), np.log1p(x64), rtol=2**-11)
    np.testing.assert_allclose(expm1.astype(np.float64), np.expm1(x64), rtol=2**-11)
