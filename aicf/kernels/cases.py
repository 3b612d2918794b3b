"""The inputs the gate runs a kernel on, and what it must return for them.

Cases vary the guard's symbols around the op's own extents: the program's shapes
(normal values; positive ones, which keep a log or a square root finite; then values
sprinkled with special ones: infinities, NaN, signed zeros, huge and subnormal
numbers), a zero extent per symbol, all ones, small odd extents,
larger odd ones, and, for a kernel that takes strided operands, the odd shapes
again with every input a strided view (every other element, padded rows). A shape
the guard does not admit or the pattern cannot take is left out (noted). Without
guard shapes, extents that are equal in the program vary together.

The expected results are the pattern's semantics in float64 (aicf.reference) on the
same inputs, so nothing the kernel or the compiler computes is the reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from aicf.dtypes import f32_to_bf16_bits

from .buffers import storage_dtype
from .kernel import ExternalKernel, Guard
from .pattern import LoweredPattern, specialize

MAX_CASE_ELEMENTS = 1 << 20  # inputs of the extra (non-program) cases stay small
_ODD_SMALL = (3, 5, 7, 11, 13, 17)
_ODD = (37, 67, 131, 29, 53, 97)


@dataclass
class ArgSpec:
    """One kernel argument of a case: its role, element type, shape and layout (element
    strides; `span`: elements the layout covers)."""

    role: str  # "in" | "out"
    dtype: str  # aicf element type name: f32, bf16, i32, ...
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    span: int

    @property
    def storage(self) -> np.dtype:
        return storage_dtype(self.dtype)

    def to_data(self) -> dict:
        return {"role": self.role, "dtype": self.dtype, "shape": list(self.shape),
                "strides": list(self.strides), "span": self.span}


@dataclass
class Case:
    name: str
    symbols: dict[str, int]
    args: list[ArgSpec]  # in kernel argument order
    values: list[np.ndarray | None]  # inputs' values, None for outputs
    expected: list[np.ndarray | None]  # outputs' float64 reference, None for inputs
    special: bool = False
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        ins = ", ".join(f"{a.dtype}{list(a.shape)}" + ("" if _dense(a) else f" strides {list(a.strides)}")
                        for a in self.args if a.role == "in")
        return f"'{self.name}' (inputs {ins})"


def dense_strides(shape) -> tuple[int, ...]:
    out, acc = [], 1
    for e in reversed(shape):
        out.append(acc)
        acc *= e
    return tuple(out[::-1])


def _dense(a: ArgSpec) -> bool:
    return a.strides == dense_strides(a.shape)


def _span(shape, strides) -> int:
    if any(e == 0 for e in shape):
        return 0
    return 1 + sum((e - 1) * s for e, s in zip(shape, strides))


def _strided(shape) -> tuple[int, ...]:
    """Every other element along the last dim, rows padded by 3 elements."""
    if not shape:
        return ()
    st = [2]
    for e in reversed(shape[1:]):
        st.append(st[-1] * max(e, 1) + 3)
    return tuple(reversed(st))


def _values(rng: np.random.Generator, dtype: str, shape, positive: bool = False) -> np.ndarray:
    if dtype in ("f32", "f64", "f16", "bf16"):
        x = rng.uniform(0.5, 2.0, shape) if positive else rng.standard_normal(shape)
        return f32_to_bf16_bits(x) if dtype == "bf16" else x.astype(storage_dtype(dtype))
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    return rng.integers(1 if positive else -100, 100, shape).astype(storage_dtype(dtype))


def _specials(dtype: str) -> list[float]:
    huge, tiny = {"f16": (6.0e4, 1e-7), "f64": (1e300, 1e-310)}.get(dtype, (1e30, 1e-40))
    return [np.inf, -np.inf, np.nan, 0.0, -0.0, huge, -huge, tiny]


def _sprinkle(rng, x: np.ndarray, dtype: str) -> np.ndarray:
    if dtype not in ("f32", "f64", "f16", "bf16") or x.size == 0:
        return x
    vals = np.asarray(_specials(dtype), np.float64)
    flat = x.reshape(-1).copy()
    n = max(1, flat.size // 10)
    where = rng.choice(flat.size, size=min(n, flat.size), replace=False)
    picked = vals[np.arange(len(where)) % len(vals)]
    if dtype == "bf16":
        flat[where] = f32_to_bf16_bits(picked.astype(np.float32))
    else:
        flat[where] = picked.astype(x.dtype)
    return flat.reshape(x.shape)


def _derived_guard(shapes: list[tuple[int, ...]], layout: str) -> Guard:
    """Without guard shapes: one symbol per distinct extent of the program's inputs."""
    names: dict[int, str] = {}
    out = []
    for s in shapes:
        out.append(tuple(names.setdefault(e, f"s{len(names)}") for e in s))
    return Guard(tuple(out), None, layout, {})


def _assignments(guard: Guard, env: dict[str, int]) -> list[tuple[str, dict[str, int], bool]]:
    """(name, symbols, strided) of each case."""
    syms = list(env)

    def fit(s: str, v: int) -> int | None:
        c = guard.constraints.get(s, {})
        m = c.get("multiple_of", 1)
        v = -(-max(v, c.get("min", 0)) // m) * m
        return v if guard.allows(s, v) else None

    out: list[tuple[str, dict[str, int], bool]] = [("program shape", dict(env), False)]
    for s in syms:
        v = fit(s, 0)
        if v == 0:
            out.append((f"empty ({s} = 0)", {**env, s: 0}, False))
    ones = {s: fit(s, 1) for s in syms}
    if syms and all(v == 1 for v in ones.values()):
        out.append(("ones", ones, False))  # type: ignore[arg-type]
    for label, pool in (("odd small", _ODD_SMALL), ("odd", _ODD)):
        a = {s: fit(s, pool[i % len(pool)]) for i, s in enumerate(syms)}
        if syms and all(v is not None for v in a.values()):
            out.append((label, a, False))  # type: ignore[arg-type]
    if guard.layout == "strided":
        small = [a for name, a, _ in out if name == "odd small"]
        out.append(("strided", small[0] if small else dict(env), True))
    seen, unique = set(), []
    for name, a, strided in out:
        k = (tuple(sorted(a.items())), strided)
        if k not in seen:
            seen.add(k)
            unique.append((name, a, strided))
    return unique


def make_cases(kernel: ExternalKernel, lowered: LoweredPattern, in_shapes: list[tuple[int, ...]],
               in_dtypes: list[str], seed: int = 0) -> tuple[list[Case], list[str]]:
    """The cases for a kernel whose pattern inputs have these shapes and dtypes in the
    program (case 0 is the program's shapes: the one the benchmark runs), and notes
    on the cases left out."""
    from xdsl.dialects.func import FuncOp

    from aicf.reference import evaluate

    rng = np.random.default_rng(seed)
    guard = kernel.guard
    if guard.shapes is None:
        guard = _derived_guard(in_shapes, guard.layout)
        # a dim the guard leaves open (None) keeps the program's extent
    env = guard.bind(in_shapes)
    assert isinstance(env, dict), env
    cases: list[Case] = []
    notes: list[str] = []
    plan = _assignments(guard, env)
    # normal values make a log or a square root NaN half the time: positive ones too
    plan[1:1] = [("positive values", dict(env), False), ("special values", dict(env), False)]
    for name, symbols, strided in plan:
        shapes = [tuple(symbols[d] if isinstance(d, str) else (d if isinstance(d, int) else e)
                        for d, e in zip(g, s)) for g, s in zip(guard.shapes, in_shapes)]  # type: ignore[arg-type]
        program = dict(symbols) == env and not strided
        if not program and sum(math.prod(s) for s in shapes) > MAX_CASE_ELEMENTS:
            notes.append(f"'{name}' left out: {shapes} is larger than the extra cases' bound")
            continue
        module = specialize(kernel.pattern, shapes)
        if isinstance(module, str):
            notes.append(f"'{name}' left out: the pattern cannot take input shapes {shapes} ({module})")
            continue
        fn = next(o for o in module.ops if isinstance(o, FuncOp))
        out_types = list(fn.function_type.outputs.data)
        out_shapes = [tuple(t.get_shape()) for t in out_types]  # type: ignore[attr-defined]
        out_dtypes = [str(t.get_element_type()) for t in out_types]  # type: ignore[attr-defined]
        ins = [_values(rng, dt, s, positive=name == "positive values") for dt, s in zip(in_dtypes, shapes)]
        if name == "special values":
            ins = [_sprinkle(rng, x, dt) for x, dt in zip(ins, in_dtypes)]
        expected = evaluate(module, fn.sym_name.data, *ins)
        args: list[ArgSpec] = []
        values: list[np.ndarray | None] = []
        exp: list[np.ndarray | None] = []
        for j in lowered.order:
            if j < lowered.num_inputs:
                s = shapes[j]
                st = _strided(s) if strided else dense_strides(s)
                args.append(ArgSpec("in", in_dtypes[j], s, st, _span(s, st)))
                values.append(ins[j])
                exp.append(None)
            else:
                r = j - lowered.num_inputs
                s = out_shapes[r]
                args.append(ArgSpec("out", out_dtypes[r], s, dense_strides(s), math.prod(s)))
                values.append(None)
                exp.append(np.asarray(expected[r], np.float64))
        cases.append(Case(name, dict(symbols), args, values, exp, special=name == "special values"))
    return cases, notes
