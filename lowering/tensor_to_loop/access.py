"""Affine access maps from a nest's iteration domain to a buffer's indices."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.ir.affine import AffineExpr, AffineMap


def identity(rank: int) -> AffineMap:
    return AffineMap.identity(rank)


def broadcast(src: Sequence[int], domain: Sequence[int]) -> AffineMap:
    """Read a `src`-shaped buffer at every point of `domain` with NumPy broadcasting:
    dims are aligned from the right, missing leading dims are dropped and a size-1 dim
    that is stretched reads index 0."""
    lead = len(domain) - len(src)
    assert lead >= 0, (src, domain)
    results = []
    for j, n in enumerate(src):
        i = lead + j
        if n == 1 and domain[i] != 1:
            results.append(AffineExpr.constant(0))
        else:
            results.append(AffineExpr.dimension(i))
    return AffineMap(len(domain), 0, tuple(results))


def permutation(perm: Sequence[int]) -> AffineMap:
    """The input map of `transpose(x, perm)` over the result's domain: result dim i
    is input dim perm[i], so input dim perm[i] is read at d_i."""
    results = [AffineExpr.dimension(perm.index(j)) for j in range(len(perm))]
    return AffineMap(len(perm), 0, tuple(results))


def reshape(src: Sequence[int], dst: Sequence[int]) -> AffineMap:
    """The input map of a row-major reshape over the result's domain: linearise the
    result index, then split it by the source's strides."""
    if prod(dst) == 0:  # the domain is empty: any in-range-looking map will do
        return AffineMap(len(dst), 0, tuple(AffineExpr.constant(0) for _ in src))
    linear: AffineExpr = AffineExpr.constant(0)
    stride = 1
    for i in reversed(range(len(dst))):
        if dst[i] != 1:
            linear = AffineExpr.dimension(i) * stride + linear
        stride *= dst[i]
    results = []
    for j, n in enumerate(src):
        if n == 1:
            results.append(AffineExpr.constant(0))
            continue
        expr = linear
        inner = prod(src[j + 1 :])
        if inner != 1:
            expr = expr // inner
        if prod(src[:j]) != 1:  # otherwise the quotient is already < n
            expr = expr % n
        results.append(expr)
    return AffineMap(len(dst), 0, tuple(results))


def reduction_output(rank: int, axes: Sequence[int], keepdims: bool) -> AffineMap:
    """The output map of a reduction over `axes` of a rank-`rank` domain: reduced
    dims are dropped, or read as index 0 with keepdims."""
    results = []
    for i in range(rank):
        if i not in axes:
            results.append(AffineExpr.dimension(i))
        elif keepdims:
            results.append(AffineExpr.constant(0))
    return AffineMap(rank, 0, tuple(results))


def strided(start: Sequence[int], step: Sequence[int]) -> AffineMap:
    """The input map of a slice over the result's domain: d_i -> start_i + step_i * d_i."""
    results = [
        AffineExpr.dimension(i) * c + a if c != 1 else AffineExpr.dimension(i) + a
        for i, (a, c) in enumerate(zip(start, step))
    ]
    return AffineMap(len(start), 0, tuple(results))


def shifted(rank: int, axis: int, offset: int) -> AffineMap:
    """The identity with `offset` added on `axis` (where a concatenate operand lands)."""
    results = [
        AffineExpr.dimension(i) + offset if i == axis else AffineExpr.dimension(i)
        for i in range(rank)
    ]
    return AffineMap(rank, 0, tuple(results))
