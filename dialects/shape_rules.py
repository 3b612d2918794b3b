"""Shape and dtype rules of the tensor level, NumPy semantics, in plain Python.

One home for the rules so that the verifiers, `aicf-infer-shapes`, the Python front end
and the lowering agree. Shapes are tuples of ints; `DYN` marks a dynamic extent
(`tensor<?x...>`). Every rule raises `ShapeError` with a message that names the shapes;
callers attach the IR location.
"""

from __future__ import annotations

from collections.abc import Sequence

DYN = -(2**63)
"""A dynamic extent: how xDSL stores `?` in a TensorType (its DYNAMIC_INDEX)."""


class ShapeError(ValueError):
    """A shape or dtype rule is violated. The message names the shapes involved."""


def fmt(shape: Sequence[int]) -> str:
    """Format a shape the way MLIR writes it: `4x?x8`, or `scalar` for rank 0."""
    if len(shape) == 0:
        return "scalar"
    return "x".join("?" if d == DYN else str(d) for d in shape)


def check_extents(shape: Sequence[int]) -> None:
    for d in shape:
        if d < 0 and d != DYN:
            raise ShapeError(f"negative extent {d} in shape {fmt(shape)}")


INT64_MAX = 2**63 - 1
"""The most elements a shape may have and the most bytes a buffer may take: the
generated code indexes with int64 and allocates with size_t/ptrdiff_t."""


def size_problem(shape: Sequence[int], element_bits: int) -> str | None:
    """Why a static shape of `element_bits`-bit elements is too large, or None.

    A zero extent does not excuse the others: the strides are products of the
    extents, and NumPy refuses to create such an array (`0x2^62xf32` holds nothing,
    yet its first stride is 2^64 bytes), so the nonzero extents are held to the
    same bounds."""
    elements = 1
    for d in shape:
        if d != DYN and d != 0:
            elements *= d
    empty = " (nonzero extents)" if 0 in shape else ""
    if elements > INT64_MAX:
        return f"has {elements} elements{empty}, more than int64 can count (at most {INT64_MAX})"
    nbytes = elements * max(element_bits, 8) // 8
    if nbytes > INT64_MAX:
        return f"is {nbytes} bytes{empty}, more than can be allocated (at most {INT64_MAX})"
    return None


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy broadcasting: align from the right; extents must match or be 1."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d not in (1, DYN)}
        if len(known) > 1:
            raise ShapeError(
                "shapes "
                + ", ".join(fmt(s) for s in shapes)
                + f" are not broadcast-compatible (dimension {i - rank}: "
                + " vs ".join(str(d) for d in sorted(known))
                + ")"
            )
        if known:
            out.append(known.pop())
        elif DYN in dims:
            out.append(DYN)
        else:
            out.append(1)
    return tuple(out)


def normalize_axes(axes: Sequence[int], rank: int) -> tuple[int, ...]:
    """Negative axes count from the end; duplicates and out-of-range axes are errors."""
    norm: list[int] = []
    for a in axes:
        if not -rank <= a < rank:
            raise ShapeError(f"axis {a} is out of range for rank {rank}")
        a = a + rank if a < 0 else a
        if a in norm:
            raise ShapeError(f"axis {a} is repeated in axes {list(axes)}")
        norm.append(a)
    return tuple(sorted(norm))


def reduce_shape(
    shape: Sequence[int], axes: Sequence[int], keepdims: bool
) -> tuple[int, ...]:
    """Result shape of a reduction. Empty `axes` reduces nothing (NumPy's axis=())."""
    red = set(normalize_axes(axes, len(shape)))
    if keepdims:
        return tuple(1 if i in red else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in red)


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """numpy.matmul: 1-D operands are promoted and the added dims dropped again;
    batch dims broadcast."""
    if len(a) == 0 or len(b) == 0:
        raise ShapeError("matmul operands must have rank >= 1, got a scalar")
    a2 = (1, *a) if len(a) == 1 else tuple(a)
    b2 = (*b, 1) if len(b) == 1 else tuple(b)
    k1, k2 = a2[-1], b2[-2]
    if k1 != DYN and k2 != DYN and k1 != k2:
        raise ShapeError(
            f"matmul contraction sizes differ: {fmt(a)} @ {fmt(b)} "
            f"(lhs has K={k1}, rhs has K={k2})"
        )
    try:
        batch = broadcast_shapes(a2[:-2], b2[:-2])
    except ShapeError as e:
        raise ShapeError(f"matmul batch dims of {fmt(a)} @ {fmt(b)}: {e}") from None
    out = [*batch]
    if len(a) > 1:
        out.append(a2[-2])
    if len(b) > 1:
        out.append(b2[-1])
    return tuple(out)


def reshape_shape(src: Sequence[int], new: Sequence[int]) -> tuple[int, ...]:
    """numpy.reshape: one -1 may stand for the extent that keeps the element count."""
    if sum(1 for d in new if d == -1) > 1:
        raise ShapeError(f"reshape to {list(new)}: at most one extent may be -1")
    for d in new:
        if d < -1:
            raise ShapeError(f"reshape to {list(new)}: negative extent {d}")
    if DYN in src:
        if -1 in new:
            raise ShapeError(
                f"reshape of dynamic shape {fmt(src)} to {list(new)}: "
                "-1 needs a static source"
            )
        return tuple(new)
    n = 1
    for d in src:
        n *= d
    known = 1
    for d in new:
        if d != -1:
            known *= d
    if -1 in new:
        if known == 0 or n % known != 0:
            raise ShapeError(
                f"cannot reshape {fmt(src)} ({n} elements) to {list(new)}"
            )
        return tuple(n // known if d == -1 else d for d in new)
    if known != n:
        raise ShapeError(
            f"cannot reshape {fmt(src)} ({n} elements) to {fmt(new)} ({known} elements)"
        )
    return tuple(new)


def transpose_shape(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    if sorted(perm) != list(range(len(shape))):
        raise ShapeError(
            f"perm {list(perm)} is not a permutation of the {len(shape)} dims of "
            f"{fmt(shape)}"
        )
    return tuple(shape[p] for p in perm)


def broadcast_to_shape(src: Sequence[int], target: Sequence[int]) -> tuple[int, ...]:
    if len(target) < len(src):
        raise ShapeError(
            f"cannot broadcast {fmt(src)} to {fmt(target)}: target has lower rank"
        )
    for i, d in enumerate(src):
        t = target[len(target) - len(src) + i]
        if d not in (1, t, DYN) and t != DYN:
            raise ShapeError(f"cannot broadcast {fmt(src)} to {fmt(target)}")
    return tuple(target)


def slice_shape(
    shape: Sequence[int], start: Sequence[int], stop: Sequence[int], step: Sequence[int]
) -> tuple[int, ...]:
    """A static strided slice, one (start, stop, step) per axis, in the normalised form
    Python's `slice.indices(n)` gives (no negative index counts from the end): step != 0;
    start and stop in [0, n] for step > 0, in [-1, n - 1] for step < 0 (stop -1: through
    index 0). The extent is len(range(start, stop, step))."""
    if not len(start) == len(stop) == len(step) == len(shape):
        raise ShapeError(
            f"slice of {fmt(shape)} needs {len(shape)} start, stop and step values, got "
            f"{len(start)}, {len(stop)} and {len(step)}"
        )
    out = []
    for axis, (n, a, b, c) in enumerate(zip(shape, start, stop, step)):
        where = f"axis {axis} of {fmt(shape)}: start {a}, stop {b}, step {c}"
        if c == 0:
            raise ShapeError(f"slice step must not be 0 ({where})")
        if n == DYN:
            raise ShapeError(f"slice of a dynamic extent ({where})")
        low, high = (0, n) if c > 0 else (-1, n - 1)
        if not (low <= a <= high and low <= b <= high):
            raise ShapeError(f"slice bounds out of range ({where}; each must be in [{low}, {high}])")
        out.append(len(range(a, b, c)))
    return tuple(out)


def concatenate_shape(shapes: Sequence[Sequence[int]], axis: int) -> tuple[int, ...]:
    """numpy.concatenate: same rank, equal extents off `axis`, extents on it add up."""
    if not shapes:
        raise ShapeError("concatenate needs at least one operand")
    rank = len(shapes[0])
    if rank == 0:
        raise ShapeError("concatenate of scalars (rank 0)")
    if not -rank <= axis < rank:
        raise ShapeError(f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    for s in shapes[1:]:
        if len(s) != rank or any(
            i != axis and a != b for i, (a, b) in enumerate(zip(s, shapes[0]))
        ):
            raise ShapeError(
                "concatenate along axis "
                f"{axis}: shapes {', '.join(fmt(x) for x in shapes)} differ off the axis"
            )
    if any(s[axis] == DYN for s in shapes):
        raise ShapeError("concatenate along a dynamic extent")
    return tuple(sum(s[axis] for s in shapes) if i == axis else d for i, d in enumerate(shapes[0]))


def take_shape(source: Sequence[int], indices: Sequence[int], axis: int) -> tuple[int, ...]:
    """numpy.take along `axis`: the source's extents with the axis replaced by the
    indices' shape. Indices into an empty axis have nothing to select (NumPy raises)."""
    rank = len(source)
    if rank == 0:
        raise ShapeError("take from a scalar (rank 0)")
    if not -rank <= axis < rank:
        raise ShapeError(f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    if source[axis] == 0 and 0 not in indices:
        raise ShapeError(
            f"take along axis {axis} of extent 0 of {fmt(source)}: no element to select"
        )
    return (*source[:axis], *indices, *source[axis + 1 :])


def attention_shape(
    q: Sequence[int],
    k: Sequence[int],
    v: Sequence[int],
    mask: Sequence[int] | None = None,
    perms: Sequence[Sequence[int] | None] = (None, None, None),
) -> tuple[int, ...]:
    """Scaled dot-product attention: Q [batch..., Sq, D], K [batch..., Sk, D] and V
    [batch..., Sk, Dv] after their layout permutations (`perms`, as transpose's `perm`;
    None: as stored), batch dims broadcasting; an optional mask broadcasts against the
    scores [batch..., Sq, Sk] without changing Sq or Sk. The result is
    [batch..., Sq, Dv]."""
    logical = []
    for name, shape, perm in zip("QKV", (q, k, v), perms):
        if perm is not None:
            try:
                shape = transpose_shape(shape, perm)
            except ShapeError as e:
                raise ShapeError(f"{name} layout: {e}") from None
        if len(shape) < 2:
            raise ShapeError(f"{name} must have rank >= 2 (batch..., seq, head dim), got {fmt(shape)}")
        logical.append(tuple(shape))
    lq, lk, lv = logical

    def differ(a: int, b: int) -> bool:
        return a != DYN and b != DYN and a != b

    if differ(lq[-1], lk[-1]):
        raise ShapeError(f"head dims differ: Q is {fmt(lq)}, K is {fmt(lk)} (seq, head dim last)")
    if differ(lk[-2], lv[-2]):
        raise ShapeError(f"key sequence lengths differ: K is {fmt(lk)}, V is {fmt(lv)}")
    try:
        batch = broadcast_shapes(lq[:-2], lk[:-2], lv[:-2])
    except ShapeError as e:
        raise ShapeError(f"batch dims of Q {fmt(lq)}, K {fmt(lk)}, V {fmt(lv)}: {e}") from None
    scores = (*batch, lq[-2], lk[-2])
    if mask is not None:
        try:
            masked = broadcast_shapes(scores, mask)
        except ShapeError as e:
            raise ShapeError(f"mask {fmt(mask)} does not broadcast to the scores {fmt(scores)}: {e}") from None
        if any(differ(a, b) for a, b in zip(masked[-2:], scores[-2:])):
            raise ShapeError(f"mask {fmt(mask)} would broadcast the scores {fmt(scores)} to {fmt(masked)}: "
                             "it may not change the query or key length")
        batch = masked[:-2]
    return (*batch, lq[-2], lv[-1])


def compatible(inferred: Sequence[int], declared: Sequence[int]) -> bool:
    """A declared shape agrees with an inferred one if ranks match and every static
    extent matches (either side may be dynamic)."""
    return len(inferred) == len(declared) and all(
        a == b or DYN in (a, b) for a, b in zip(inferred, declared)
    )


# --- dtypes ---------------------------------------------------------------------------
# Names are MLIR's spelling of the element type: f16, bf16, f32, f64, i32, i1.

FLOAT_RANK = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}


def promote_dtypes(a: str, b: str) -> str:
    """Result element type of a binary op on element types `a` and `b`.

    The rules (documented in README.md):
    - equal types give that type;
    - a float beats an integer (as in PyTorch, so f16 programs stay in f16);
    - between floats the wider wins; f16 with bf16 gives f32 (neither holds the other).
    """
    if a == b:
        return a
    fa, fb = a in FLOAT_RANK, b in FLOAT_RANK
    if fa and not fb:
        return a
    if fb and not fa:
        return b
    if fa and fb:
        if {a, b} == {"f16", "bf16"}:
            return "f32"
        return a if FLOAT_RANK[a] > FLOAT_RANK[b] else b
    # two integer types: the wider one
    wa, wb = int(a[1:]), int(b[1:])
    return a if wa >= wb else b
