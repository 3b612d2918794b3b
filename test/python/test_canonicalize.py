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
  %zero = aicf_tensor.constant dense<-0.0> : tensor<4xf64>
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


def test_adding_a_positive_zero_keeps_the_sign_of_zero_as_numpy():
    """x + 0.0 folded to x gave -0.0 at x = -0.0 (NumPy, IEEE: +0.0), so 1 / (x + 0.0)
    was -inf; x - (-0.0) too. x + (-0.0) and x - 0.0 are exact and still fold."""
    import aicf

    def f(x):
        return 1 / (x + 0.0), 1 / (0.0 + x), 1 / (x - (-0.0)), 1 / (x + (-0.0)), 1 / (x - 0.0)

    x = np.array([-0.0, 0.0, -2.0], np.float32)
    with np.errstate(divide="ignore"):
        want = f(x)
    for fuse in (True, False):
        for got, ref in zip(aicf.jit(f, target="cpu", fuse=fuse)(x), want):
            np.testing.assert_array_equal(got, ref)


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


def _view_chain_case(rng):
    """x [a*b, n] + bias -> reshape [a, b, n] -> elementwise ops with broadcast operands
    -> reshape back (or on to another shape): what a model's views do around its
    elementwise code."""
    a, b, n = (int(v) for v in rng.integers(1, 5, size=3))
    shape2, shape3 = [a * b, n], [a, b, n]
    args = {"x": shape2, "bias": [n]}
    lines = [f"%h = aicf_tensor.add %x, %bias : ({ty(shape2)}, {ty([n])}) -> {ty(shape2)}",
             f"%v = aicf_tensor.reshape %h shape = {shape3} : ({ty(shape2)}) -> {ty(shape3)}"]
    expr = lambda env: (env["x"] + env["bias"]).reshape(shape3)  # noqa: E731
    steps = [expr]
    cur = "%v"
    for i in range(int(rng.integers(1, 4))):
        kind = rng.integers(0, 4)
        nm = f"%e{i}"
        if kind == 0:
            lines.append(f"{nm} = aicf_tensor.tanh {cur} : ({ty(shape3)}) -> {ty(shape3)}")
            steps.append(lambda v: np.tanh(v))
        else:
            oshape = [[], [1, n], [b, 1], [n]][kind] if kind < 4 else []
            arg = f"y{i}"
            args[arg] = oshape
            lines.append(f"{nm} = aicf_tensor.mul {cur}, %{arg} : ({ty(shape3)}, {ty(oshape)}) -> {ty(shape3)}")
            steps.append(lambda v, arg=arg: v * ENV[arg])
        cur = nm
    final = shape2 if rng.random() < 0.7 else [a * b * n]
    lines.append(f"%r = aicf_tensor.reshape {cur} shape = {final} : ({ty(shape3)}) -> {ty(final)}")
    sig = ", ".join(f"%{k}: {ty(s)}" for k, s in args.items())
    text = f"func.func @f({sig}) -> {ty(final)} {{\n  " + "\n  ".join(lines) + f"\n  func.return %r : {ty(final)}\n}}\n"
    return text, args, steps, final


ENV: dict = {}


def test_reshapes_through_elementwise_chains_are_exact():
    """aicf-cleanup-reshapes moves a model's views through its elementwise code (and
    drops them where they cancel); the compiled program still computes the NumPy
    expression."""
    import aicf

    rng = np.random.default_rng(3)
    moved = 0
    for _ in range(25):
        text, args, steps, final = _view_chain_case(rng)
        ENV.clear()
        ENV.update({k: rng.standard_normal(s) for k, s in args.items()})
        ref = steps[0](ENV)
        for s in steps[1:]:
            ref = s(ref)
        exe = aicf.compile(text, target="cpu")
        out = exe(*ENV.values())
        np.testing.assert_allclose(out, ref.reshape(final), rtol=1e-12, atol=1e-12, err_msg=text)
        cleaned = apply(text, CleanupReshapesPass())
        moved += sum(isinstance(op, T.ReshapeOp) for op in cleaned.walk()) < 2
    assert moved > 5  # the views did move and cancel in a good share of them


def test_linear_on_a_batch_of_sequences_writes_its_result_in_place():
    """reshape(matmul(reshape(x), w^T)) -> one batched matmul: same numbers, and the
    loop program has no copy left for the reshape back."""
    import aicf
    from aicf.compiler import pipeline_for, run_pipeline
    from aicf.dialects.loop import NestOp

    text = """
func.func @f(%x: tensor<2x5x4xf64>, %w: tensor<7x4xf64>) -> tensor<2x5x7xf64> {
  %x2 = aicf_tensor.reshape %x shape = [10, 4] : (tensor<2x5x4xf64>) -> tensor<10x4xf64>
  %wt = aicf_tensor.transpose %w perm = [1, 0] : (tensor<7x4xf64>) -> tensor<4x7xf64>
  %h = aicf_tensor.matmul %x2, %wt : (tensor<10x4xf64>, tensor<4x7xf64>) -> tensor<10x7xf64>
  %o = aicf_tensor.reshape %h shape = [2, 5, 7] : (tensor<10x7xf64>) -> tensor<2x5x7xf64>
  func.return %o : tensor<2x5x7xf64>
}
"""
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 5, 4)), rng.standard_normal((7, 4))
    np.testing.assert_allclose(aicf.compile(text, target="cpu")(x, w), x @ w.T, rtol=1e-12)
    module = parse_module(make_context(), text)
    run_pipeline(module, pipeline_for("cpu"))
    nests = [op for op in module.walk() if isinstance(op, NestOp)]
    assert len(nests) == 1 and nests[0].is_reduction  # the matmul alone, writing the output


def test_a_mask_of_broadcast_operands_keeps_its_reshape():
    """(i[:, None] >= j[None, :]).unsqueeze(0): no operand of the comparison has its
    result's shape, so the reshape cannot move above it (an ill-typed op before)."""
    import aicf

    src = """
func.func @mask(%s: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %i = aicf_tensor.iota dim = 0 : tensor<4x1xi64>
  %j = aicf_tensor.iota dim = 1 : tensor<1x4xi64>
  %m = aicf_tensor.ge %i, %j : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi1>
  %m3 = aicf_tensor.reshape %m shape = [1, 4, 4] : (tensor<4x4xi1>) -> tensor<1x4x4xi1>
  %z = aicf_tensor.constant dense<0.0> : tensor<f32>
  %r = aicf_tensor.select %m3, %s, %z : (tensor<1x4x4xi1>, tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  func.return %r : tensor<2x4x4xf32>
}"""
    s = np.random.default_rng(0).standard_normal((2, 4, 4)).astype(np.float32)
    for fuse in (True, False):
        np.testing.assert_array_equal(aicf.compile(src, target="cpu", fuse=fuse)(s), np.where(np.tri(4, dtype=bool), s, 0))
