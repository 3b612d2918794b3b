"""What a loop-level function writes: only its outputs, and all of each output.

At the loop level a function takes its inputs, then its `aicf.num_outputs` outputs
(destination-passing style). The runtimes pass the inputs read-only (the cpu target
declares them `const`; on cuda they are the caller's arrays) and the outputs as fresh
memory nobody has written. Programs lowered from the tensor level keep to that by
construction; a hand-written one may not:

- `check_input_writes`: an op that writes an input (or any argument of a function
  without `aicf.num_outputs`) is an error at that op, before the C compiler rejects a
  store through a `const` pointer, or the cuda target overwrites the caller's array.
- `uncovered_outputs`: the outputs whose elements the function's writes are not
  proven to reach, each one. The proof covers the usual programs: each nest writes
  the image of its domain under its output map, a box when every map result is a
  constant or +-1 times a dim plus a constant (identities, permutations, slices,
  flips), and the boxes together must tile the buffer; other maps (strides,
  floordiv/mod) are evaluated point by point for buffers up to `MAX_ENUMERATED`
  elements. A gather, an attention or a `memref.copy` writes its whole output.
- `fill_uncovered_outputs`: those outputs get a nest of their own, first in the
  function, that writes zeros: what the program leaves unwritten is 0 on every
  target (the fill is an ordinary nest, so each target runs it as it runs any),
  never the memory's old contents.
- `fill_allocs_read_first`: a buffer the function allocates (`memref.alloc`) and reads
  before its writes are proven to cover it gets the same zero fill, right after the
  alloc (it read heap garbage).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.traits import MemoryEffectKind, get_effects

from aicf.dialects.loop import (
    AttentionOp,
    Combiner,
    GatherOp,
    Iterator as LoopIterator,
    NestOp,
    YieldOp,
    make_body,
)

NUM_OUTPUTS = "aicf.num_outputs"
# ops whose result is the same memory as their first operand, seen another way
VIEW_OPS = (memref.CastOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.ReinterpretCastOp,
            memref.SubviewOp, memref.ViewOp)
# The most points (or elements, or cells of the boxes' grid) the coverage proof
# enumerates; past it, an output is not proven covered and is zero-filled.
MAX_ENUMERATED = 1 << 22


def num_outputs(fn: func.FuncOp) -> int | None:
    """The function's `aicf.num_outputs`, None without one (the verifier checks its range)."""
    attr = fn.attributes.get(NUM_OUTPUTS)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _root(v: SSAValue) -> SSAValue:
    """The buffer `v` is a view of (itself if none)."""
    while isinstance(v.owner, VIEW_OPS):
        v = v.owner.operands[0]
    return v


def _inner_ops(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops


def _writes(op: Operation) -> Iterator[tuple[Operation, SSAValue]]:
    """(op, buffer) for each buffer `op` writes. An op with regions other than a nest
    (a group, an scf loop) writes through the ops inside it, reported as theirs; an op
    of unknown effects (a kernel launch) says nothing."""
    if isinstance(op, NestOp):  # the common case, without walking its scalar body
        yield from ((op, v) for v in op.outputs)
        return
    if op.regions:
        for inner in _inner_ops(op):
            yield from _writes(inner)
        return
    if isinstance(op, memref.CopyOp):  # xDSL's memref ops say they write, not what
        yield op, op.destination
        return
    if isinstance(op, memref.StoreOp | memref.AtomicRMWOp):
        yield op, op.memref
        return
    for e in get_effects(op) or ():
        if e.kind is MemoryEffectKind.WRITE and e.value is not None:
            yield op, e.value


def function_writes(fn: func.FuncOp) -> Iterator[tuple[Operation, SSAValue]]:
    for op in fn.body.block.ops:
        yield from _writes(op)


def _argument_name(arg: BlockArgument) -> str:
    return f"%{arg.name_hint}" if arg.name_hint else f"%arg{arg.index}"


def check_input_writes(fn: func.FuncOp, need_outputs: bool) -> None:
    """A located CompileError at the first op that writes an input of `fn` (directly
    or through a view). Without `aicf.num_outputs` every argument is an input: that is
    checked only where the function is about to run (`need_outputs`), as pass tests
    write functions without the attribute."""
    from aicf.diagnostics import op_error

    nout = num_outputs(fn)
    if (nout is None and not need_outputs) or fn.is_declaration:
        return
    nin = len(fn.args) - (nout or 0)
    inputs = set(fn.args[:nin])
    for op, v in function_writes(fn):
        arg = _root(v)
        if arg not in inputs:
            continue
        assert isinstance(arg, BlockArgument)
        what = f"writes {_argument_name(arg)} (argument #{arg.index} of @{fn.sym_name.data})"
        if nout is None:
            raise op_error(op, f"{what}, but @{fn.sym_name.data} has no {NUM_OUTPUTS}, so every argument "
                           f"is an input: mark its trailing output arguments with attributes "
                           f"{{{NUM_OUTPUTS} = N : i64}}")
        raise op_error(op, f"{what}, an input: {NUM_OUTPUTS} = {nout} makes only the last {nout} "
                       f"argument(s) outputs, and inputs are read-only")


# --- coverage ----------------------------------------------------------------------------


def _linear(e: AffineExpr) -> tuple[int | None, int, int] | None:
    """(dim, coefficient, constant) of an expression `coefficient * dim + constant`
    (dim None for a constant), or None for any other expression."""
    if isinstance(e, AffineConstantExpr):
        return None, 0, e.value
    if isinstance(e, AffineDimExpr):
        return e.position, 1, 0
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    lhs, rhs = _linear(e.lhs), _linear(e.rhs)
    if lhs is None or rhs is None:
        return None
    if e.kind is AffineBinaryOpKind.Add:
        if lhs[0] is not None and rhs[0] is not None:
            return None
        return (lhs[0] if lhs[0] is not None else rhs[0]), lhs[1] + rhs[1], lhs[2] + rhs[2]
    if e.kind is AffineBinaryOpKind.Mul:
        if rhs[0] is None:
            return lhs[0], lhs[1] * rhs[2], lhs[2] * rhs[2]
        if lhs[0] is None:
            return rhs[0], rhs[1] * lhs[2], rhs[2] * lhs[2]
    return None


Box = tuple[tuple[int, int], ...]  # per dim of the buffer, the first and last index


def _box(m: AffineMap, extents: Sequence[int]) -> Box | None:
    """The image of the domain under `m` when it is a box (see the module docstring)."""
    box = []
    seen: set[int] = set()
    for r in m.results:
        lin = _linear(r)
        if lin is None:
            return None
        d, a, c = lin
        if d is None or a == 0 or extents[d] == 1:  # one index: the dim is 0 throughout
            box.append((c, c))
            continue
        if a not in (1, -1) or d in seen:
            return None
        seen.add(d)
        ends = (c, c + a * (extents[d] - 1))
        box.append((min(ends), max(ends)))
    return tuple(box)


def _evaluate(e: AffineExpr, index: Sequence[np.ndarray]) -> np.ndarray | int | None:
    if isinstance(e, AffineConstantExpr):
        return e.value
    if isinstance(e, AffineDimExpr):
        return index[e.position]
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    lhs, rhs = _evaluate(e.lhs, index), _evaluate(e.rhs, index)
    if lhs is None or rhs is None:
        return None
    if e.kind is AffineBinaryOpKind.Add:
        return lhs + rhs
    if e.kind is AffineBinaryOpKind.Mul:
        return lhs * rhs
    if not isinstance(rhs, int) or rhs == 0:  # a divisor is a constant in affine maps
        return None
    if e.kind is AffineBinaryOpKind.Mod:
        return np.mod(lhs, rhs)  # the divisor's sign, as MLIR's mod
    if e.kind is AffineBinaryOpKind.FloorDiv:
        return np.floor_divide(lhs, rhs)
    return -np.floor_divide(-lhs, rhs)  # CeilDiv


def _mark_points(mask: np.ndarray, m: AffineMap, extents: Sequence[int]) -> bool:
    """Set every element `m` reaches over the domain; False when there are too many
    points to enumerate (or an expression this cannot evaluate)."""
    used = sorted(m.used_dims())
    if math.prod(extents[d] for d in used) > MAX_ENUMERATED:
        return False
    index: list[np.ndarray] = [np.zeros(1, np.int64)] * len(extents)
    for k, d in enumerate(used):  # one broadcast axis per used dim
        shape = [1] * len(used)
        shape[k] = extents[d]
        index[d] = np.arange(extents[d], dtype=np.int64).reshape(shape)
    full = tuple(extents[d] for d in used)
    coords = []
    for r, size in zip(m.results, mask.shape):
        value = _evaluate(r, index)
        if value is None:
            return False
        coords.append(np.broadcast_to(np.asarray(value, np.int64), full).ravel())
    if coords:  # the verifier bounds every index it can; one it cannot is left out
        inside = np.logical_and.reduce([(c >= 0) & (c < n) for c, n in zip(coords, mask.shape)])
        mask[tuple(c[inside] for c in coords)] = True
    else:
        mask[()] = True
    return True


def _boxes_cover(boxes: Sequence[Box], shape: Sequence[int]) -> bool:
    """Whether the boxes together hold every index of `shape`: on the grid their
    edges cut the buffer into, every cell must be in some box."""
    cuts = [sorted({0, n, *(min(max(b[k][0], 0), n) for b in boxes), *(min(max(b[k][1] + 1, 0), n) for b in boxes)})
            for k, n in enumerate(shape)]
    if math.prod(len(c) - 1 for c in cuts) > MAX_ENUMERATED:
        return False
    grid = np.zeros([len(c) - 1 for c in cuts], bool)
    for b in boxes:
        grid[tuple(slice(bisect.bisect_left(c, lo), bisect.bisect_left(c, hi + 1)) for c, (lo, hi) in zip(cuts, b))] = True
    return bool(grid.all())


def _writes_whole(op: Operation, buf: SSAValue) -> bool:
    if isinstance(op, GatherOp | AttentionOp):  # their verifiers tie the output's shape to the op's
        return True
    if isinstance(op, memref.CopyOp):
        return op.source.type.get_shape() == buf.type.get_shape()  # type: ignore[attr-defined]
    return False


def _covered(buf: SSAValue, writers: Sequence[Operation]) -> bool:
    shape = tuple(buf.type.get_shape())  # type: ignore[attr-defined]
    if math.prod(shape) == 0 or any(_writes_whole(op, buf) for op in writers):
        return True
    full = tuple((0, n - 1) for n in shape)
    boxes: list[Box] = []
    maps: list[tuple[AffineMap, tuple[int, ...]]] = []
    for op in writers:
        # a store writes one element; a nest empty along a parallel dim writes nothing
        # (empty along a reduction dim, it writes the combiner's identity everywhere)
        if not isinstance(op, NestOp) or any(op.extents[d] == 0 for d in op.parallel_dims):
            continue
        m = op.output_maps[list(op.outputs).index(buf)]
        box = _box(m, op.extents)
        if box == full:
            return True
        if box is None:
            maps.append((m, op.extents))
        else:
            boxes.append(box)
    if not maps:
        return _boxes_cover(boxes, shape)
    if math.prod(shape) > MAX_ENUMERATED:
        return False
    mask = np.zeros(shape, bool)
    for b in boxes:
        mask[tuple(slice(lo, hi + 1) for lo, hi in b)] = True
    return all(_mark_points(mask, m, extents) for m, extents in maps) and bool(mask.all())


def uncovered_outputs(fn: func.FuncOp) -> list[tuple[int, list[Operation]]]:
    """(k, the ops that write it) for each output #k of `fn` not proven written in full.
    An output written through a view is not proven (the view's indices are not the
    output's)."""
    nout = num_outputs(fn) or 0
    outputs = list(fn.args[len(fn.args) - nout :])
    writers: dict[SSAValue, list[Operation]] = {v: [] for v in outputs}
    viewed: set[SSAValue] = set()
    for op, v in function_writes(fn):
        if v in writers:
            writers[v].append(op)
        elif _root(v) in writers:
            viewed.add(_root(v))
            writers[_root(v)].append(op)
    return [(k, writers[v]) for k, v in enumerate(outputs)
            if v in viewed or not _covered(v, writers[v])]  # fmt: skip


def _zero(elt) -> Operation:
    if isinstance(elt, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, elt))
    assert isinstance(elt, IntegerType)
    return arith.ConstantOp(IntegerAttr(0, elt))


def _zero_fill(buf: SSAValue) -> NestOp | None:
    """A nest writing zeros to all of `buf` (None for a buffer of no static shape or no
    scalar element type: the emitters say what is wrong with those)."""
    t = buf.type
    assert isinstance(t, MemRefType)
    elt = t.get_element_type()
    shape = tuple(t.get_shape())
    if not isinstance(elt, AnyFloat | IntegerType) or any(d < 0 for d in shape):
        return None
    body, block = make_body([])
    zero = _zero(elt)
    block.add_ops([zero, YieldOp(zero.results[0])])
    return NestOp([], [buf], shape, [LoopIterator.PARALLEL] * len(shape), [AffineMap.identity(len(shape))],
                  [Combiner.NONE], body)  # fmt: skip


def fill_uncovered_outputs(fn: func.FuncOp) -> list[str]:
    """Zero-fill, first thing in `fn`, each output `uncovered_outputs` names; a note on
    each (for `Executable.explain`)."""
    from aicf.diagnostics import location_of

    notes = []
    nin = len(fn.args) - (num_outputs(fn) or 0)
    first = fn.body.block.first_op
    for k, writers in uncovered_outputs(fn):
        out = fn.args[nin + k]
        t = out.type
        fill = _zero_fill(out)
        if fill is None:
            continue
        fill.location = fn.location
        if first is None:
            fn.body.block.add_op(fill)
        else:
            fn.body.block.insert_op_before(fill, first)
        where = ", ".join(location_of(op) for op in writers) or "nothing writes it"
        notes.append(f"output #{k} ({_argument_name(out)}: {t}) is zero-filled first: the writes to it "
                     f"are not proven to cover it ({where})")
    return notes


def _reads(op: Operation) -> Iterator[SSAValue]:
    """The buffers `op` reads (nests: their inputs; ops with regions: through the ops
    inside; a copy: its source; other ops: every memref operand, conservatively)."""
    if isinstance(op, NestOp):
        yield from op.inputs
        return
    if op.regions:
        for inner in _inner_ops(op):
            yield from _reads(inner)
        return
    if isinstance(op, memref.CopyOp):
        yield op.source
        return
    if isinstance(op, (*VIEW_OPS, memref.DeallocOp)):
        return
    yield from (v for v in op.operands if isinstance(v.type, MemRefType))


def outputs_read_first(fn: func.FuncOp) -> list[tuple[int, Operation]]:
    """(k, the op) for each output #k some op reads before the ops ahead of it have
    written all of it (an update in place, `y += x`): its incoming contents are part of
    the result, so an output the program allocates must start defined."""
    nout = num_outputs(fn) or 0
    outputs = list(fn.args[len(fn.args) - nout :])
    writers: dict[SSAValue, list[Operation]] = {v: [] for v in outputs}
    found: dict[int, Operation] = {}
    for op in fn.body.block.ops:
        for v in _reads(op):
            root = _root(v)
            if root in writers and outputs.index(root) not in found and not _covered(root, writers[root]):
                found[outputs.index(root)] = op
        for w, v in _writes(op):
            root = _root(v)
            if root in writers:
                writers[root].append(w if root is v else op)
    return sorted(found.items())


def _units(ops) -> Iterator[Operation]:
    """The ops of a function in the order they run: a nest whole, the ops inside a
    group (or any other op with regions) one by one."""
    for op in ops:
        if op.regions and not isinstance(op, NestOp):
            yield from _units(_inner_ops(op))
        else:
            yield op


def fill_allocs_read_first(fn: func.FuncOp) -> list[str]:
    """Zero-fill, right after its `memref.alloc`, each buffer the function allocates
    (at its top level) that an op reads before the ops ahead of it have written all of
    it: the read saw whatever the allocator's memory held (heap garbage, different from
    run to run). A note on each (for `Executable.explain`)."""
    from aicf.diagnostics import location_of

    allocs = [op for op in fn.body.block.ops if isinstance(op, memref.AllocOp)]
    writers: dict[SSAValue, list[Operation]] = {op.results[0]: [] for op in allocs}
    found: dict[SSAValue, Operation] = {}
    for op in _units(fn.body.block.ops):
        for v in _reads(op):
            root = _root(v)
            if root in writers and root not in found and not _covered(root, writers[root]):
                found[root] = op
        for w, v in _writes(op):
            if v in writers:  # through a view: not proven (the view's indices are not the buffer's)
                writers[v].append(w)
    notes = []
    for alloc in allocs:
        buf = alloc.results[0]
        if buf not in found or (fill := _zero_fill(buf)) is None:
            continue
        fill.location = alloc.location
        fn.body.block.insert_op_after(fill, alloc)
        notes.append(f"the buffer allocated at {location_of(alloc)} is zero-filled first: {location_of(found[buf])} "
                     "reads it before it is written in full")
    return notes
