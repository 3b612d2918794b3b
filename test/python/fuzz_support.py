"""Random tensor programs for the differential fuzzers (test_fuzz_programs.py), with
their NumPy float64 reference computed alongside, independently of aicf.

A program has one element type (f32, f16, bf16 or i32) and draws ops among
elementwise unary/binary (NumPy broadcasting), reductions (axes, keepdims), scans, matmul,
transpose, broadcast_to and slice, over shapes with size-1 and odd extents. Every
value carries its float64 reference and a bound on its magnitude, so the tolerance
follows the dtype's rounding and how much the program can amplify it.

Hypothesis settings: the `ci` profile (derandomized, few examples: CI stays
reproducible and within its time) is the default; AICF_FUZZ_PROFILE=fuzz runs many
more examples with fresh randomness (AICF_FUZZ_EXAMPLES sets how many, 200 by
default), e.g.

    AICF_FUZZ_PROFILE=fuzz python3 -m pytest -q test/python/test_fuzz_programs.py
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

settings.register_profile(
    "ci",
    max_examples=4,
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # a batch of programs shrinks too slowly
    suppress_health_check=list(HealthCheck),
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("AICF_FUZZ_EXAMPLES", "200")),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)
PROFILE = os.environ.get("AICF_FUZZ_PROFILE", "ci")

DTYPES = ("f32", "f16", "bf16", "i32")
UNIT_ROUNDOFF = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8, "i32": 0.0}
FLOAT_UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "tanh": np.tanh,
    "sin": np.sin,
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}
INT_UNARY = {"neg": np.negative, "abs": np.abs}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
          "min": np.minimum}  # fmt: skip
REDUCE = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min, "reduce_prod": np.prod,
          "reduce_mean": np.mean}  # fmt: skip
SCAN = {"cumsum": np.cumsum, "cumprod": np.cumprod}


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float64 values that are exactly bf16 as the bf16 bits (truncation is exact)."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def ty(shape, dtype: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class Program:
    def __init__(self, name: str, dtype: str, seed: int):
        self.name, self.dtype = name, dtype
        self.rng = np.random.default_rng(seed)
        self.lines: list[str] = []
        self.args: list[tuple[str, np.ndarray]] = []  # (name, float64 values)
        # value -> (float64 reference, bound on |value|, ops it went through)
        self.values: dict[str, tuple[np.ndarray, float, int]] = {}
        self.n = 0

    @property
    def is_int(self) -> bool:
        return self.dtype == "i32"

    def arg(self, shape) -> str:
        name = f"%a{len(self.args)}"
        if self.is_int:
            x = self.rng.integers(-4, 5, shape).astype(np.float64)
        else:
            x = self.rng.uniform(-1, 1, shape)
            # exactly representable in the dtype, so only the program rounds
            x = {"f32": np.float32, "f16": np.float16}.get(self.dtype, np.float32)(x).astype(np.float64)
            if self.dtype == "bf16":
                x = from_bf16_bits(bf16_bits(x))
        self.args.append((name, x))
        self.values[name] = (x, 4.0 if self.is_int else 1.0, 0)
        return name

    def _emit(self, text: str, ref: np.ndarray, bound: float, depth: int) -> str:
        name = f"%v{self.n}"
        self.n += 1
        self.lines.append(f"{name} = {text} -> {ty(ref.shape, self.dtype)}")
        self.values[name] = (np.asarray(ref, np.float64), bound, depth + 1)
        return name

    def shape(self, v: str) -> tuple[int, ...]:
        return self.values[v][0].shape

    def unary(self, op: str, x: str) -> str:
        r, b, d = self.values[x]
        bound = 1.0 if op in ("tanh", "sin", "sigmoid") else b
        fn = (INT_UNARY if self.is_int else FLOAT_UNARY)[op]
        return self._emit(f"aicf_tensor.{op} {x} : ({ty(r.shape, self.dtype)})", fn(r), bound, d)

    def binary(self, op: str, x: str, y: str) -> str:
        (rx, bx, dx), (ry, by, dy) = self.values[x], self.values[y]
        bound = {"add": bx + by, "sub": bx + by, "mul": bx * by}.get(op, max(bx, by))
        return self._emit(
            f"aicf_tensor.{op} {x}, {y} : ({ty(rx.shape, self.dtype)}, {ty(ry.shape, self.dtype)})",
            BINARY[op](rx, ry), bound, max(dx, dy))  # fmt: skip

    def constant(self, value: float) -> str:
        name = f"%v{self.n}"
        self.n += 1
        lit = str(int(value)) if self.is_int else repr(float(value))
        self.lines.append(f"{name} = aicf_tensor.constant dense<{lit}> : {ty((), self.dtype)}")
        self.values[name] = (np.float64(value), abs(value), 0)
        return name

    def reduce(self, op: str, x: str, axes: list[int], keep: bool) -> str:
        r, b, d = self.values[x]
        kd = " keepdims" if keep else ""
        count = int(np.prod([r.shape[a] for a in axes]))
        ref = REDUCE[op](r, axis=tuple(axes), keepdims=keep)
        if op == "reduce_mean" and self.is_int:
            op, ref = "reduce_sum", np.sum(r, axis=tuple(axes), keepdims=keep)
        bound = b * count if op == "reduce_sum" else max(b, 1.0) ** count if op == "reduce_prod" else b
        depth = d + (count if op == "reduce_prod" else max(count.bit_length(), 1))  # a rounding per product
        return self._emit(f"aicf_tensor.{op} {x} axes = {axes}{kd} : ({ty(r.shape, self.dtype)})",
                          ref, bound, depth)  # fmt: skip

    def scan(self, op: str, x: str, axis: int) -> str:
        r, b, d = self.values[x]
        n = r.shape[axis]
        bound = b * n if op == "cumsum" else max(b, 1.0) ** n
        return self._emit(f"aicf_tensor.{op} {x} axis = {axis} : ({ty(r.shape, self.dtype)})",
                          SCAN[op](r, axis=axis), bound, d + (max(n.bit_length(), 1) if op == "cumsum" else n))

    def matmul(self, x: str, n: int) -> str:
        r, b, d = self.values[x]
        w = self.arg((r.shape[-1], n))
        rw = self.values[w][0]
        return self._emit(f"aicf_tensor.matmul {x}, {w} : ({ty(r.shape, self.dtype)}, {ty(rw.shape, self.dtype)})",
                          np.matmul(r, rw), b * r.shape[-1], d + r.shape[-1].bit_length())  # fmt: skip

    def transpose(self, x: str, perm: list[int]) -> str:
        r, b, d = self.values[x]
        return self._emit(f"aicf_tensor.transpose {x} perm = {perm} : ({ty(r.shape, self.dtype)})",
                          np.transpose(r, perm), b, d - 1)  # fmt: skip

    def broadcast_to(self, x: str, shape: tuple[int, ...]) -> str:
        r, b, d = self.values[x]
        return self._emit(f"aicf_tensor.broadcast_to {x} shape = {list(shape)} : ({ty(r.shape, self.dtype)})",
                          np.broadcast_to(r, shape), b, d - 1)  # fmt: skip

    def slice(self, x: str, start: list[int], stop: list[int], step: list[int]) -> str:
        """start/stop/step in the normal form `slice.indices` gives (stop -1 with a
        negative step: through index 0)."""
        r, b, d = self.values[x]
        ref = r
        for axis, (a, o, s) in enumerate(zip(start, stop, step)):
            ref = np.take(ref, list(range(a, o, s)), axis=axis)
        return self._emit(f"aicf_tensor.slice {x} start = {start} stop = {stop} step = {step} "
                          f": ({ty(r.shape, self.dtype)})", ref, b, d - 1)  # fmt: skip

    def text(self, results: list[str]) -> str:
        args = ", ".join(f"{n}: {ty(x.shape, self.dtype)}" for n, x in self.args)
        rtys = ", ".join(ty(self.values[r][0].shape, self.dtype) for r in results)
        body = "\n  ".join(self.lines)
        return (f"func.func @{self.name}({args}) -> ({rtys}) {{\n  {body}\n"
                f"  func.return {', '.join(results)} : {rtys}\n}}\n")  # fmt: skip

    def inputs(self, strided: list[bool]) -> list[np.ndarray]:
        """The arguments as the API takes them; `strided[i]`: pass a view that steps
        over every other element of the last dim (non-contiguous)."""
        out = []
        for (_, x), s in zip(self.args, strided):
            a = x.astype(np.int32) if self.is_int else x.astype(np.float16 if self.dtype == "f16" else np.float32)
            if self.dtype == "bf16":
                a = bf16_bits(x)
            if s and a.ndim:
                wide = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
                wide[..., ::2] = a
                a = wide[..., ::2]
            out.append(a)
        return out

    def check(self, out, result: str, how: str) -> None:
        ref, bound, depth = self.values[result]
        out = from_bf16_bits(out) if self.dtype == "bf16" else np.asarray(out, np.float64)
        assert out.shape == ref.shape, f"{how}: shape {out.shape}, expected {ref.shape}"
        assert not np.isnan(out).any(), f"{how}: NaN in the result"
        if self.is_int:
            np.testing.assert_array_equal(out, ref, err_msg=how)
            return
        # each op rounds once (relative u) and passes earlier errors on, amplified by
        # at most the value bound: a generous but dtype-proportional envelope
        u = UNIT_ROUNDOFF[self.dtype]
        tol = 4 * u * (depth + 2) * max(bound, 1.0)
        np.testing.assert_allclose(out, ref, rtol=4 * u * (depth + 2), atol=tol, err_msg=how)


@st.composite
def programs(draw, name: str, dtype: str | None = None):
    dtype = dtype or draw(st.sampled_from(DTYPES))
    p = Program(name, dtype, draw(st.integers(0, 2**31)))
    rank = draw(st.integers(1, 3))
    base = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 5, 7]), min_size=rank, max_size=rank)))
    p.arg(base)
    if draw(st.booleans()):  # a second input that broadcasts against the first
        keep = draw(st.integers(0, rank))
        p.arg(tuple(dd if draw(st.booleans()) else 1 for dd in base[rank - keep:]))
    unary = sorted(INT_UNARY if p.is_int else FLOAT_UNARY)
    kinds = ["unary", "binary", "binary", "const", "reduce", "scan", "matmul", "transpose", "broadcast", "slice"]
    if p.is_int:
        kinds.remove("matmul")
    for _ in range(draw(st.integers(1, 6))):
        names = list(p.values)
        x = draw(st.sampled_from([v for v in names if np.ndim(p.values[v][0]) or v.startswith("%a")]))
        shape = p.shape(x)
        kind = draw(st.sampled_from(kinds))
        if kind == "unary":
            p.unary(draw(st.sampled_from(unary)), x)
        elif kind in ("binary", "const"):
            if kind == "const":
                y = p.constant(draw(st.sampled_from([2, -1, 3] if p.is_int else [0.5, -1.25, 2.0])))
            else:
                y = draw(st.sampled_from(names))
            try:
                np.broadcast_shapes(shape, p.shape(y))
            except ValueError:
                y = x
            if p.values[x][1] * p.values[y][1] > 1e4:  # keep i32 products and f16 in range
                continue
            p.binary(draw(st.sampled_from(sorted(BINARY))), x, y)
        elif kind == "reduce" and shape:
            axes = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                                 max_size=len(shape), unique_by=lambda a: a % len(shape)))  # fmt: skip
            count = np.prod([shape[a] for a in axes])
            op = draw(st.sampled_from(sorted(REDUCE)))
            b = p.values[x][1]
            if (b * count > 1e4 or max(b, 1.0) ** count > 1e4
                    or (count == 0 and op not in ("reduce_sum", "reduce_prod"))):  # fmt: skip
                continue
            p.reduce(op, x, sorted(axes), draw(st.booleans()))
        elif kind == "scan" and shape:
            axis = draw(st.integers(-len(shape), len(shape) - 1))
            b, n = p.values[x][1], shape[axis]
            if b * n > 1e4 or max(b, 1.0) ** n > 1e4:
                continue
            p.scan(draw(st.sampled_from(sorted(SCAN))), x, axis)
        elif kind == "matmul" and len(shape) >= 2 and shape[-1] <= 7:
            p.matmul(x, draw(st.sampled_from([1, 2, 5])))
        elif kind == "transpose" and len(shape) >= 2:
            p.transpose(x, draw(st.permutations(range(len(shape)))))
        elif kind == "broadcast" and len(shape) < 4:
            lead = tuple(draw(st.lists(st.sampled_from([1, 2, 3]), max_size=1)))
            p.broadcast_to(x, lead + tuple(dd if dd != 1 else draw(st.sampled_from([1, 3])) for dd in shape))
        elif kind == "slice" and shape:
            start, stop, step = [], [], []
            for dd in shape:
                s = draw(st.sampled_from([1, 1, 2, -1]))
                a, o, s = slice(draw(st.integers(-dd, dd)), draw(st.integers(-dd - 1, dd)), s).indices(dd)
                start.append(a), stop.append(o), step.append(s)
            p.slice(x, start, stop, step)
    results = [f"%v{p.n - 1}" if p.n else "%a0"]
    if results[0].startswith("%a") or results[0] not in p.values or not p.lines[-1].startswith(results[0]):
        results = [p.unary("neg", "%a0")]
    return p, results
