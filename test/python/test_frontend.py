"""The Python front end: aicf.trace / aicf.jit over aicf.ops and Tensor operators."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import trace_support
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc

import aicf
from aicf import ops
from aicf.dialects import tensor as T
from aicf.frontend import jitted as jit_module

THIS_FILE = os.path.basename(__file__)


def body_ops(module):
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return f, list(f.body.block.ops)


def names(module):
    return [op.name for op in body_ops(module)[1]]


def spec(*shape, dtype="f32"):
    return aicf.TensorSpec(shape, dtype)


def line_of(marker: str) -> int:
    """The line number in this file of the statement tagged `# <marker>`."""
    return trace_support.line_of(__file__, marker)


# --- tracing --------------------------------------------------------------------------------


def test_trace_builds_expected_ops_and_types():
    def mlp(x, w1, b1, w2, b2):
        h = ops.gelu(x @ w1 + b1)
        return ops.reduce_sum(h @ w2 + b2, axis=-1, keepdims=True)

    m = aicf.trace(mlp, np.zeros((4, 8), np.float32), spec(8, 16), spec(16), spec(16, 3), spec(3))
    m.verify()
    f, body = body_ops(m)
    assert f.sym_name.data == "mlp"
    assert [op.name for op in body] == [
        "aicf_tensor.matmul", "aicf_tensor.add", "aicf_tensor.gelu", "aicf_tensor.matmul",
        "aicf_tensor.add", "aicf_tensor.reduce_sum", "func.return",
    ]  # fmt: skip
    assert str(f.function_type) == (
        "(tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>, "
        "tensor<3xf32>) -> tensor<4x1xf32>"
    )
    red = body[5]
    assert isinstance(red, T.ReduceSumOp) and red.axes_list == (-1,) and red.keep


def test_every_op_and_operator():
    def f(x, y):
        outs = [
            ops.neg(x), ops.exp(x), ops.log(x), ops.sin(x), ops.cos(x), ops.tanh(x),
            ops.sqrt(x), ops.rsqrt(x), ops.abs(x), ops.relu(x), ops.gelu(x), ops.sigmoid(x),
            ops.add(x, y), ops.sub(x, y), ops.mul(x, y), ops.div(x, y), ops.max(x, y),
            ops.min(x, y), ops.pow(x, y), ops.cast(x, "f16"), ops.reduce_max(x, axes=[0]),
            ops.reduce_mean(x), ops.matmul(x, ops.transpose(x)), ops.reshape(x, [-1]),
            ops.transpose(x, axes=(1, 0)), ops.broadcast_to(y, (2, 4, 3)),
            x + y, x - y, x * y, x / y, x ** y, -x, x @ x.T, 2.0 - x, 1 / x,
        ]  # fmt: skip
        return tuple(outs)

    m = aicf.trace(f, spec(4, 3), spec(3))
    m.verify()
    got = [n.split(".")[1] for n in names(m)[:-1]]
    assert got[:26] == [
        "neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "relu", "gelu",
        "sigmoid", "add", "sub", "mul", "div", "max", "min", "pow", "cast", "reduce_max",
        "reduce_mean", "transpose", "matmul", "reshape", "broadcast_to",
    ]  # fmt: skip
    f_op, body = body_ops(m)
    results = [str(t) for t in f_op.function_type.outputs]
    assert results[19] == "tensor<4x3xf16>"
    assert results[20] == "tensor<3xf32>" and results[21] == "tensor<f32>"
    assert results[22] == "tensor<4x4xf32>" and results[23] == "tensor<12xf32>"
    assert results[25] == "tensor<2x4x3xf32>"


def test_python_scalars_become_rank0_constants_of_the_other_dtype():
    def f(x):
        return x * 3 + 0.5

    m = aicf.trace(f, spec(4, dtype="f16"))
    consts = [op for op in body_ops(m)[1] if isinstance(op, T.ConstantOp)]
    assert [str(c.result.type) for c in consts] == ["tensor<f16>", "tensor<f16>"]
    assert str(body_ops(m)[0].function_type.outputs.data[0]) == "tensor<4xf16>"


def test_numpy_array_operands_are_constants():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(x):
        return x + w

    m = aicf.trace(f, spec(2, 3))
    (c,) = [op for op in body_ops(m)[1] if isinstance(op, T.ConstantOp)]
    assert c.value.get_values() == tuple(float(v) for v in w.reshape(-1))


def test_every_op_is_located_at_the_user_line():
    def f(x):
        y = ops.exp(x)  # LOC-EXP
        return y * 2.0  # LOC-MUL

    m = aicf.trace(f, spec(4))
    body = body_ops(m)[1]
    for op in body:
        assert isinstance(op.location, FileLineColLoc)
        assert op.location.filename.data == __file__
    exp, const, mul = body[0], body[1], body[2]
    assert exp.location.line.data == line_of("LOC-EXP")
    assert const.location.line.data == line_of("LOC-MUL")
    assert mul.location.line.data == line_of("LOC-MUL")


def test_tensor_attributes():
    seen = {}

    def f(x):
        seen["x"] = (x.shape, x.dtype, x.ndim)
        return x

    aicf.trace(f, np.zeros((2, 5), np.float16))
    assert seen["x"] == ((2, 5), "f16", 2)


# --- diagnostics -------------------------------------------------------------------------------


def test_shape_error_points_at_the_python_line():
    def model(x, b):
        y = x * 2
        return y + b  # BAD-ADD

    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(model, spec(4, 8), spec(3))
    msg = str(err.value)
    assert msg.startswith(f"{__file__}:{line_of('BAD-ADD')}: error: 'aicf_tensor.add'")
    assert "4x8, 3 are not broadcast-compatible" in msg


@pytest.mark.parametrize(
    "body, marker, words",
    [
        (lambda x: x @ ops.transpose(ops.reshape(x, [8, 4])), "BAD-MATMUL", "contraction"),  # BAD-MATMUL
        (lambda x: ops.reduce_sum(x, axis=2), "BAD-AXIS", "axis 2 is out of range"),  # BAD-AXIS
        (lambda x: ops.reshape(x, [5, -1]), "BAD-RESHAPE", "cannot reshape 4x8"),  # BAD-RESHAPE
        (lambda x: ops.transpose(x, [0, 0]), "BAD-PERM", "not a permutation"),  # BAD-PERM
        (lambda x: ops.exp(ops.cast(x, "i32")), "BAD-DTYPE", "must be a float tensor"),  # BAD-DTYPE
    ],
)
def test_rule_violations_point_at_the_python_line(body, marker, words):
    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(body, spec(4, 8))
    msg = str(err.value)
    assert msg.startswith(f"{__file__}:{line_of(marker)}: error: '")
    assert words in msg
    assert THIS_FILE in msg


def test_helper_functions_report_the_innermost_user_line():
    def layer(x, w):
        return x @ w  # HELPER-LINE

    def model(x, w):
        return layer(x, w)

    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(model, spec(4, 8), spec(7, 2))
    assert f"{THIS_FILE}:{line_of('HELPER-LINE')}: error: 'aicf_tensor.matmul'" in str(err.value)


def test_returning_a_non_tensor_is_an_error():
    with pytest.raises(aicf.CompileError, match="must return traced tensors, arrays or numbers"):
        aicf.trace(lambda x: "3.0", spec(2))


def test_a_returned_number_is_a_constant_result():
    (f,) = [op for op in aicf.trace(lambda x: (x, 3.0), spec(2)).walk() if isinstance(op, func.FuncOp)]
    assert [str(t) for t in f.function_type.outputs.data] == ["tensor<2xf32>", "tensor<f32>"]


# --- CSE and folding while tracing -----------------------------------------------------------------


def test_identical_ops_are_shared():
    def f(x, y):
        a = ops.exp(x + y)
        b = ops.exp(x + y)
        return a * b, x * 2.0 + x * 2.0

    m = aicf.trace(f, spec(4), spec(4))
    assert names(m).count("aicf_tensor.add") == 2  # x + y once, and the final add
    assert names(m).count("aicf_tensor.exp") == 1
    assert names(m).count("aicf_tensor.constant") == 1
    f_op, body = body_ops(m)
    ret = body[-1]
    mul = ret.operands[0].owner
    assert mul.lhs is mul.rhs


def test_ops_on_constants_fold_through_numpy():
    c = np.array([[1.0, 4.0], [9.0, 16.0]], np.float32)

    def f(x):
        k = ops.reduce_sum(ops.sqrt(ops.constant(c)) * 2.0, axis=0)  # [8, 12]
        return x + k

    m = aicf.trace(f, spec(2))
    assert names(m) == ["aicf_tensor.constant", "aicf_tensor.add", "func.return"]
    (const,) = [op for op in body_ops(m)[1] if isinstance(op, T.ConstantOp)]
    np.testing.assert_array_equal(np.array(const.value.get_values()), [8.0, 12.0])


def test_folding_rounds_to_the_op_dtype():
    def f(x):
        third = ops.constant(1.0, "f16") / 3.0
        return x * third

    m = aicf.trace(f, spec(2, dtype="f16"))
    (const,) = [op for op in body_ops(m)[1] if isinstance(op, T.ConstantOp)]
    assert const.value.get_values()[0] == float(np.float16(1.0) / np.float16(3.0))


def test_large_results_are_not_folded():
    def f(x):
        big = ops.constant(1.0, "f32", shape=(1025, 1024))
        return x + ops.exp(big)

    m = aicf.trace(f, spec(1025, 1024))
    assert "aicf_tensor.exp" in names(m)


# --- jit ------------------------------------------------------------------------------------------


class _FakeExecutable:
    def __init__(self, module):
        self.module = module

    def __call__(self, *args):
        return "ran"


def test_jit_caches_per_shape_dtype_and_target(monkeypatch):
    compiled = []

    def fake_compile(module, target, options):
        compiled.append((body_ops(module)[0].function_type, target))
        return _FakeExecutable(module)

    monkeypatch.setattr(jit_module, "_compile", fake_compile)

    @aicf.jit
    def f(x, y):
        return x * y + 1.0

    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    assert f(a, b) == "ran"
    assert f(a + 1, b * 2) == "ran"  # same shapes and dtypes: cached
    assert len(compiled) == 1 and compiled[0][1] == "cpu"
    f(a.astype(np.float16), b.astype(np.float16))  # new dtypes
    f(rng.standard_normal((3, 8)).astype(np.float32), b)  # new shape
    f(a, b)
    assert f.num_compilations == 3 and len(compiled) == 3

    @aicf.jit(target="cuda")
    def g(x):
        return -x

    g(a)
    g(a)
    assert compiled[-1][1] == "cuda" and g.num_compilations == 1


def _mlp(activation):
    def mlp(x, w1, b1, w2, b2):
        h = activation(x @ w1 + b1)
        return h @ w2 + b2

    return mlp


def _erf(v):
    return np.vectorize(math.erf)(v)


@pytest.mark.parametrize(
    "activation, reference",
    [
        (ops.relu, lambda h: np.maximum(h, 0.0)),
        (ops.gelu, lambda h: 0.5 * h * (1.0 + _erf(h / np.sqrt(2.0)))),
    ],
)
def test_jit_two_layer_mlp_matches_numpy_on_cpu(activation, reference):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w1 = (rng.standard_normal((32, 64)) / 6).astype(np.float32)
    b1 = rng.standard_normal(64).astype(np.float32)
    w2 = (rng.standard_normal((64, 10)) / 8).astype(np.float32)
    b2 = rng.standard_normal(10).astype(np.float32)
    f = aicf.jit(_mlp(activation), target="cpu")

    out = f(x, w1, b1, w2, b2)
    x64 = [a.astype(np.float64) for a in (x, w1, b1, w2, b2)]
    ref = reference(x64[0] @ x64[1] + x64[2]) @ x64[3] + x64[4]
    assert out.shape == ref.shape and out.dtype == np.float32
    assert np.isfinite(out).all()
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-4

    x2 = rng.standard_normal((16, 32)).astype(np.float32)
    out2 = f(x2, w1, b1, w2, b2)
    ref2 = reference(x2.astype(np.float64) @ x64[1] + x64[2]) @ x64[3] + x64[4]
    assert np.linalg.norm(out2 - ref2) / np.linalg.norm(ref2) < 1e-4
    assert f.num_compilations == 1
