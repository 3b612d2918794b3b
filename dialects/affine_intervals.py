"""The range of an affine expression over a box of dims: interval arithmetic.

Used by the loop-level verifiers to prove that every access of a nest stays inside
its buffer for the whole static iteration domain. The bounds are exact for the maps
the lowering writes (sums of scaled dims, floordiv/mod by positive constants of a
single such sum) and conservative (wider) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
)

Interval = tuple[int, int]


class DivisionByZero(ValueError):
    pass


def _floordiv(a: int, b: int) -> int:
    return a // b


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def expr_range(e: AffineExpr, dims: Sequence[Interval]) -> Interval | None:
    """[lo, hi] of `e` when dim i ranges over dims[i]; None if not bounded (a symbol,
    a division by a non-constant)."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineConstantExpr):
        return (e.value, e.value)
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    a, b = expr_range(e.lhs, dims), expr_range(e.rhs, dims)
    if a is None or b is None:
        return None
    if e.kind is AffineBinaryOpKind.Add:
        return (a[0] + b[0], a[1] + b[1])
    if e.kind is AffineBinaryOpKind.Mul:
        products = [x * y for x in a for y in b]
        return (min(products), max(products))
    if b[0] != b[1]:
        return None
    c = b[0]
    if c == 0:
        raise DivisionByZero(str(e))
    if e.kind is AffineBinaryOpKind.Mod:
        if c < 0:
            return None
        if _floordiv(a[0], c) == _floordiv(a[1], c):  # within one period
            return (a[0] % c, a[1] % c)
        return (0, c - 1)
    div = _floordiv if e.kind is AffineBinaryOpKind.FloorDiv else _ceildiv
    ends = (div(a[0], c), div(a[1], c))
    return (min(ends), max(ends))
