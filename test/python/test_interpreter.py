"""The `aicf_tensor` interpreter functions (aicf/interpreters/tensor.py), op by op.

Each program runs through xDSL's `Interpreter` with our functions and is compared with
a NumPy expression written here (not taken from the interpreter), on random inputs:
the "reference" precision in float64, the "fold" precision in the op's dtype
semantics (f16/bf16 computed in f32 and rounded once, i32 wrapping).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import tensor as T
from aicf.errors import CompileError
from aicf.interpreters.tensor import PRECISIONS, call
from aicf.reference import evaluate

RNG = np.random.default_rng(20240607)


def run(text: str, *arrays, precision: str = "reference") -> tuple[np.ndarray, ...]:
    """Call @f of `text` on `arrays` (converted to the precision's compute dtypes)."""
    module = parse_module(make_context(), text)
    (f,) = [op for op in module.ops if op.name == "func.func"]
    policy = PRECISIONS[precision]
    args = [policy.load(a, T.element_type(arg.type)) for arg, a in zip(f.args, arrays)]
    return call(module, "f", args, precision)


def unary_program(op: str, t: str) -> str:
    return f"""
    func.func @f(%x: {t}) -> {t} {{
      %y = aicf_tensor.{op} %x : ({t}) -> {t}
      func.return %y : {t}
    }}"""


def rand(*shape, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def erf(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.ravel()]).reshape(x.shape)


UNARY = {
    "neg": lambda x: -x,
    "exp": lambda x: np.e**x,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": lambda x: (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1),
    "sqrt": lambda x: x**0.5,
    "rsqrt": lambda x: x**-0.5,
    "abs": lambda x: np.where(x < 0, -x, x),
    "relu": lambda x: np.where(x > 0, x, 0.0),
    "gelu": lambda x: x / 2 * (1 + erf(x / np.sqrt(2))),
    "sigmoid": lambda x: np.exp(x) / (np.exp(x) + 1),
}


@pytest.mark.parametrize("op", UNARY)
def test_unary_reference_is_float64(op):
    x = rand(4, 7)
    if op in ("log", "sqrt", "rsqrt"):
        x = np.abs(x) + 0.1
    (y,) = run(unary_program(op, "tensor<4x7xf32>"), x)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, UNARY[op](x.astype(np.float64)), rtol=1e-13, atol=1e-15)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "max": lambda a, b: np.where(a > b, a, b),
    "min": lambda a, b: np.where(a < b, a, b),
    "pow": lambda a, b: np.exp(b * np.log(a)),
}


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcasts(op):
    a, b = rand(3, 1, 5), rand(4, 5)
    if op == "pow":
        a = np.abs(a) + 0.5
    text = f"""
    func.func @f(%a: tensor<3x1x5xf32>, %b: tensor<4x5xf32>) -> tensor<3x4x5xf32> {{
      %y = aicf_tensor.{op} %a, %b : (tensor<3x1x5xf32>, tensor<4x5xf32>) -> tensor<3x4x5xf32>
      func.return %y : tensor<3x4x5xf32>
    }}"""
    (y,) = run(text, a, b)
    assert y.shape == (3, 4, 5)
    a64 = np.tile(a.astype(np.float64), (1, 4, 1))
    b64 = np.tile(b.astype(np.float64)[None], (3, 1, 1))
    np.testing.assert_allclose(y, BINARY[op](a64, b64), rtol=1e-13)


@pytest.mark.parametrize(
    "op, axes, keepdims, shape",
    [
        ("reduce_sum", [-1], False, (3, 4)),
        ("reduce_sum", [0, -1], True, (1, 4, 1)),
        ("reduce_max", [-2], True, (3, 1, 5)),
        ("reduce_max", [0, 1, 2], False, ()),
        ("reduce_mean", [-3, -1], False, (4,)),
        ("reduce_mean", [], False, (3, 4, 5)),
    ],
)
def test_reductions_axes_and_keepdims(op, axes, keepdims, shape):
    x = rand(3, 4, 5)
    rtype = "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"
    text = f"""
    func.func @f(%x: tensor<3x4x5xf32>) -> {rtype} {{
      %y = aicf_tensor.{op} %x axes = {axes}{" keepdims" if keepdims else ""} : (tensor<3x4x5xf32>) -> {rtype}
      func.return %y : {rtype}
    }}"""
    (y,) = run(text, x)
    assert y.shape == shape
    # The expected value, by looping over the kept positions of the input.
    x64 = x.astype(np.float64)
    red = {a % 3 for a in axes}
    expected = np.empty([1 if i in red else d for i, d in enumerate(x.shape)])
    for idx in np.ndindex(*expected.shape):
        sel = tuple(slice(None) if i in red else k for i, k in enumerate(idx))
        vals = x64[sel].ravel()
        expected[idx] = {"reduce_sum": sum(vals), "reduce_max": max(vals),
                         "reduce_mean": sum(vals) / len(vals)}[op]  # fmt: skip
    np.testing.assert_allclose(y, expected.reshape(shape), rtol=1e-13)


def test_matmul_batched_broadcast_and_vector():
    a, b, v = rand(2, 3, 5), rand(5, 4), rand(5)
    text = """
    func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<5x4xf32>, %v: tensor<5xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>) {
      %c = aicf_tensor.matmul %a, %b : (tensor<2x3x5xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
      %d = aicf_tensor.matmul %a, %v : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3xf32>
      func.return %c, %d : tensor<2x3x4xf32>, tensor<2x3xf32>
    }"""
    c, d = run(text, a, b, v)
    a64, b64, v64 = (t.astype(np.float64) for t in (a, b, v))
    np.testing.assert_allclose(c, np.einsum("bik,kj->bij", a64, b64), rtol=1e-12)
    np.testing.assert_allclose(d, np.einsum("bik,k->bi", a64, v64), rtol=1e-12)


def test_layout_ops():
    x = rand(2, 3, 4)
    text = """
    func.func @f(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<5x2x3x4xf32>) {
      %r = aicf_tensor.reshape %x shape = [-1, 4] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
      %t = aicf_tensor.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      %b = aicf_tensor.broadcast_to %x shape = [5, 2, 3, 4] : (tensor<2x3x4xf32>) -> tensor<5x2x3x4xf32>
      func.return %r, %t, %b : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<5x2x3x4xf32>
    }"""
    r, t, b = run(text, x)
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(r, [x64[i, j] for i in range(2) for j in range(3)])
    np.testing.assert_array_equal(t, [[[x64[i, j, k] for j in range(3)] for i in range(2)] for k in range(4)])  # fmt: skip
    np.testing.assert_array_equal(b, np.stack([x64] * 5))


def test_constants_splat_and_dense():
    text = """
    func.func @f() -> (tensor<2x3xf32>, tensor<3xi32>) {
      %s = aicf_tensor.constant dense<1.5> : tensor<2x3xf32>
      %d = aicf_tensor.constant dense<[4, -2, 7]> : tensor<3xi32>
      func.return %s, %d : tensor<2x3xf32>, tensor<3xi32>
    }"""
    s, d = run(text)
    np.testing.assert_array_equal(s, np.full((2, 3), 1.5))
    np.testing.assert_array_equal(d, [4, -2, 7])
    assert d.dtype == np.int64


def bf16_round(x) -> np.ndarray:
    """Round to 8 significant bits, nearest even (via float32, as the ops specify)."""
    m, e = np.frexp(np.asarray(x, np.float32).astype(np.float64))
    return np.ldexp(np.round(m * 256) / 256, e)


def test_cast_rounds_to_its_result_type():
    x = rand(64) * 100
    text = """
    func.func @f(%x: tensor<64xf32>) -> (tensor<64xf16>, tensor<64xbf16>, tensor<64xi32>) {
      %h = aicf_tensor.cast %x : (tensor<64xf32>) -> tensor<64xf16>
      %b = aicf_tensor.cast %x : (tensor<64xf32>) -> tensor<64xbf16>
      %i = aicf_tensor.cast %x : (tensor<64xf32>) -> tensor<64xi32>
      func.return %h, %b, %i : tensor<64xf16>, tensor<64xbf16>, tensor<64xi32>
    }"""
    h, b, i = run(text, x)
    np.testing.assert_array_equal(h, x.astype(np.float16).astype(np.float64))
    np.testing.assert_array_equal(b, bf16_round(x))
    np.testing.assert_array_equal(i, [math.trunc(float(v)) for v in x])


def test_fused_region_and_func_call():
    x, c = rand(4, 8), rand(8)
    text = """
    func.func @g(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %y = aicf_tensor.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      func.return %y : tensor<4x8xf32>
    }
    func.func @f(%x: tensor<4x8xf32>, %c: tensor<8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
      %n = func.call @g(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %s, %e = aicf_tensor.fused ins(%n, %c : tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
      ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>):
        %0 = aicf_tensor.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
        %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
        %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
        aicf_tensor.yield %2, %0 : tensor<4xf32>, tensor<4x8xf32>
      }
      func.return %s, %e : tensor<4xf32>, tensor<4x8xf32>
    }"""
    module = parse_module(make_context(), text)
    s, e = evaluate(module, "f", x, c)
    e64 = c.astype(np.float64) - x.astype(np.float64)
    np.testing.assert_allclose(e, e64, rtol=1e-15)
    np.testing.assert_allclose(s, np.sin(e64).sum(axis=1), rtol=1e-13)


# --- the two precisions -------------------------------------------------------------------


def test_f16_add_fold_rounds_once_reference_does_not():
    a, b = rand(256, dtype=np.float16), rand(256, dtype=np.float16)
    text = """
    func.func @f(%a: tensor<256xf16>, %b: tensor<256xf16>) -> tensor<256xf16> {
      %y = aicf_tensor.mul %a, %b : (tensor<256xf16>, tensor<256xf16>) -> tensor<256xf16>
      func.return %y : tensor<256xf16>
    }"""
    (ref,) = run(text, a, b)
    (fold,) = run(text, a, b, precision="fold")
    exact = a.astype(np.float64) * b.astype(np.float64)
    assert ref.dtype == np.float64 and fold.dtype == np.float32
    np.testing.assert_array_equal(ref, exact)
    np.testing.assert_array_equal(fold, exact.astype(np.float16).astype(np.float32))
    assert np.any(ref != fold)


def test_f16_exp_fold_computes_in_f32():
    x = rand(512, dtype=np.float16)
    (fold,) = run(unary_program("exp", "tensor<512xf16>"), x, precision="fold")
    np.testing.assert_array_equal(fold, np.exp(x.astype(np.float32)).astype(np.float16))


def test_f16_sum_fold_accumulates_wide():
    # 4096 ones: an f16 accumulator stalls at 2048; the fold result is exact.
    x = np.ones(4096, np.float16)
    text = """
    func.func @f(%x: tensor<4096xf16>) -> tensor<f16> {
      %y = aicf_tensor.reduce_sum %x axes = [0] : (tensor<4096xf16>) -> tensor<f16>
      func.return %y : tensor<f16>
    }"""
    (fold,) = run(text, x, precision="fold")
    assert fold.shape == () and fold == 4096.0


def test_bf16_fold_rounds_and_keeps_scalar_shape():
    x = rand(3, 5)
    bits = (bf16_round(x).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    text = """
    func.func @f(%x: tensor<3x5xbf16>) -> (tensor<bf16>, tensor<3x5xbf16>) {
      %s = aicf_tensor.reduce_sum %x axes = [0, 1] : (tensor<3x5xbf16>) -> tensor<bf16>
      %t = aicf_tensor.tanh %x : (tensor<3x5xbf16>) -> tensor<3x5xbf16>
      func.return %s, %t : tensor<bf16>, tensor<3x5xbf16>
    }"""
    s, t = run(text, bits, precision="fold")
    xv = bf16_round(x)
    assert s.shape == ()
    assert s == bf16_round(xv.sum())
    np.testing.assert_array_equal(t, bf16_round(np.tanh(xv.astype(np.float32))))


def test_i32_wraps_under_fold_and_under_reference():
    """NumPy's semantics, which the compiled code follows (signed arithmetic wraps
    through the unsigned type): the reference holds integers in int64 but wraps each
    result at its width."""
    a = np.array([2**31 - 1, -(2**31), 5], np.int32)
    b = np.array([1, -1, 7], np.int32)
    text = """
    func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
      %y = aicf_tensor.add %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
      func.return %y : tensor<3xi32>
    }"""
    (ref,) = run(text, a, b)
    (fold,) = run(text, a, b, precision="fold")
    assert ref.tolist() == [-(2**31), 2**31 - 1, 12]
    assert fold.tolist() == [-(2**31), 2**31 - 1, 12]


def test_reference_names_an_op_without_semantics():
    text = """
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = arith.constant dense<1.0> : tensor<4xf32>
      func.return %c : tensor<4xf32>
    }"""
    module = parse_module(make_context(), text, "prog.mlir")
    with pytest.raises(CompileError, match=r"prog\.mlir:3:\d+: error: 'arith.constant'"):
        evaluate(module, "f", rand(4))
