"""aicf-fuse end to end on the cpu target: random programs (hypothesis) and the row
groups (softmax, layer norm), compiled with and without fusion, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as t
from aicf.dialects.loop import GroupOp, NestOp

LOWER = ["aicf-infer-shapes", "aicf-lower-to-loops"]
FUSE = ["aicf-infer-shapes", "aicf-fuse", "aicf-lower-to-loops"]


def lower(text: str, passes: list[str]):
    module = parse_module(make_context(), text, "test.mlir")
    run_pipeline(module, passes)
    return module


def compile_all(text: str, passes: list[str]):
    """The loop-level module and a function compiling one of its entries (the module is
    built once for all entries)."""
    module = lower(text, passes)
    src = str(module)
    return module, lambda entry: aicf.compile(src, target="cpu", entry=entry)


def kernels(module) -> int:
    """Top-level nests and groups: what would be launched."""
    n = 0
    for op in module.walk():
        if isinstance(op, GroupOp) or (
            isinstance(op, NestOp) and not isinstance(op.parent_op(), GroupOp)
        ):
            n += 1
    return n


def ty(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


# --- random programs ----------------------------------------------------------------------

UNARY = {
    "neg": np.negative,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "exp": np.exp,
    "sqrt": np.sqrt,
    "log": np.log,
}
BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "div": np.divide,
}
REDUCE = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_mean": np.mean}


class Program:
    """A function over f32 tensors being written, with its NumPy (float64) twin."""

    def __init__(self, name: str, inputs: list[tuple[int, ...]]):
        self.name = name
        self.lines: list[str] = []
        self.inputs = inputs
        # value name -> (shape, bound on |value|, numpy evaluator over input arrays)
        self.values: dict[str, tuple[tuple[int, ...], float]] = {}
        self.ref: dict[str, object] = {}
        for k, s in enumerate(inputs):
            self.values[f"%in{k}"] = (s, 1.0)
            self.ref[f"%in{k}"] = lambda a, k=k: a[k]
        self.n = 0

    def _new(self, shape, bound, fn) -> str:
        name = f"%v{self.n}"
        self.n += 1
        self.values[name] = (tuple(shape), bound)
        self.ref[name] = fn
        return name

    def unary(self, op: str, x: str) -> str:
        shape, b = self.values[x]
        if op == "exp" and b > 4:
            x = self.unary("tanh", x)
            b = 1.0
        if op in ("sqrt", "log"):  # keep the argument positive: sqrt(1 + x*x)
            sq = self.binary("mul", x, x)
            x = self.binary("add", sq, self.constant(1.0))
            b = self.values[x][1]
        self.lines.append(f"{self._peek()} = aicf_tensor.{op} {x} : ({ty(shape)}) -> {ty(shape)}")
        bound = {"exp": float(np.exp(b)), "sqrt": float(np.sqrt(b)), "log": float(np.log(b)) + 1}
        bound.update(dict.fromkeys(["sin", "cos", "tanh", "sigmoid"], 1.0))
        f = self.ref[x]
        return self._new(shape, bound.get(op, b), lambda a, f=f: UNARY[op](f(a)))

    def _peek(self) -> str:
        return f"%v{self.n}"

    def constant(self, value: float) -> str:
        name = self._peek()
        self.lines.append(f"{name} = aicf_tensor.constant dense<{value!r}> : tensor<f32>")
        return self._new((), abs(value), lambda a: np.float64(value))

    def binary(self, op: str, x: str, y: str) -> str:
        (sx, bx), (sy, by) = self.values[x], self.values[y]
        if op == "div":  # x / (1 + y*y)
            sq = self.binary("mul", y, y)
            y = self.binary("add", sq, self.constant(1.0))
            sy, by = self.values[y]
        shape = rules.broadcast_shapes(sx, sy)
        self.lines.append(
            f"{self._peek()} = aicf_tensor.{op} {x}, {y} : ({ty(sx)}, {ty(sy)}) -> {ty(shape)}"
        )
        bound = {"add": bx + by, "sub": bx + by, "mul": bx * by, "div": bx}.get(op, max(bx, by))
        fx, fy = self.ref[x], self.ref[y]
        return self._new(shape, bound, lambda a: BINARY[op](fx(a), fy(a)))

    def reduce(self, op: str, x: str, axes: list[int], keep: bool) -> str:
        shape, b = self.values[x]
        out = rules.reduce_shape(shape, axes, keep)
        kd = " keepdims" if keep else ""
        self.lines.append(
            f"{self._peek()} = aicf_tensor.{op} {x} axes = {axes}{kd} : ({ty(shape)}) -> {ty(out)}"
        )
        count = int(np.prod([shape[a] for a in axes]))
        bound = b * count if op == "reduce_sum" else b
        f = self.ref[x]
        return self._new(
            out, bound, lambda a: REDUCE[op](f(a), axis=tuple(axes), keepdims=keep)
        )

    def text(self, results: list[str]) -> str:
        args = ", ".join(f"%in{k}: {ty(s)}" for k, s in enumerate(self.inputs))
        rtys = ", ".join(ty(self.values[r][0]) for r in results)
        body = "\n  ".join(self.lines)
        return (
            f"func.func @{self.name}({args}) -> ({rtys}) {{\n  {body}\n"
            f"  func.return {', '.join(results)} : {rtys}\n}}\n"
        )


@st.composite
def programs(draw, name: str):
    rank = draw(st.integers(1, 3))
    base = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 5, 8]), min_size=rank, max_size=rank)))
    inputs = []
    for _ in range(draw(st.integers(1, 3))):
        keep = draw(st.integers(0, rank))  # trailing dims kept, as NumPy aligns them
        dims = [d if draw(st.booleans()) or d == 1 else 1 for d in base[rank - keep :]]
        inputs.append(tuple(dims) if draw(st.integers(0, 3)) else base)
    p = Program(name, inputs)
    for _ in range(draw(st.integers(2, 8))):
        names = list(p.values)
        x = draw(st.sampled_from(names))
        kind = draw(st.sampled_from(["unary", "binary", "binary", "const", "reduce"]))
        if kind == "unary":
            p.unary(draw(st.sampled_from(sorted(UNARY))), x)
        elif kind in ("binary", "const"):
            if kind == "const":
                y = p.constant(draw(st.sampled_from([0.5, -1.25, 2.0, 3.0])))
            else:
                y = draw(st.sampled_from(names))
            try:
                rules.broadcast_shapes(p.values[x][0], p.values[y][0])
            except rules.ShapeError:
                y = x
            p.binary(draw(st.sampled_from(sorted(BINARY))), x, y)
        else:
            shape = p.values[x][0]
            if not shape:
                continue
            axes = draw(
                st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True)
            )
            axes = sorted(a - len(shape) if draw(st.booleans()) else a for a in axes)
            p.reduce(draw(st.sampled_from(sorted(REDUCE))), x, axes, draw(st.booleans()))
    last = f"%v{p.n - 1}" if p.n else "%in0"
    results = [last]
    extra = draw(st.sampled_from([None, *p.values]))
    if extra is not None and extra != last and not extra.startswith("%in"):
        results.append(extra)
    return p, results


def check(out, ref, bound: float) -> None:
    out = np.asarray(out, dtype=np.float64)
    assert out.shape == np.shape(ref)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-6 * max(1.0, bound))


BATCH = 25


@settings(
    max_examples=5,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a batch shrinks too slowly

    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.tuples(*(programs(f"f{i}") for i in range(BATCH))))
def test_random_programs_fused_and_unfused_match_numpy(batch):
    """5 x 25 random programs, each compiled with and without aicf-fuse."""
    text = "".join(p.text(results) for p, results in batch)
    unfused, run_unfused = compile_all(text, LOWER)
    fused, run_fused = compile_all(text, FUSE)
    assert kernels(fused) <= kernels(unfused)
    rng = np.random.default_rng(0)
    for p, results in batch:
        args = [rng.uniform(-1, 1, s).astype(np.float32) for s in p.inputs]
        wide = [a.astype(np.float64) for a in args]
        refs = [np.asarray(p.ref[r](wide)) for r in results]
        for run, how in ((run_unfused, "unfused"), (run_fused, "fused")):
            outs = run(p.name)(*args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for out, ref, r in zip(outs, refs, results):
                try:
                    check(out, ref, p.values[r][1])
                except AssertionError as e:
                    raise AssertionError(f"{how} {p.text(results)}\n{e}") from None


# --- row groups ---------------------------------------------------------------------------

SOFTMAX = """
func.func @softmax(%x: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %m = aicf_tensor.reduce_max %x axes = [{ax}] keepdims : (tensor<{R}x{C}xf32>) -> tensor<*xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<{R}x{C}xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = aicf_tensor.exp %d : (tensor<*xf32>) -> tensor<*xf32>
  %s = aicf_tensor.reduce_sum %e axes = [{ax}] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %y = aicf_tensor.div %e, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<{R}x{C}xf32>
  func.return %y : tensor<{R}x{C}xf32>
}}
"""

LAYERNORM = """
func.func @layernorm(%x: tensor<{R}x{C}xf32>, %g: tensor<{C}xf32>, %b: tensor<{C}xf32>) -> tensor<{R}x{C}xf32> {{
  %mu = aicf_tensor.reduce_mean %x axes = [-1] keepdims : (tensor<{R}x{C}xf32>) -> tensor<*xf32>
  %xc = aicf_tensor.sub %x, %mu : (tensor<{R}x{C}xf32>, tensor<*xf32>) -> tensor<*xf32>
  %sq = aicf_tensor.mul %xc, %xc : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %var = aicf_tensor.reduce_mean %sq axes = [-1] keepdims : (tensor<*xf32>) -> tensor<*xf32>
  %eps = aicf_tensor.constant dense<1.0e-05> : tensor<f32>
  %ve = aicf_tensor.add %var, %eps : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %sd = aicf_tensor.sqrt %ve : (tensor<*xf32>) -> tensor<*xf32>
  %n = aicf_tensor.div %xc, %sd : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %ng = aicf_tensor.mul %n, %g : (tensor<*xf32>, tensor<{C}xf32>) -> tensor<*xf32>
  %y = aicf_tensor.add %ng, %b : (tensor<*xf32>, tensor<{C}xf32>) -> tensor<{R}x{C}xf32>
  func.return %y : tensor<{R}x{C}xf32>
}}
"""


def rel_err(out, ref) -> float:
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def one_group(module) -> GroupOp:
    """The fused program is one kernel: one aicf_loop.group of nests."""
    groups = [op for op in module.walk() if isinstance(op, GroupOp)]
    assert len(groups) == 1 and kernels(module) == 1
    return groups[0]


@pytest.mark.parametrize("ax", [-1, 0])
def test_softmax_is_one_group_and_matches_numpy(ax):
    text = SOFTMAX.format(R=37, C=129, ax=ax)
    tensor = lower(text, ["aicf-infer-shapes", "aicf-fuse"])
    assert sum(isinstance(op, t.FusedOp) for op in tensor.walk()) == 1
    module, run = compile_all(text, FUSE)
    group = one_group(module)
    assert group.shared_extents == ((37,) if ax == -1 else (129,))
    assert len(group.nests) == 3
    x = (np.random.default_rng(1).standard_normal((37, 129)) * 4).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=ax, keepdims=True))
    ref = e / e.sum(axis=ax, keepdims=True)
    out = run("softmax")(x)
    assert rel_err(out, ref) < 1e-5
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)


def test_layernorm_is_one_group_and_matches_numpy():
    text = LAYERNORM.format(R=33, C=200)
    module, run = compile_all(text, FUSE)
    group = one_group(module)
    assert group.shared_extents == (33,)
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((33, 200)) * 3 + 1).astype(np.float32)
    g, b = (rng.standard_normal(200).astype(np.float32) for _ in range(2))
    xd = x.astype(np.float64)
    mu = xd.mean(-1, keepdims=True)
    ref = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b
    out = run("layernorm")(x, g, b)
    assert rel_err(out, ref) < 1e-5
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_half_precision_chain_rounds_like_unfused():
    """A fused f16 chain rounds after every op, as the unfused program does."""
    text = """
    func.func @h(%x: tensor<64x3xf16>, %b: tensor<3xf16>) -> (tensor<64x3xf16>, tensor<64xf32>) {
      %0 = aicf_tensor.mul %x, %b : (tensor<64x3xf16>, tensor<3xf16>) -> tensor<64x3xf16>
      %1 = aicf_tensor.sin %0 : (tensor<64x3xf16>) -> tensor<64x3xf16>
      %2 = aicf_tensor.add %1, %x : (tensor<64x3xf16>, tensor<64x3xf16>) -> tensor<64x3xf16>
      %3 = aicf_tensor.cast %2 : (tensor<64x3xf16>) -> tensor<64x3xf32>
      %4 = aicf_tensor.reduce_mean %3 axes = [1] : (tensor<64x3xf32>) -> tensor<64xf32>
      func.return %2, %4 : tensor<64x3xf16>, tensor<64xf32>
    }
    """
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, (64, 3)).astype(np.float16)
    b = rng.uniform(-3, 3, 3).astype(np.float16)
    fused, run_fused = compile_all(text, FUSE)
    _, run_unfused = compile_all(text, LOWER)
    assert kernels(fused) == 1
    y0, s0 = run_unfused("h")(x, b)
    y1, s1 = run_fused("h")(x, b)
    np.testing.assert_array_equal(y0, y1)
    np.testing.assert_array_equal(s0, s1)
    ref = np.sin(x * b) + x
    np.testing.assert_allclose(y1, ref, rtol=2e-3, atol=2e-3)
