"""What a GPU schedule sees of a loop nest: its domain, operands (host value, kernel
parameter type, access map), combiners and a body builder; plus the access analysis
schedules share (contiguity, vectorisability, alignment)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from aicf.dialects import gpu
from aicf.dialects.affine_intervals import INT32, expr_range, fits, linear_form
from aicf.dialects.loop import Combiner, Iterator, NestOp, RaggedBound

from .builder import KernelBuilder

BodyFn = Callable[[KernelBuilder, list[SSAValue]], list[SSAValue]]


@dataclass
class Operand:
    host: SSAValue  # the value the host plan passes
    type: MemRefType  # the kernel parameter's type
    map: AffineMap  # domain -> indices of `type`


@dataclass
class NestView:
    name: str
    extents: tuple[int, ...]
    iterators: tuple[str, ...]
    inputs: list[Operand]
    outputs: list[Operand]
    combiners: tuple[str, ...]
    acc_types: list[Attribute]
    body: BodyFn
    source: NestOp | None = None
    notes: list[str] = field(default_factory=list)
    # the nest's guard: its outermost reduction dim stops at a bound of the parallel
    # dims (a split's last, shorter chunk); only gpu.rows and gpu.per_output take one
    bound: RaggedBound | None = None

    @property
    def parallel_dims(self) -> list[int]:
        return [i for i, t in enumerate(self.iterators) if t == "parallel"]

    @property
    def reduction_dims(self) -> list[int]:
        return [i for i, t in enumerate(self.iterators) if t == "reduction"]

    @property
    def operands(self) -> list[Operand]:
        return [*self.inputs, *self.outputs]

    def num_points(self) -> int:
        return prod(self.extents)

    def is_matmul_shaped(self) -> bool:
        """A reduction whose body multiplies two inputs that each miss a different
        parallel dim (the shape D2's tiled schedule takes)."""
        red = set(self.reduction_dims)
        if not red or len(self.inputs) < 2 or len(self.outputs) != 1:
            return False
        par = set(self.parallel_dims)
        missing = [par - m.map.used_dims() for m in (o for o in self.inputs)]
        uses_red = [bool(o.map.used_dims() & red) for o in self.inputs]
        a = [i for i in range(len(self.inputs)) if uses_red[i] and missing[i]]
        return len(a) >= 2 and len({frozenset(missing[i]) for i in a}) >= 2


def prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def element_bytes(t: Attribute) -> int:
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    return 8


def num_elements(t: MemRefType) -> int:
    return prod(t.get_shape())


def strides_of(t: MemRefType) -> list[int | None] | None:
    """Element strides (None where dynamic); None for a non-strided layout."""
    lay = t.layout
    shape = t.get_shape()
    if isinstance(lay, NoneAttr):
        out, s = [], 1
        for e in reversed(shape):
            out.append(s)
            s *= e
        return list(reversed(out))
    if isinstance(lay, StridedLayoutAttr):
        return list(lay.get_strides())
    return None


def layout_offset(t: MemRefType) -> int | None:
    lay = t.layout
    if isinstance(lay, NoneAttr):
        return 0
    if isinstance(lay, StridedLayoutAttr):
        return lay.get_offset()
    return None


is_contiguous = gpu.is_dense_row_major
"""Row-major and dense: the rule the launch verifier uses too."""


VECTOR, SPLAT, GATHER = "vector", "splat", "gather"


def access_class(op: Operand, dim: int, vec: int) -> str:
    """How an operand is read/written when `vec` consecutive points along domain dim
    `dim` are handled together (dim starts at a multiple of vec):
    `splat` (the access does not depend on dim), `vector` (vec contiguous elements at
    a vec-aligned element offset, 4, 8 or 16 bytes: one access), else `gather`."""
    m = op.map
    if dim not in m.used_dims():
        return SPLAT
    if vec == 1 or vec * element_bytes(op.type.get_element_type()) not in gpu.VECTOR_ACCESS_BYTES:
        return GATHER
    st = strides_of(op.type)
    off = layout_offset(op.type)
    if st is None or off is None or any(s is None for s in st):
        return GATHER
    if off % vec:
        return GATHER
    *lead, last = m.results
    for k, r in enumerate(lead):
        if dim in r.used_dims() or st[k] % vec:  # type: ignore[operator]
            return GATHER
    lf = linear_form(last)
    if lf is None or st[-1] != 1:
        return GATHER
    coefs, const = lf
    if coefs.get(dim) != 1 or const % vec:
        return GATHER
    if any(c % vec for d, c in coefs.items() if d != dim):
        return GATHER
    return VECTOR


def clone_body(nest: NestOp) -> BodyFn:
    """A body builder that clones the nest's scalar body (minus the yield)."""
    block = nest.body.block

    def build(kb: KernelBuilder, scalars: list[SSAValue]) -> list[SSAValue]:
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, scalars))
        for op in block.ops:
            if op is block.last_op:
                break
            new = op.clone(value_mapper=mapping)
            kb.add(new)
            for a, b in zip(op.results, new.results):
                mapping[a] = b
        return [mapping.get(v, v) for v in nest.yield_op.values]

    return build


def view_of(nest: NestOp, name: str) -> NestView:
    return NestView(
        name=name,
        extents=nest.extents,
        iterators=tuple(i.value for i in nest.iterators),
        inputs=[Operand(v, v.type, m) for v, m in zip(nest.inputs, nest.input_maps)],  # type: ignore[arg-type]
        outputs=[Operand(v, v.type, m) for v, m in zip(nest.outputs, nest.output_maps)],  # type: ignore[arg-type]
        combiners=tuple(c.value for c in nest.combiner_kinds),
        acc_types=[v.type for v in nest.yield_op.values],
        body=clone_body(nest),
        source=nest,
        bound=nest.ragged_bound,
    )


def _undelinearized(op: Operand) -> Operand:
    """`op` with trailing index pairs that delinearize one value X over a dense
    row-major buffer read back as X (`(X floordiv b, X mod b)` over [.., a, b] is X over
    [.., a*b]; `((X floordiv c) mod b, X mod c)` is X mod (b*c)): a split of merged
    reduction dims (passes/loop/split_reductions.py) reads its chunks linearly again,
    so the schedules vectorise them."""
    if not is_contiguous(op.type):
        return op
    rs, sh = list(op.map.results), list(op.type.get_shape())

    def split_by(e: AffineExpr, kind: AffineBinaryOpKind, c: int) -> AffineExpr | None:
        if (isinstance(e, AffineBinaryOpExpr) and e.kind == kind
                and isinstance(e.rhs, AffineConstantExpr) and e.rhs.value == c):
            return e.lhs
        return None

    while len(rs) >= 2 and len(sh) == len(rs):
        b = sh[-1]
        x = split_by(rs[-1], AffineBinaryOpKind.Mod, b)
        if x is None:
            break
        if split_by(rs[-2], AffineBinaryOpKind.FloorDiv, b) == x:
            merged = x
        else:
            y = split_by(rs[-2], AffineBinaryOpKind.Mod, sh[-2])
            if y is None or split_by(y, AffineBinaryOpKind.FloorDiv, b) != x:
                break
            merged = x % (sh[-2] * b)
        rs, sh = [*rs[:-2], merged], [*sh[:-2], sh[-2] * b]
    if len(rs) == len(op.map.results):
        return op
    return Operand(op.host, MemRefType(op.type.get_element_type(), sh),
                   AffineMap(op.map.num_dims, 0, tuple(rs)))


def collapse(view: NestView) -> NestView:
    """Read back delinearized indices (`_undelinearized`), then
    merge runs of adjacent domain dims of one iterator kind when every operand
    reads them as one contiguous row-major run (all of them, in order) or not at all:
    contiguous tensors become 1-D (elementwise) or 2-D rows x columns (reductions),
    so schedules see long contiguous innermost extents. Kernel parameter types become
    the collapsed views (the ABI passes a contiguous buffer as any reshape of it)."""
    ins, outs = [_undelinearized(o) for o in view.inputs], [_undelinearized(o) for o in view.outputs]
    if any(a is not b for a, b in zip([*ins, *outs], view.operands)):
        view = replace(view, inputs=ins, outputs=outs)
    n = len(view.extents)
    if n <= 1 or view.bound is not None:  # the guard names the nest's own dims
        return view
    for op in view.operands:
        if not is_contiguous(op.type):
            return view
        if any(not isinstance(r, AffineDimExpr) for r in op.map.results):
            return view
        pos = [r.position for r in op.map.results]  # type: ignore[union-attr]
        if pos != sorted(pos) or len(set(pos)) != len(pos):
            return view
        if [view.extents[p] for p in pos] != list(op.type.get_shape()):
            return view
    # groups of consecutive dims with the same iterator kind, split where an operand
    # uses one dim of a pair but not the other
    groups: list[list[int]] = [[0]]
    for d in range(1, n):
        same_kind = view.iterators[d] == view.iterators[d - 1]
        together = all(
            ((d in op.map.used_dims()) == (d - 1 in op.map.used_dims()))
            for op in view.operands
        )
        if same_kind and together:
            groups[-1].append(d)
        else:
            groups.append([d])
    if len(groups) == n:
        return view
    new_extents = tuple(prod(view.extents[d] for d in g) for g in groups)
    new_iters = tuple(view.iterators[g[0]] for g in groups)
    group_of = {d: gi for gi, g in enumerate(groups) for d in g}

    def new_operand(op: Operand) -> Operand:
        used = sorted({group_of[r.position] for r in op.map.results})  # type: ignore[union-attr]
        shape = [new_extents[g] for g in used]
        t = MemRefType(op.type.get_element_type(), shape)
        m = AffineMap(len(groups), 0, tuple(AffineDimExpr(g) for g in used))
        return Operand(op.host, t, m)

    return NestView(
        name=view.name,
        extents=new_extents,
        iterators=new_iters,
        inputs=[new_operand(o) for o in view.inputs],
        outputs=[new_operand(o) for o in view.outputs],
        combiners=view.combiners,
        acc_types=view.acc_types,
        body=view.body,
        source=view.source,
        notes=view.notes + [f"collapsed domain {list(view.extents)} -> {list(new_extents)}"],
    )


def guarded_length(view: NestView, multiple: int = 1) -> Callable[[KernelBuilder, Sequence[SSAValue | None]], SSAValue] | None:
    """How many points of its guarded dim a kernel walks at the parallel indices
    `dims`: min(extent, bound + 1); None for a nest without a guard. Kernels compute it
    in unsigned index arithmetic, so the bound must never fall below -1 (a split's
    never does); `multiple`: the length must be a whole number of it (vectors)."""
    rb = view.bound
    if rb is None:
        return None
    E = view.extents[rb.dim]
    length = rb.bound + 1
    box = [(0, max(e - 1, 0)) for e in view.extents]
    rng = expr_range(length, box)
    if rng is None or rng[0] < 0:
        raise NotImplementedError(f"the guard's bound ({rb.bound}) may fall below -1 over the domain")
    lf = linear_form(length)
    if multiple > 1 and (E % multiple or lf is None or lf[1] % multiple
                         or any(v % multiple for v in lf[0].values())):
        raise NotImplementedError(f"the guard cuts rows that are not whole vectors of {multiple} "
                                  "(peel = 1 reads the rest)")
    return lambda kb, dims: kb.min_i(kb.affine(length, dims), E)  # type: ignore[arg-type]


def identity_of(kind: str, t: Attribute) -> float | int:
    if isinstance(t, AnyFloat):
        return Combiner(kind).identity(True)
    if t.width.data == 1:  # false for or (add, max), true for and (mul, min), as combine folds i1
        return int(kind in ("mul", "min"))
    return Combiner(kind).identity(False, t.width.data)  # type: ignore[attr-defined]


def maps_fit_int32(views: Sequence[NestView]) -> bool:
    """Every value the kernels compute for the views' access maps (each subexpression,
    over the domain, map constants included) fits a 32-bit int."""
    for v in views:
        if 0 in v.extents:
            continue
        box = [(0, e - 1) for e in v.extents]
        for o in v.operands:
            if not all(fits(r, box, INT32) for r in o.map.results):
                return False
    return True


def uses_64bit_index(view: NestView, extra: int = 0) -> bool:
    """64-bit index arithmetic when any buffer or the domain reaches 2^31 elements
    (counting `extra`, the headroom a grid-stride loop adds past the end), or a value
    computed for an access map or the guard's loop end (a subexpression, a constant)
    leaves int32."""
    if not maps_fit_int32([view]):
        return True
    if view.bound is not None and not fits(view.bound.bound + 1, [(0, max(e - 1, 0)) for e in view.extents], INT32):
        return True  # the guarded loop's end (guarded_length) is computed in index arithmetic too
    limit = 2**31 - 1
    biggest = max([view.num_points(), *(num_elements(o.type) for o in view.operands)])
    for o in view.operands:
        st = strides_of(o.type)
        if st is None or any(s is None for s in st):
            continue  # dynamic strides: checked at run time against the index width
        span = 1 + sum((e - 1) * s for e, s in zip(o.type.get_shape(), st) if e > 0)  # type: ignore[operator]
        biggest = max(biggest, span)
    return biggest + extra > limit


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def parallel_only(view: NestView) -> bool:
    return all(i == Iterator.PARALLEL.value for i in view.iterators)


def operand_bytes(view: NestView) -> int:
    """Fewest bytes the nest must move: each operand's elements once."""
    return sum(num_elements(o.type) * element_bytes(o.type.get_element_type()) for o in view.operands)


def renumber_map(m: AffineMap, new_dims: Sequence[AffineExpr], ndims: int) -> AffineMap:
    return AffineMap(ndims, 0, tuple(r.replace_dims_and_symbols(list(new_dims), []) for r in m.results))


def body_flops(view: NestView) -> int:
    """Floating-point operations per domain point: the body's float arith/math ops
    (conversions excluded) plus one per reducing combiner."""
    from xdsl.dialects.builtin import AnyFloat as _F

    n = 0
    if view.source is not None:
        for op in view.source.body.block.ops:
            if op.name.startswith(("arith.", "math.")) and op.name not in (
                "arith.extf", "arith.truncf", "arith.constant"
            ) and any(isinstance(r.type, _F) for r in op.results):
                n += 1
    n += sum(1 for c in view.combiners if c != "none")
    return n


def annotate(kernel, view: NestView, params: list[Operand]) -> None:
    """Record the bytes a launch moves and the flops it does (for the profiler)."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    nbytes = sum(num_elements(o.type) * element_bytes(o.type.get_element_type()) for o in params)
    kernel.attributes["aicf.bytes"] = IntegerAttr(nbytes, i64)
    kernel.attributes["aicf.flops"] = IntegerAttr(view.num_points() * body_flops(view), i64)
    for a, o in zip(kernel.body.block.args, params):
        if o.host.name_hint:
            a.name_hint = o.host.name_hint
