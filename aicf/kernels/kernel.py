"""What an external kernel is: its source, the tensor-level pattern it computes, its
guard, its launch configuration and workspace, and its argument order.

A kernel comes from outside the compiler (registered by hand, read from a
`*.kernels.json` file, or returned by a proposer command) and runs only after the
gate (aicf/kernels/gate.py) has admitted it. Everything here is plain data, so the
same description travels through the file format, the proposer's reply, the gate's
child process and the artifact cache.

Shapes in a guard and in the launch/workspace expressions are named by symbols:
`guard.shapes` gives, per pattern input, a list of dims, each an int (exactly that
extent), a symbol name (the same extent wherever the name appears) or None (any).
Symbols may carry constraints (`min`, `max`, `multiple_of`). Expressions (launch
grid/block/smem, workspace bytes) are integer arithmetic over the symbols and
`dim(i, k)` (extent k of kernel argument i), `numel(i)`, `cdiv(a, b)`, `min`, `max`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from aicf.errors import CompileError

TARGETS = ("cpu", "cuda")
LAYOUTS = ("contiguous", "strided")
DTYPES = ("f32", "f64", "f16", "bf16", "i32", "i64", "i8", "i16", "i1")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CONSTRAINTS = ("min", "max", "multiple_of")


OPTIONAL_FIELDS = ("guard", "launch", "workspace", "arg_order", "origin")


def kernel_error(where: str, what: str) -> CompileError:
    return CompileError(f"external kernel {where}: {what}")


# --- expressions -----------------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


_FUNCS = {"cdiv": _cdiv, "min": min, "max": max}
_ARITY = {"cdiv": (2, 2), "min": (2, 99), "max": (2, 99), "dim": (2, 2), "numel": (1, 1)}
_ARITY_TEXT = {"cdiv": "2 arguments (a, b)", "min": "2 or more arguments", "max": "2 or more arguments",
               "dim": "2 arguments (kernel argument, dim)", "numel": "1 argument (kernel argument)"}


def expr_names(text: str) -> list[str]:
    """The symbols a checked expression reads (not its functions)."""
    tree = ast.parse(text, mode="eval")
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in funcs})


MAX_EXPR_CHARS = 1000


def check_expr(text: str | int, where: str) -> str:
    """The expression as text, after checking it uses only what evaluate() allows."""
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise kernel_error(where, f"an expression must be an int or a string, got {text!r}")
    if isinstance(text, int) and not -(2**63) <= text < 2**63:
        raise kernel_error(where, "an integer expression must fit in int64")
    text = str(text)
    if len(text) > MAX_EXPR_CHARS:  # ast.parse recurses: a long enough one exhausts the stack
        raise kernel_error(where, f"an expression of {len(text)} characters (at most {MAX_EXPR_CHARS})")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as e:
        raise kernel_error(where, f"cannot parse the expression '{text[:80]}': {getattr(e, 'msg', e)}") from None
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Call,
                               ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub))
        if isinstance(node, ast.Constant):
            ok = isinstance(node.value, int) and not isinstance(node.value, bool)
        if isinstance(node, ast.Call):
            ok = isinstance(node.func, ast.Name) and node.func.id in (*_FUNCS, "dim", "numel") and not node.keywords
            arity = _ARITY.get(node.func.id) if ok else None  # type: ignore[union-attr]
            if arity is not None and not arity[0] <= len(node.args) <= arity[1]:
                name = node.func.id  # type: ignore[union-attr]
                raise kernel_error(where, f"'{text}': {name}() takes {_ARITY_TEXT[name]}, got {len(node.args)}")
        if not ok:
            raise kernel_error(where, f"'{text}' is not integer arithmetic over symbols "
                                      f"(+ - * // %, cdiv, min, max, dim(i, k), numel(i))")
    return text


def evaluate(text: str, symbols: Mapping[str, int], shapes: Sequence[Sequence[int]]) -> int:
    """Value of a checked expression for these symbols and kernel argument shapes."""

    def dim(i: int, k: int) -> int:
        return int(shapes[i][k])

    def numel(i: int) -> int:
        return math.prod(shapes[i])

    env = {**_FUNCS, "dim": dim, "numel": numel, **symbols}

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in env:
                raise KeyError(n.id)
            return env[n.id]
        if isinstance(n, ast.UnaryOp):
            return -ev(n.operand)
        if isinstance(n, ast.Call):
            return env[n.func.id](*(ev(a) for a in n.args))
        a, b = ev(n.left), ev(n.right)
        op = type(n.op)
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op is ast.FloorDiv:
            return a // b
        return a % b

    return int(ev(ast.parse(text, mode="eval")))


# --- guard -------------------------------------------------------------------------------

Dim = int | str | None


@dataclass(frozen=True)
class Guard:
    """When a kernel applies. `shapes`: per pattern input, its dims, each an int
    (exactly that extent), a symbol name (the same extent wherever the name appears;
    launch and workspace expressions use it) or None (any extent); without shapes the
    pattern's rank and dtypes are all it asks. `constraints`: per symbol, `min`,
    `max` and `multiple_of`. `dtypes`: per pattern input (default: the pattern's).
    `layout`: "contiguous" (dense row-major operands only; a program's strided
    variant runs the compiler's own kernel instead) or "strided" (any element
    strides; the gate tests strided inputs)."""

    shapes: tuple[tuple[Dim, ...], ...] | None = None
    dtypes: tuple[str, ...] | None = None
    layout: str = "contiguous"
    constraints: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @staticmethod
    def from_data(data: Mapping | Guard | None, where: str) -> Guard:
        if isinstance(data, Guard):
            return data
        if data is not None and not isinstance(data, Mapping):
            raise kernel_error(where, f"guard must be an object {{shapes, dtypes, layout, constraints}}, got {data!r}")
        data = dict(data or {})
        unknown = set(data) - {"shapes", "dtypes", "layout", "constraints"}
        if unknown:
            raise kernel_error(where, f"unknown guard field(s) {', '.join(sorted(unknown))} "
                                      "(shapes, dtypes, layout, constraints)")
        shapes = data.get("shapes")
        if shapes is not None:
            if not isinstance(shapes, (list, tuple)) or not all(isinstance(s, (list, tuple)) for s in shapes):
                raise kernel_error(where, f"guard shapes must be a list of lists of dims, got {shapes!r}")
            for s in shapes:
                for d in s:
                    if not (d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                            or (isinstance(d, str) and _NAME.match(d))):
                        raise kernel_error(where, f"a guard dim is an extent >= 0, a symbol name or null, got {d!r}")
            shapes = tuple(tuple(s) for s in shapes)
        dtypes = data.get("dtypes")
        if dtypes is not None:
            if not isinstance(dtypes, (list, tuple)):
                raise kernel_error(where, f"guard dtypes must be a list (one per pattern input), got {dtypes!r}")
            dtypes = tuple(dtypes)
            bad = [d for d in dtypes if d not in DTYPES]
            if bad:
                raise kernel_error(where, f"unknown dtype(s) {bad} in the guard (known: {', '.join(DTYPES)})")
        layout = data.get("layout", "contiguous")
        if layout not in LAYOUTS:
            raise kernel_error(where, f"guard layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
        constraints = data.get("constraints") or {}
        if not isinstance(constraints, Mapping):
            raise kernel_error(where, "guard constraints map symbols to {min, max, multiple_of}")
        symbols = {d for s in shapes or () for d in s if isinstance(d, str)}
        for sym, c in constraints.items():
            if sym not in symbols:
                raise kernel_error(where, f"the guard constrains '{sym}', which no guard shape names")
            if not isinstance(c, Mapping) or set(c) - set(_CONSTRAINTS) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in c.values()):
                raise kernel_error(where, f"constraints of '{sym}' are ints among {', '.join(_CONSTRAINTS)}, got {c!r}")
            if c.get("multiple_of", 1) < 1:
                raise kernel_error(where, f"'{sym}' multiple_of must be >= 1")
        return Guard(shapes, dtypes, layout, {k: dict(v) for k, v in constraints.items()})

    def to_data(self) -> dict:
        return {"shapes": [list(s) for s in self.shapes] if self.shapes is not None else None,
                "dtypes": list(self.dtypes) if self.dtypes is not None else None,
                "layout": self.layout, "constraints": {k: dict(v) for k, v in self.constraints.items()}}

    def allows(self, sym: str, v: int) -> bool:
        c = self.constraints.get(sym, {})
        return c.get("min", 0) <= v <= c.get("max", v) and v % c.get("multiple_of", 1) == 0

    def bind(self, shapes: Sequence[Sequence[int]]) -> dict[str, int] | str:
        """The symbols' values for these input shapes, or why the guard fails."""
        if self.shapes is None:
            return {}
        if len(shapes) != len(self.shapes):
            return f"the guard gives {len(self.shapes)} input shapes, the op has {len(shapes)} inputs"
        env: dict[str, int] = {}
        for i, (want, got) in enumerate(zip(self.shapes, shapes)):
            if len(want) != len(got):
                return f"input #{i} has rank {len(got)}, the guard wants rank {len(want)}"
            for k, (w, g) in enumerate(zip(want, got)):
                if isinstance(w, int) and w != g:
                    return f"input #{i} dim {k} is {g}, the guard wants {w}"
                if isinstance(w, str):
                    if env.setdefault(w, g) != g:
                        return f"'{w}' is {env[w]} and {g} (input #{i} dim {k})"
        for sym, v in env.items():
            if not self.allows(sym, v):
                c = self.constraints[sym]
                return f"'{sym}' = {v} is outside its constraints ({', '.join(f'{k} {x}' for k, x in c.items())})"
        return env

    def check(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[str], layouts: Sequence[bool]) -> str | None:
        """Why the guard fails for these inputs (shapes, dtype names, whether each
        operand is dense row-major), or None."""
        if self.dtypes is not None and tuple(dtypes) != self.dtypes:
            return f"dtypes {list(dtypes)}, the guard wants {list(self.dtypes)}"
        if self.layout == "contiguous" and not all(layouts):
            return "an operand is strided, the kernel takes contiguous operands only"
        env = self.bind(shapes)
        return env if isinstance(env, str) else None


# --- the kernel ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """cuda: grid and block (up to 3 expressions each) and dynamic shared memory bytes."""

    grid: tuple[str, ...]
    block: tuple[str, ...]
    smem: str = "0"

    @staticmethod
    def from_data(data, where: str) -> Launch | None:
        if data is None or isinstance(data, Launch):
            return data
        if not isinstance(data, Mapping) or set(data) - {"grid", "block", "smem"} or "grid" not in data or "block" not in data:
            raise kernel_error(where, "launch takes {grid: [...], block: [...], smem: ...}")

        def dims(v, what):
            v = list(v) if isinstance(v, (list, tuple)) else [v]
            if not 1 <= len(v) <= 3:
                raise kernel_error(where, f"launch {what} has 1 to 3 dims, got {len(v)}")
            return tuple(check_expr(x, f"{where} launch {what}") for x in v)

        return Launch(dims(data["grid"], "grid"), dims(data["block"], "block"),
                      check_expr(data.get("smem", 0), f"{where} launch smem"))

    def to_data(self) -> dict:
        return {"grid": list(self.grid), "block": list(self.block), "smem": self.smem}

    def resolve(self, symbols, shapes) -> tuple[list[int], list[int], int]:
        def three(v):
            out = [evaluate(x, symbols, shapes) for x in v]
            return out + [1] * (3 - len(out))

        return three(self.grid), three(self.block), evaluate(self.smem, symbols, shapes)


@dataclass(frozen=True)
class ExternalKernel:
    """One external kernel (see the module docstring and aicf/kernels/abi.py for the
    calling convention). `pattern`: MLIR text of one aicf_tensor function whose body
    is what the kernel computes (`?` extents allowed); `arg_order`: the kernel's
    arguments as indices into the pattern's inputs then results (default: that order);
    `origin`: where it came from (explanations)."""

    name: str
    target: str
    pattern: str
    source: str
    entry: str
    guard: Guard = field(default_factory=Guard)
    launch: Launch | None = None
    workspace: str = "0"
    arg_order: tuple[int, ...] | None = None
    origin: str = "registered"

    @property
    def language(self) -> str:
        return "c" if self.target == "cpu" else "cuda"

    @property
    def source_hash(self) -> str:
        """Everything that decides what the kernel does, hashed: the source and how it
        is called (a change to any of it is another kernel for the gate)."""
        data = json.dumps({"source": self.source, "entry": self.entry, "target": self.target,
                           "launch": self.launch.to_data() if self.launch else None,
                           "workspace": self.workspace, "arg_order": self.arg_order,
                           "guard": self.guard.to_data()}, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()

    @property
    def key(self) -> str:
        return f"{self.name}-{self.source_hash[:12]}"

    @property
    def symbol(self) -> str:
        """The symbol the kernel's entry is built under (unique per kernel)."""
        return f"aicf_ext_{self.source_hash[:16]}"

    def to_data(self) -> dict:
        return {"name": self.name, "target": self.target, "pattern": self.pattern, "source": self.source,
                "entry": self.entry, "guard": self.guard.to_data(),
                "launch": self.launch.to_data() if self.launch else None, "workspace": self.workspace,
                "arg_order": list(self.arg_order) if self.arg_order is not None else None, "origin": self.origin}

    @staticmethod
    def from_data(data: Mapping, origin: str = "registered") -> ExternalKernel:
        data = dict(data)
        name = data.get("name")
        where = f"'{name}'" if isinstance(name, str) else "(unnamed)"
        required = ("name", "target", "pattern", "source", "entry")
        known = {*required, *OPTIONAL_FIELDS}
        unknown = set(data) - known
        if unknown:  # first: a misspelt field would otherwise read as a missing one
            raise kernel_error(where, f"unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
        missing = [k for k in required if not isinstance(data.get(k), str) or not data.get(k)]
        if missing:
            raise kernel_error(where, f"needs {', '.join(missing)} (strings)")
        if not _NAME.match(data["name"]):
            raise kernel_error(where, "name must be an identifier ([A-Za-z_][A-Za-z0-9_]*)")
        if not _NAME.match(data["entry"]):
            raise kernel_error(where, f"entry must be a C identifier, got {data['entry']!r}")
        target = data["target"]
        if target not in TARGETS:
            raise kernel_error(where, f"target must be one of {', '.join(TARGETS)}, got {target!r}")
        launch = Launch.from_data(data.get("launch"), where)
        if target == "cuda" and launch is None:
            raise kernel_error(where, "a cuda kernel needs its launch configuration (grid, block, smem)")
        order = data.get("arg_order")
        if order is not None:
            # ints proper (True would pass for 1); checked before sorting (mixed types)
            if (not isinstance(order, (list, tuple))
                    or not all(isinstance(i, int) and not isinstance(i, bool) for i in order)
                    or sorted(order) != list(range(len(order)))):  # fmt: skip
                raise kernel_error(where, f"arg_order must be a permutation of 0..n-1 (a list of ints), got {order!r}")
            order = tuple(order)
        return ExternalKernel(
            name=data["name"], target=target, pattern=data["pattern"], source=data["source"],
            entry=data["entry"], guard=Guard.from_data(data.get("guard"), where), launch=launch,
            workspace=check_expr(data.get("workspace", 0), f"{where} workspace"), arg_order=order,
            origin=str(data.get("origin", origin)),
        )
