"""The range of an affine expression over a box of dims: interval arithmetic.

Used by the loop-level verifiers to prove that every access of a nest stays inside
its buffer for the whole static iteration domain, and that every value the emitted
code computes on the way (each subexpression of a map, in the emitters' index type)
fits that type; and by the GPU lowering to pick the kernels' index width and to know
which divisions see non-negative dividends only. The bounds are exact for the maps
the lowering writes (sums of scaled dims, floordiv/mod by positive constants of a
single such sum) and conservative (wider) otherwise.

The semantics are the emitters': floordiv rounds toward negative infinity, ceildiv
toward positive infinity, and mod has the divisor's sign (Python's `//`, `%`); a
division or mod by a non-constant that is 0 gives 0 (the C helpers never trap), as
does `mod -1`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
)

Interval = tuple[int, int]

INT64: Interval = (-(2**63), 2**63 - 1)
INT32: Interval = (-(2**31), 2**31 - 1)

UNBOUNDED_DIM: Interval = (0, 2**200)
"""A loop index of unknown extent (indices start at 0): for sign questions only."""


class DivisionByZero(ValueError):
    pass


def _floordiv(a: int, b: int) -> int:
    return a // b


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def _nonzero_parts(b: Interval) -> list[Interval]:
    """`b` without 0, as at most two intervals of one sign."""
    parts = []
    if b[0] <= -1:
        parts.append((b[0], min(b[1], -1)))
    if b[1] >= 1:
        parts.append((max(b[0], 1), b[1]))
    return parts


def _divide(kind: AffineBinaryOpKind, a: Interval, b: Interval) -> Interval:
    """floordiv/ceildiv/mod of a in `a` by b in `b`, b a non-constant divisor (a
    divisor of 0 gives 0). floor(x / y) and ceil(x / y) are monotone in x and in y on
    each sign of y, so their extremes are at the corners."""
    zero = b[0] <= 0 <= b[1]
    if kind is AffineBinaryOpKind.Mod:
        lo = b[0] + 1 if b[0] < 0 else 0  # the result has the divisor's sign, |r| < |b|
        hi = b[1] - 1 if b[1] > 0 else 0
        return (lo, hi)
    div = _floordiv if kind is AffineBinaryOpKind.FloorDiv else _ceildiv
    values = [div(x, y) for part in _nonzero_parts(b) for x in a for y in part]
    if zero:
        values.append(0)
    return (min(values), max(values))


def _range(e: AffineExpr, dims: Sequence[Interval],
           visit: Callable[[AffineExpr, Interval], None] | None) -> Interval | None:
    if isinstance(e, AffineDimExpr):
        r = dims[e.position]
    elif isinstance(e, AffineConstantExpr):
        r = (e.value, e.value)
    elif not isinstance(e, AffineBinaryOpExpr):
        return None  # a symbol
    else:
        a, b = _range(e.lhs, dims, visit), _range(e.rhs, dims, visit)
        if a is None or b is None:
            return None
        if e.kind is AffineBinaryOpKind.Add:
            r = (a[0] + b[0], a[1] + b[1])
        elif e.kind is AffineBinaryOpKind.Mul:
            products = [x * y for x in a for y in b]
            r = (min(products), max(products))
        elif b[0] != b[1]:
            r = _divide(e.kind, a, b)
        else:
            c = b[0]
            if c == 0:
                raise DivisionByZero(str(e))
            if e.kind is AffineBinaryOpKind.Mod:
                if c == -1:
                    r = (0, 0)
                elif _floordiv(a[0], c) == _floordiv(a[1], c):  # within one period
                    r = (a[0] % c, a[1] % c)
                else:
                    r = (0, c - 1) if c > 0 else (c + 1, 0)
            else:
                if e.kind is AffineBinaryOpKind.CeilDiv and c > 0 and visit is not None:
                    # the GPU lowering's ceildiv of a non-negative x: (x + c - 1) / c
                    visit(e, (a[0] + c - 1, a[1] + c - 1))
                div = _floordiv if e.kind is AffineBinaryOpKind.FloorDiv else _ceildiv
                ends = (div(a[0], c), div(a[1], c))
                r = (min(ends), max(ends))
    if visit is not None:
        visit(e, r)
    return r


def expr_range(e: AffineExpr, dims: Sequence[Interval]) -> Interval | None:
    """[lo, hi] of `e` when dim i ranges over dims[i]; None if not bounded (a
    symbol). Raises DivisionByZero for a division or mod by the constant 0."""
    return _range(e, dims, None)


def subexpr_ranges(e: AffineExpr, dims: Sequence[Interval]) -> Iterator[tuple[AffineExpr, Interval]]:
    """Every value the emitted code computes for `e` (each subexpression, children
    before their parents, and the `x + c - 1` of a ceildiv by c > 0) with its range,
    when dim i ranges over dims[i]. Nothing past a symbol."""
    seen: list[tuple[AffineExpr, Interval]] = []
    _range(e, dims, lambda x, r: seen.append((x, r)))
    return iter(seen)


def first_outside(e: AffineExpr, dims: Sequence[Interval],
                  bounds: Interval) -> tuple[AffineExpr, int] | None:
    """The first value the emitted code computes for `e` (see subexpr_ranges) that
    can leave [bounds[0], bounds[1]], and that value; None if all stay inside."""
    for x, (lo, hi) in subexpr_ranges(e, dims):
        if lo < bounds[0]:
            return x, lo
        if hi > bounds[1]:
            return x, hi
    return None


def fits(e: AffineExpr, dims: Sequence[Interval], bounds: Interval) -> bool:
    """Every value the emitted code computes for `e` stays inside `bounds` (False
    when that is not known: a symbol, a division by 0)."""
    try:
        if expr_range(e, dims) is None:
            return False
        return first_outside(e, dims, bounds) is None
    except DivisionByZero:
        return False


def never_negative(e: AffineExpr) -> bool:
    """`e` is >= 0 for every non-negative value of its dims (whatever their
    extents): an unsigned division or remainder of it is a floor division or mod."""
    try:
        r = expr_range(e, [UNBOUNDED_DIM] * (_max_dim(e) + 1))
    except DivisionByZero:
        return False
    return r is not None and r[0] >= 0


def _max_dim(e: AffineExpr) -> int:
    if isinstance(e, AffineDimExpr):
        return e.position
    if isinstance(e, AffineBinaryOpExpr):
        return max(_max_dim(e.lhs), _max_dim(e.rhs))
    return -1


def linear_form(expr: AffineExpr) -> tuple[dict[int, int], int] | None:
    """`expr` as sum(coef * d) + const, or None when it has floordiv/mod/products."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position: 1}, 0
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, AffineBinaryOpExpr):
        if expr.kind == AffineBinaryOpKind.Add:
            a, b = linear_form(expr.lhs), linear_form(expr.rhs)
            if a is None or b is None:
                return None
            c = dict(a[0])
            for k, v in b[0].items():
                c[k] = c.get(k, 0) + v
            return c, a[1] + b[1]
        if expr.kind == AffineBinaryOpKind.Mul:
            a, b = linear_form(expr.lhs), linear_form(expr.rhs)
            if a is None or b is None:
                return None
            if not b[0]:
                return {k: v * b[1] for k, v in a[0].items()}, a[1] * b[1]
            if not a[0]:
                return {k: v * a[1] for k, v in b[0].items()}, a[1] * b[1]
    return None
