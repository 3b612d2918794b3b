"""The iteration domain of a fusion group, the index of every value in it, and the
nests the group lowers to.

`aicf-fuse` asks `analyze` whether a candidate group is legal; the lowering of
`aicf_tensor.fused` (aicf.lowering.fused_to_loop) asks it again for the maps and the
nest plan, so the pass, its cost model and the lowering agree on one description.

A group has one domain D (a shape, natural dim order):
- with reductions, D is the shape every reduction reads and `axes` the (same, non-empty)
  set of axes every reduction folds; the kept dims are the other ones;
- without, D is the broadcast of every member's result shape.

Every member value v gets an index map M_v: D -> v's indices, or None ("free": v
depends only on group inputs and constants, so it can be computed at any index):
- a reduction's M is its output projection (reduced dims dropped, or 0 with keepdims);
- an elementwise op takes the map of an anchored operand of its own shape, else the
  NumPy broadcast of its shape into D; every anchored operand must then be read at the
  index it was computed at (broadcast(operand -> v) o M_v == M_operand). This rejects,
  e.g., a row sum of shape [R] added to a [R, R] tensor: NumPy aligns it with the
  columns, so the group could not run row by row.

Nest plan (`GroupDomain.plan`): reductions are levelled by how many reductions they
depend on; each level is one nest over D (kept dims first, then the reduced ones),
computing the level's reductions with their elementwise prologues inlined. Outputs on
the kept dims that are not plain sum/max reductions (a mean, an epilogue like
`sum * 0.5`) are written by one nest over the kept dims; outputs on all of D by one
final nest over D. A group without reductions is one nest over D.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from math import prod

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as t
from aicf.lowering.tensor_to_loop.access import broadcast as broadcast_map

ELEMENTWISE = (*t.UNARY_OPS, *t.BINARY_OPS, t.SelectOp, t.CastOp)
_REDUCTIONS = frozenset({t.ReduceSumOp, t.ReduceMaxOp, t.ReduceMinOp, t.ReduceProdOp, t.ReduceMeanOp, t.ReduceVarOp})


class NotFusible(Exception):
    """A candidate group cannot be one fused kernel; the message says why."""


def static_shape(v: SSAValue) -> tuple[int, ...] | None:
    # on aicf-fuse's hot path (called for every member of every candidate group)
    typ = v.type
    if not isinstance(typ, TensorType):
        return None
    shape = typ.get_shape()
    return None if rules.DYN in shape else shape


def is_splat_constant(op: Operation) -> bool:
    return isinstance(op, t.ConstantOp) and op.is_splat()


def is_leaf(op: Operation) -> bool:
    """Values computed from nothing at any index (a splat constant, an iota): no group
    is their home; each group that reads one computes it in its own nests."""
    return isinstance(op, t.IotaOp) or is_splat_constant(op)


def fusible_op(op: Operation) -> bool:
    """Ops a group may hold: elementwise ops and reductions over at least one axis,
    on static shapes. Matmul is its own kernel; layout ops stay outside."""
    if isinstance(op, t.ReduceVarOp):  # two passes over its input: its own nests
        return False
    if isinstance(op, t.ReduceOp):
        ok = static_shape(op.input) is not None and bool(op.reduced_axes())
    elif isinstance(op, ELEMENTWISE):
        ok = True
    else:
        return False
    return ok and all(static_shape(v) is not None for v in (*op.operands, *op.results))


def normalize(m: AffineMap, domain: Sequence[int]) -> AffineMap:
    """Dims of extent 1 are always index 0: spell them so, so maps compare equal.
    (Memoised, as the maps below: aicf-fuse analyses every candidate group, and the
    same few maps recur over a whole program.)"""
    return _normalize(m, tuple(domain))


@functools.lru_cache(maxsize=8192)
def _normalize(m: AffineMap, domain: tuple[int, ...]) -> AffineMap:
    dims = [
        AffineExpr.constant(0) if domain[i] == 1 else AffineExpr.dimension(i)
        for i in range(len(domain))
    ]
    return m.replace_dims_and_symbols(dims, [], len(domain), 0)


@functools.lru_cache(maxsize=8192)
def _broadcast_on(shape: tuple[int, ...], domain: tuple[int, ...]) -> AffineMap:
    """A `shape`-d value computed over `domain`, normalised."""
    return _normalize(broadcast_map(shape, domain), domain)


@functools.lru_cache(maxsize=8192)
def _read_map(operand: tuple[int, ...], result: tuple[int, ...], m: AffineMap, domain: tuple[int, ...]) -> AffineMap:
    """Where an op of `result` shape computed at `m` reads its `operand`-shaped input."""
    return _normalize(broadcast_map(operand, result).compose(m), domain)


def fits(shape: Sequence[int], domain: Sequence[int]) -> bool:
    if len(shape) > len(domain):
        return False
    try:
        return rules.broadcast_shapes(shape, domain) == tuple(domain)
    except rules.ShapeError:
        return False


@dataclass
class Nest:
    """One nest of the plan: its roots (values it computes; for a reduction level the
    reductions, whose inputs it folds), over all of D or the kept dims only."""

    kind: str  # "reduce", "kept" or "full"
    roots: list[SSAValue]
    level: int = 0


@dataclass
class GroupDomain:
    shape: tuple[int, ...]
    axes: tuple[int, ...]
    maps: dict[SSAValue, AffineMap | None]
    levels: dict[Operation, int]  # reduction -> 1-based level
    full_outputs: list[SSAValue] = field(default_factory=list)
    kept_outputs: list[SSAValue] = field(default_factory=list)
    # the forward pass's state after the group's ops (`analyze(prefix=)` resumes it)
    depth: dict[SSAValue, int] = field(default_factory=dict)
    size: int = 0
    # `inlined` per (nest kind, roots), kept by a domain resumed from this one: the ops
    # added then come later in program order, so they are in no cone of earlier roots
    # (a reduction chain's group is priced at each op it grows by: each level's cone
    # is walked once, not once per op)
    cones: dict[tuple, list[Operation]] = field(default_factory=dict)

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.shape)) if i not in self.axes)

    @property
    def order(self) -> tuple[int, ...]:
        """Nest dim j is natural dim order[j]: kept dims first, reduced dims last, so
        the kept dims are the leading parallel dims every nest shares."""
        return (*self.kept, *self.axes)

    @property
    def shared(self) -> tuple[int, ...]:
        return tuple(self.shape[i] for i in self.kept)

    def identity(self) -> AffineMap:
        return _identity(self.shape)

    def written_by_reduction(self, v: SSAValue) -> bool:
        """A sum/max/min/prod output is stored by its reduction nest; a mean needs scaling."""
        return isinstance(v.owner, t.ReduceSumOp | t.ReduceMaxOp | t.ReduceMinOp | t.ReduceProdOp)

    def plan(self) -> list[Nest]:
        if not self.axes:
            return [Nest("full", list(self.full_outputs))]
        by_level: dict[int, list[SSAValue]] = {}
        for r, lv in self.levels.items():
            by_level.setdefault(lv, []).append(r.results[0])
        nests = [Nest("reduce", by_level[level], level) for level in sorted(by_level)]
        kept = [v for v in self.kept_outputs if not self.written_by_reduction(v)]
        if kept:
            nests.append(Nest("kept", kept))
        if self.full_outputs:
            nests.append(Nest("full", list(self.full_outputs)))
        return nests

    def nest_points(self, nest: Nest) -> int:
        return prod(self.shared) if nest.kind == "kept" else prod(self.shape)

    def inlined(self, nest: Nest) -> list[Operation]:
        """The member ops a nest evaluates at each of its points: the elementwise cones
        of its roots, stopping at reductions (read from their buffers)."""
        key = (nest.kind, *nest.roots)
        cone = self.cones.get(key)
        if cone is None:
            cone = self.cones[key] = self._inlined(nest)
            if nest.kind != "reduce" and len(nest.roots) == 1:
                # the cone of one value: a walk from a later root that reaches it takes
                # it whole (a growing chain's output is the next one's operand)
                self.cones[("value", nest.roots[0])] = cone
        return cone

    def _inlined(self, nest: Nest) -> list[Operation]:
        seen: dict[Operation, None] = {}  # ordered, with O(1) membership
        stack = [r.owner.operands[0] if nest.kind == "reduce" else r for r in nest.roots]
        if nest.kind == "reduce":
            seen.update((r.owner, None) for r in nest.roots)  # type: ignore[misc]
        maps = self.maps  # the group's values: each is an op's result
        cones = self.cones
        while stack:
            v = stack.pop()
            if v not in maps:
                continue
            op = v.owner
            if op in seen:
                continue
            known = cones.get(("value", v))
            if known is not None:  # (reductions end every walk: a cone is one whatever the start)
                seen.update(dict.fromkeys(known))
                continue
            kind = type(op)
            if kind in _REDUCTIONS:  # (not isinstance: an ABC's check is slow on this hot path)
                if kind is t.ReduceMeanOp:
                    seen[op] = None  # the division by the count is done on reading
                continue
            seen[op] = None
            stack.extend(op.operands)
        return list(seen)


@functools.lru_cache(maxsize=1024)
def _identity(shape: tuple[int, ...]) -> AffineMap:
    return normalize(AffineMap.identity(len(shape)), shape)


def _output_kind(dom: GroupDomain, v: SSAValue) -> str:
    m = dom.maps.get(v)
    shape = static_shape(v)
    assert shape is not None
    if m is None:
        if shape == dom.shape:
            return "full"
        raise NotFusible(
            f"output of shape {rules.fmt(shape)} is computed from group inputs only and "
            f"is not on the domain {rules.fmt(dom.shape)}"
        )
    if m == dom.identity() and shape == dom.shape:
        return "full"
    if dom.axes:
        kept = {i for i in dom.kept if dom.shape[i] != 1}
        bare = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
        consts_ok = all(
            shape[p] == 1 for p, e in enumerate(m.results) if not isinstance(e, AffineDimExpr)
        )
        if sorted(bare) == sorted(kept) and len(set(bare)) == len(bare) and consts_ok:
            return "kept"
    raise NotFusible(
        f"output of shape {rules.fmt(shape)} would be written more than once over the "
        f"domain {rules.fmt(dom.shape)}"
    )


def analyze(ops: Sequence[Operation], outputs: Iterable[SSAValue], *, checked: bool = False,
            prefix: GroupDomain | None = None) -> GroupDomain:
    """The domain and maps of a group of `ops` (in program order) whose values in
    `outputs` are used outside it. Raises NotFusible with the reason. `checked`: the
    caller knows every op passes `fusible_op` (aicf-fuse asks once per op, not once
    per candidate group). `prefix`: the domain of the group `ops[:prefix.size]`; when
    the ops after it leave the domain's shape and axes as they are, its forward pass
    is resumed rather than redone (aicf-fuse grows a chain's group one op at a time:
    linear, not quadratic in the group's size)."""
    if not checked:
        for op in ops:
            if not (fusible_op(op) or is_leaf(op)):
                raise NotFusible(f"'{op.name}' cannot be fused")
    if prefix is not None:
        resumed = _resume(prefix, ops)
        if resumed is not None:
            return _classify_outputs(resumed, outputs)
    shape, axes = _shape_and_axes(ops)
    return _classify_outputs(_forward(GroupDomain(shape, tuple(axes), {}, {}), ops), outputs)


def _shape_and_axes(ops: Sequence[Operation]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    reductions = [op for op in ops if isinstance(op, t.ReduceOp)]
    if reductions:
        shape = static_shape(reductions[0].input)
        axes = reductions[0].reduced_axes()
        assert shape is not None
        _same_reductions(reductions[1:], shape, axes)
        return tuple(shape), tuple(axes)
    try:
        shape = rules.broadcast_shapes(
            *(static_shape(op.results[0]) or () for op in ops if not is_leaf(op))
        )
    except rules.ShapeError as e:
        raise NotFusible(str(e)) from None
    return tuple(shape), ()


def _same_reductions(reductions: Iterable[Operation], shape: tuple[int, ...], axes) -> None:
    for r in reductions:
        assert isinstance(r, t.ReduceOp)
        if static_shape(r.input) != shape:
            raise NotFusible(
                f"reductions over different domains ({rules.fmt(shape)} and "
                f"{rules.fmt(static_shape(r.input) or ())})"
            )
        if r.reduced_axes() != axes:
            raise NotFusible(
                f"reductions over different axes ({list(axes)} and {list(r.reduced_axes())})"
            )


def _resume(prefix: GroupDomain, ops: Sequence[Operation]) -> GroupDomain | None:
    """`_forward` over `ops` continued from `prefix` (the domain of ops[:prefix.size]),
    or None when the later ops change the domain's shape or axes (then the whole
    group is analysed again)."""
    new = ops[prefix.size:]
    reductions = [op for op in new if isinstance(op, t.ReduceOp)]
    if prefix.axes:
        _same_reductions(reductions, prefix.shape, prefix.axes)
        shape = prefix.shape
    elif reductions:
        return None  # the first reduction sets the domain
    else:
        try:
            shape = tuple(rules.broadcast_shapes(
                prefix.shape, *(static_shape(op.results[0]) or () for op in new if not is_leaf(op))
            ))
        except rules.ShapeError as e:
            raise NotFusible(str(e)) from None
    if shape != prefix.shape:
        return None
    dom = GroupDomain(shape, prefix.axes, dict(prefix.maps), dict(prefix.levels),
                      depth=dict(prefix.depth), size=prefix.size, cones=dict(prefix.cones))
    return _forward(dom, new)


def _forward(dom: GroupDomain, ops: Sequence[Operation]) -> GroupDomain:
    """Each op's map over the domain (and each reduction's level), in program order."""
    shape, axes, depth = dom.shape, dom.axes, dom.depth
    for op in ops:
        res = op.results[0]
        rshape = static_shape(res)
        assert rshape is not None
        depth[res] = max((depth.get(o, 0) for o in op.operands), default=0)
        if is_leaf(op):
            dom.maps[res] = None
            continue
        if isinstance(op, t.ReduceOp):
            m_in = dom.maps.get(op.input)
            if m_in is not None and m_in != dom.identity():
                raise NotFusible("a reduction's input is not computed on the group's domain")
            results = []
            for i in range(len(shape)):
                if i not in axes:
                    results.append(AffineExpr.dimension(i))
                elif op.keep:
                    results.append(AffineExpr.constant(0))
            m = AffineMap(len(shape), 0, tuple(results))
            dom.maps[res] = normalize(m, shape)
            depth[res] += 1
            dom.levels[op] = depth[res]
            continue
        anchored = [(o, dom.maps[o]) for o in op.operands if dom.maps.get(o) is not None]
        if not anchored:
            dom.maps[res] = None
            continue
        same = [m for o, m in anchored if static_shape(o) == rshape]
        if same:
            m = same[0]
        elif fits(rshape, shape):
            m = _broadcast_on(rshape, shape)
        else:
            raise NotFusible(
                f"'{op.name}' of shape {rules.fmt(rshape)} does not fit the domain "
                f"{rules.fmt(shape)}"
            )
        for o, mo in anchored:
            oshape = static_shape(o)
            assert oshape is not None
            read = _read_map(oshape, rshape, m, shape)
            if read != mo:
                raise NotFusible(
                    f"'{op.name}' reads a group value at {read}, but it is computed at {mo}"
                )
        dom.maps[res] = m
    dom.size += len(ops)
    return dom


def _classify_outputs(dom: GroupDomain, outputs: Iterable[SSAValue]) -> GroupDomain:
    for v in dict.fromkeys(outputs):
        if _output_kind(dom, v) == "full":
            dom.full_outputs.append(v)
        else:
            dom.kept_outputs.append(v)
    return dom
