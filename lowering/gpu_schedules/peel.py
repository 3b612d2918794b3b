"""Vector loads over rows whose length is not a multiple of the vector width.

A row of a [M, 3001] f32 array starts at element row * 3001, so its 16-byte
boundary moves from row to row: no single vector width divides every row start.
Peeling reads each row as a scalar head (the elements before the row's first
16-byte boundary, `head` = 0..vec-1 of them, computed per row), aligned vector loads,
and a scalar tail (fewer than vec elements). The head is the same for every operand
that walks the row only when they share the layout and the access map; `peel_width`
checks that, `row_head` computes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr

from aicf.dialects import gpu

from .builder import KernelBuilder
from .view import Operand, element_bytes, layout_offset, strides_of


def peel_width(walkers: Sequence[Operand], dim: int, extent: int, acc_bytes: int, max_bytes: int) -> int:
    """The vector width (elements) a peeled walk of domain dim `dim` (the innermost,
    `extent` long) reads with, or 1 when it cannot: every operand in `walkers` must be
    strided with static strides, unit stride along the row, the row's index in its
    last subscript alone, and all of them the same layout and map (one head per row)."""
    if not walkers:
        return 1
    first = walkers[0]
    for o in walkers:
        st, off = strides_of(o.type), layout_offset(o.type)
        if st is None or off is None or any(x is None for x in st) or st[-1] != 1:
            return 1
        *lead, last = o.map.results
        if not (isinstance(last, AffineDimExpr) and last.position == dim):
            return 1
        if any(dim in r.used_dims() for r in lead):
            return 1
        if (o.map, st, off, o.type.get_shape()) != (first.map, strides_of(first.type), layout_offset(first.type), first.type.get_shape()):
            return 1
    eb = max([acc_bytes, *(element_bytes(o.type.get_element_type()) for o in walkers)])
    v = max(1, max_bytes // eb)
    # a row shorter than two vectors has little to align
    while v > 1 and extent < 2 * v:
        v //= 2
    # the peeled body reads every walker as one vector: none may be narrower than a word
    if any(v * element_bytes(o.type.get_element_type()) not in gpu.VECTOR_ACCESS_BYTES for o in walkers):
        return 1
    return v


def row_head(kb: KernelBuilder, o: Operand, dims: Sequence[SSAValue | None], dim: int, vec: int) -> SSAValue:
    """Elements before the first vec-aligned element of the row at `dims` (dims[dim]
    is ignored): (vec - start % vec) % vec for the row's linear start in `o`."""
    dk = list(dims)
    dk[dim] = kb.index(0)
    idx = [kb.affine(r, dk) for r in o.map.results]  # type: ignore[arg-type]
    st, off = strides_of(o.type), layout_offset(o.type)
    lin = kb.index(off or 0)
    for i, s in zip(idx, st):  # type: ignore[arg-type]
        lin = kb.add_i(lin, kb.mul_i(i, s))  # type: ignore[arg-type]
    return kb.rem_i(kb.sub_i(vec, kb.rem_i(lin, vec)), vec)
