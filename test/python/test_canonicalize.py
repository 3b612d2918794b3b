"""Canonicalization, constant folding and reshape cleanup, checked against NumPy.

The lit tests pin the rewritten IR; here random programs check that the rewrites are
exact: a tiny NumPy interpreter runs the function before and after the passes, and
both must equal the NumPy expression the program was written from.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.transforms.canonicalize import CanonicalizePass

from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import tensor as T
from aicf.passes.tensor.cleanup_reshapes import CleanupReshapesPass
from aicf.passes.tensor.fold import FoldConstantsPass


def run(module, x: np.ndarray) -> np.ndarray:
    """Interpret the single-function module with plain NumPy calls."""
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    env = {f.body.block.args[0]: x}
    for op in f.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return env[op.arguments[0]]
        a = env[op.operands[0]] if op.operands else None
        if isinstance(op, T.ReshapeOp):
            env[op.result] = a.reshape(op.result.type.get_shape())
        elif isinstance(op, T.TransposeOp):
            env[op.result] = np.transpose(a, op.perm_list)
        elif isinstance(op, T.ReduceOp):
            fn = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_mean": np.mean}
            env[op.result] = fn[op.name.split(".")[1]](
                a, axis=tuple(op.axes_list), keepdims=op.keep
            )
        elif isinstance(op, T.MulOp):
            env[op.result] = a * env[op.operands[1]]
        elif isinstance(op, T.ConstantOp):
            env[op.result] = np.array(op.value.get_values(), np.float64).reshape(
                op.value.get_shape()
            )
        else:
            raise NotImplementedError(op.name)
    raise AssertionError("no return")


def apply(text: str, *passes):
    ctx = make_context()
    module = parse_module(ctx, text)
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def ty(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f64>"


def _random_case(rng):
    """x -> reshape or transpose -> reduce -> maybe reshape of the result."""
    rank = int(rng.integers(1, 4))
    shape = [int(d) for d in rng.choice([1, 2, 3, 4], size=rank)]
    lines, cur, expr = [], "%x", []
    x_shape = list(shape)
    if rng.random() < 0.5:
        # reshape: insert or drop unit dims, or merge two neighbours
        new = list(shape)
        kind = rng.integers(0, 3)
        if kind == 0:
            new.insert(int(rng.integers(0, len(new) + 1)), 1)
        elif kind == 1 and 1 in new:
            new.remove(1)
        elif len(new) >= 2:
            i = int(rng.integers(0, len(new) - 1))
            new[i : i + 2] = [new[i] * new[i + 1]]
        lines.append(
            f"%v = aicf_tensor.reshape {cur} shape = {new} : ({ty(shape)}) -> {ty(new)}"
        )
        expr.append(lambda a, new=new: a.reshape(new))
        cur, shape = "%v", new
    else:
        perm = [int(p) for p in rng.permutation(len(shape))]
        new = [shape[p] for p in perm]
        lines.append(
            f"%v = aicf_tensor.transpose {cur} perm = {perm} : ({ty(shape)}) -> {ty(new)}"
        )
        expr.append(lambda a, perm=perm: np.transpose(a, perm))
        cur, shape = "%v", new
    n = int(rng.integers(1, len(shape) + 1)) if shape else 0
    axes = sorted(int(a) for a in rng.choice(len(shape), size=n, replace=False)) if n else []
    keep = bool(rng.random() < 0.5)
    name = str(rng.choice(["reduce_sum", "reduce_max", "reduce_mean"]))
    out = [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
    flag = " keepdims" if keep else ""
    lines.append(
        f"%r = aicf_tensor.{name} {cur} axes = {axes}{flag} : ({ty(shape)}) -> {ty(out)}"
    )
    np_fn = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_mean": np.mean}[name]
    expr.append(lambda a: np_fn(a, axis=tuple(axes), keepdims=keep))
    cur, shape = "%r", out
    if rng.random() < 0.5:
        squeezed = [d for d in shape if d != 1]
        lines.append(f"%s = aicf_tensor.reshape %r shape = {squeezed} : ({ty(shape)}) -> {ty(squeezed)}")
        expr.append(lambda a, s=squeezed: a.reshape(s))
        cur, shape = "%s", squeezed
    body = "\n  ".join(lines)
    text = (
        f"func.func @f(%x: {ty(x_shape)}) -> {ty(shape)} {{\n  {body}\n"
        f"  func.return {cur} : {ty(shape)}\n}}\n"
    )
    return text, x_shape, expr


def test_cleanup_reshapes_is_exact_on_random_programs():
    rng = np.random.default_rng(7)
    rewritten = 0
    for _ in range(150):
        text, x_shape, expr = _random_case(rng)
        x = rng.standard_normal(x_shape)
        ref = x
        for e in expr:
            ref = e(ref)
        module = apply(text, CleanupReshapesPass())
        out = run(module, x)
        assert out.shape == ref.shape, text
        np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12, err_msg=text)
        rewritten += "reshape" not in str(module) and "transpose" not in str(module)
    assert rewritten > 20  # the pass did fold a good share of them


IDENTITIES = """
func.func @f(%x: tensor<3x4xf64>) -> tensor<4x3xf64> {
  %one = aicf_tensor.constant dense<1.0> : tensor<f64>
  %zero = aicf_tensor.constant dense<0.0> : tensor<4xf64>
  %0 = aicf_tensor.mul %x, %one : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %1 = aicf_tensor.add %zero, %0 : (tensor<4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %2 = aicf_tensor.neg %1 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %3 = aicf_tensor.neg %2 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %4 = aicf_tensor.reshape %3 shape = [12] : (tensor<3x4xf64>) -> tensor<12xf64>
  %5 = aicf_tensor.reshape %4 shape = [3, 4] : (tensor<12xf64>) -> tensor<3x4xf64>
  %6 = aicf_tensor.transpose %5 perm = [1, 0] : (tensor<3x4xf64>) -> tensor<4x3xf64>
  %7 = aicf_tensor.transpose %6 perm = [1, 0] : (tensor<4x3xf64>) -> tensor<3x4xf64>
  %8 = aicf_tensor.transpose %7 perm = [1, 0] : (tensor<3x4xf64>) -> tensor<4x3xf64>
  func.return %8 : tensor<4x3xf64>
}
"""


def test_canonicalize_removes_identities():
    module = apply(IDENTITIES, CanonicalizePass())
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    assert [op.name for op in f.body.block.ops] == ["aicf_tensor.transpose", "func.return"]
    x = np.random.default_rng(3).standard_normal((3, 4))
    np.testing.assert_array_equal(run(module, x), x.T)


def test_canonicalize_keeps_locations():
    module = apply(
        """func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = aicf_tensor.transpose %x perm = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = aicf_tensor.transpose %0 perm = [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  func.return %1 : tensor<4x2x3xf32>
}""",
        CanonicalizePass(),
    )
    (t,) = [op for op in module.walk() if isinstance(op, T.TransposeOp)]
    assert t.perm_list == (2, 0, 1)
    assert t.location.line.data == 3


@pytest.mark.parametrize("dtype, np_dtype", [("f32", np.float32), ("f16", np.float16)])
def test_fold_constants_matches_numpy(dtype, np_dtype):
    rng = np.random.default_rng(11)
    a = rng.uniform(0.5, 2.0, (3, 4)).astype(np_dtype)
    b = rng.uniform(0.5, 2.0, (4,)).astype(np_dtype)

    def dense(v):
        return "dense<" + np.array2string(v, separator=", ", precision=10, floatmode="unique") + ">"

    text = f"""func.func @f() -> tensor<3xf32> {{
  %a = aicf_tensor.constant {dense(a)} : tensor<3x4x{dtype}>
  %b = aicf_tensor.constant {dense(b)} : tensor<4x{dtype}>
  %0 = aicf_tensor.div %a, %b : (tensor<3x4x{dtype}>, tensor<4x{dtype}>) -> tensor<3x4x{dtype}>
  %1 = aicf_tensor.exp %0 : (tensor<3x4x{dtype}>) -> tensor<3x4x{dtype}>
  %2 = aicf_tensor.reduce_sum %1 axes = [1] : (tensor<3x4x{dtype}>) -> tensor<3x{dtype}>
  %3 = aicf_tensor.cast %2 : (tensor<3x{dtype}>) -> tensor<3xf32>
  func.return %3 : tensor<3xf32>
}}"""
    module = apply(text, FoldConstantsPass())
    (c,) = [op for op in module.walk() if isinstance(op, T.ConstantOp)]
    got = np.array(c.value.get_values(), np.float32)
    e = np.exp((a.astype(np.float32) / b.astype(np.float32)).astype(np_dtype).astype(np.float32))
    ref = e.astype(np_dtype).astype(np.float64).sum(axis=1).astype(np_dtype).astype(np.float32)
    np.testing.assert_array_equal(got, ref)
