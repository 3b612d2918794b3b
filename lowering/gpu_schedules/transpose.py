"""The tiled transpose schedule: parallel-only nests where an input's contiguous dim
is not the outputs' contiguous dim (a permutation after the view collapse, batched
ones too, with any elementwise body around it: `neg(transpose(x))`, `x.T + y`).

Two domain dims carry the tile: the *load dim* (the staged inputs' innermost,
contiguous dim) and the *store dim* (the outputs' innermost dim); the other dims
are batch dims, one batch entry per blockIdx.z. A block owns a tile_i x tile_o tile
of (load dim, store dim):

- phase 1: threads take consecutive `vec_in`-vectors along the load dim (coalesced
  reads of each staged input) and write them to a shared buffer [tile_o][tile_i]
  of the input's element type;
- barrier;
- phase 2: threads take consecutive `vec_out` groups along the store dim, read the
  staged values down a column of the buffer, read the other inputs (contiguous
  along the store dim, or broadcast) straight from global memory, run the body
  and store the outputs coalesced.

The column reads of phase 2 would hit one bank per row; the buffer's layout is set
from the schedule's `smem` through the layout encodings: `padded` (rows padded by
one access) or `swizzle` (an XOR over access groups), which the emitter turns into
index functions. Edges that are not tile multiples are guarded per access (a vector
never straddles the edge: the planner offers a vector width only where the extent
divides by it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, StringAttr, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr

from aicf.dialects import gpu
from aicf.dialects.schedule import Schedule
from aicf.target import GpuTarget

from .builder import KernelBuilder
from .context import LoweringContext
from .per_output import body_lanes, load_lanes, store_lanes
from .view import VECTOR, NestView, access_class, annotate, element_bytes, parallel_only, prod, strides_of, uses_64bit_index



@dataclass(frozen=True)
class Roles:
    load_dim: int  # the staged inputs' contiguous dim (tile_i runs along it)
    store_dim: int  # the outputs' contiguous dim (tile_o runs along it)
    batch: tuple[int, ...]  # the other domain dims
    staged: tuple[int, ...]  # inputs read through shared memory


def _innermost_dim(o) -> int | None:
    """The domain dim an operand's contiguous (stride-1) index walks, if a plain dim."""
    if not o.map.results:
        return None
    last = o.map.results[-1]
    st = strides_of(o.type)
    if not isinstance(last, AffineDimExpr) or st is None or st[-1] != 1:
        return None
    return last.position


def analyze(view: NestView) -> Roles | str:
    """The tile's dims and the staged inputs, or why the nest is not a transpose."""
    if not parallel_only(view):
        return "not parallel-only (a reduction)"
    if not view.outputs or not view.inputs:
        return "no input or no output"
    if 0 in view.extents:
        return "an empty domain: nothing to move"
    outs = {_innermost_dim(o) for o in view.outputs}
    if len(outs) != 1 or None in outs:
        return "the outputs are not all contiguous along one domain dim"
    do = outs.pop()
    assert do is not None
    cands: dict[int, list[int]] = {}
    for i, o in enumerate(view.inputs):
        d = _innermost_dim(o)
        # staged: contiguous along another dim and walking the store dim too (an input
        # that ignores the store dim is a broadcast, read in place and cached)
        if d is not None and d != do and do in o.map.used_dims():
            cands.setdefault(d, []).append(i)
    if not cands:
        return "every input is read along the outputs' contiguous dim (or broadcast): no transpose"

    def bytes_of(d: int) -> int:
        return sum(prod(view.inputs[i].type.get_shape()) * element_bytes(view.inputs[i].type.get_element_type())
                   for i in cands[d])

    di = max(cands, key=bytes_of)
    if view.extents[di] == 1 or view.extents[do] == 1:
        return f"the transposed dims have extents {view.extents[di]} and {view.extents[do]}: a copy"
    batch = tuple(d for d in range(len(view.extents)) if d not in (di, do))
    return Roles(di, do, batch, tuple(cands[di]))


def legal_vec_in(view: NestView, r: Roles, v: int) -> bool:
    """Every staged input reads `v` contiguous, aligned elements along the load dim."""
    return v == 1 or (view.extents[r.load_dim] % v == 0 and all(
        access_class(view.inputs[i], r.load_dim, v) == VECTOR for i in r.staged))


def legal_vec_out(view: NestView, r: Roles, v: int) -> bool:
    """Every output is written `v` contiguous, aligned elements along the store dim."""
    return v == 1 or (view.extents[r.store_dim] % v == 0 and all(
        access_class(o, r.store_dim, v) == VECTOR for o in view.outputs))


MAX_PER_THREAD = 32  # elements a thread holds before the barrier (registers: ptxas -v)


def check(view: NestView, r: Roles, p: dict, t: GpuTarget) -> str | None:
    """Why a parameter point cannot run on this nest (None: it can)."""
    ti, to, th, vi, vo = p["tile_i"], p["tile_o"], p["threads"], p["vec_in"], p["vec_out"]
    if th > t.max_threads_per_block or th % t.warp_size:
        return f"threads {th}: a multiple of {t.warp_size} up to {t.max_threads_per_block}"
    if ti % vi or to % vo:
        return f"tile {ti}x{to} does not divide by the vectors {vi}/{vo}"
    if (ti * to) % (vi * th) or (ti * to) % (vo * th):
        return f"a {ti}x{to} tile does not split evenly over {th} threads"
    if ti * to > MAX_PER_THREAD * th:
        return f"a {ti}x{to} tile over {th} threads holds more than {MAX_PER_THREAD} elements a thread"
    smem = sum(to * (ti + vi) * _eb(view.inputs[i]) for i in r.staged)
    if smem > t.smem_per_block_default:
        return f"{smem} bytes of shared tiles > the {t.smem_per_block_default} a block holds statically"
    widest = max(_staged_bytes(view, r), *(_eb(o) for o in view.outputs))
    if max(vi, vo) * widest > 16:  # f64 vec 4 was priced as a 32-byte access and raised
        return f"vectors {vi}/{vo} of {widest}-byte elements: an access moves at most 16 bytes"
    if not legal_vec_in(view, r, vi):
        return f"vec_in {vi} is not a contiguous aligned access of every staged input"
    if not legal_vec_out(view, r, vo):
        return f"vec_out {vo} is not a contiguous aligned access of every output"
    if p["smem"] == "swizzle" and swizzle_layout(ti, vi, _staged_bytes(view, r)) is None:
        return f"no XOR swizzle for a row of {ti} elements in groups of {vi}"
    if math.ceil(view.extents[r.load_dim] / ti) > t.max_grid_y:
        return f"{math.ceil(view.extents[r.load_dim] / ti)} tiles along the load dim > the grid's y limit"
    nb = prod(view.extents[d] for d in r.batch)
    if nb > t.max_grid_z:
        return f"batch {nb} > the grid's z limit {t.max_grid_z}"
    return None


def _eb(o) -> int:
    return element_bytes(o.type.get_element_type())


def _staged_bytes(view: NestView, r: Roles) -> int:
    return max(_eb(view.inputs[i]) for i in r.staged)


def swizzle_layout(tile_i: int, vec: int, elem_bytes: int) -> gpu.SwizzleLayoutAttr | None:
    """The XOR swizzle that spreads a column of `vec`-groups over the banks of a
    128-byte row: phases up to the groups of a row and of a bank row."""
    groups = min(tile_i // vec, max(1, 128 // (vec * elem_bytes)))
    mp = 1 << (groups.bit_length() - 1) if groups >= 1 else 1
    return gpu.SwizzleLayoutAttr(vec, 1, mp) if mp >= 2 else None


def smem_layout(kind: str, tile_i: int, vec: int, elem_bytes: int) -> Attribute:
    if kind == "padded":
        # one access of padding keeps vector stores aligned
        return gpu.PaddedLayoutAttr(tile_i, vec)
    layout = swizzle_layout(tile_i, vec, elem_bytes)
    assert layout is not None
    return layout


def build(view: NestView, s: Schedule, lc: LoweringContext) -> None:
    r = analyze(view)
    if isinstance(r, str):
        raise NotImplementedError(f"gpu.transpose_tiled needs a transposing nest: {r}")
    p = dict(s.params)
    bad = check(view, r, p, lc.target)
    if bad:
        raise NotImplementedError(f"gpu.transpose_tiled: {bad}")
    E = view.extents
    ti, to, th, vi, vo = p["tile_i"], p["tile_o"], p["threads"], p["vec_in"], p["vec_out"]
    Ei, Eo = E[r.load_dim], E[r.store_dim]
    nb = prod(E[d] for d in r.batch)
    params = [*view.inputs, *view.outputs]
    kernel = gpu.KernelOp(
        lc.kernel_name(view.name),
        [o.type for o in params],
        [math.ceil(Eo / to), math.ceil(Ei / ti), nb],
        [th, 1, 1],
        index_bitwidth=64 if uses_64bit_index(view, extra=ti * to) else 32,
        launch_bounds=(th, 1),
    )
    kernel.attributes["aicf.schedule"] = StringAttr(
        s.describe() + ("; " + "; ".join(view.notes) if view.notes else ""))
    kernel.attributes[gpu.FIXED_LAYOUTS_ATTR] = UnitAttr()  # the schedule chose them
    annotate(kernel, view, params)
    kb = KernelBuilder(kernel.body.block)
    args = list(kernel.args)
    in_args, out_args = args[: len(view.inputs)], args[len(view.inputs):]
    tid = kb.v(gpu.ThreadIdOp("x"))
    o0 = kb.mul_i(kb.v(gpu.BlockIdOp("x")), to)
    i0 = kb.mul_i(kb.v(gpu.BlockIdOp("y")), ti)
    dims: list[SSAValue | None] = [None] * len(E)
    if r.batch:
        bz = kb.v(gpu.BlockIdOp("z"))
        for d, val in zip(r.batch, kb.delinearize(bz, [E[d] for d in r.batch])):
            dims[d] = val
    tiles = {}
    for i in r.staged:
        t = view.inputs[i].type
        elt = t.get_element_type()
        layout = smem_layout(p["smem"], ti, vi, _eb(view.inputs[i]))
        tiles[i] = kb.v(gpu.AllocSharedOp(MemRefType(elt, [to, ti], layout, gpu.shared_space())))

    def guarded(li: SSAValue, lo: SSAValue, body) -> list[SSAValue | None]:
        """The domain point at tile offsets (li, lo); body runs only inside the domain."""
        gi, go = kb.add_i(i0, li), kb.add_i(o0, lo)
        point = list(dims)
        point[r.load_dim], point[r.store_dim] = gi, go
        conds = ([kb.lt(gi, Ei)] if Ei % ti else []) + ([kb.lt(go, Eo)] if Eo % to else [])
        if not conds:
            body(point)
        else:
            cond = conds[0] if len(conds) == 1 else kb.v(arith.AndIOp(conds[0], conds[1]))
            kb.if_(cond, lambda: body(point) or [])
        return point

    # phase 1: coalesced along the load dim, into the tile
    per_row = ti // vi
    for it in range(ti * to // (vi * th)):
        lin = kb.add_i(tid, it * th)
        li, lo = kb.mul_i(kb.rem_i(lin, per_row), vi), kb.div_i(lin, per_row)

        def stage(point, li=li, lo=lo):
            for i, buf in tiles.items():
                o = view.inputs[i]
                idx = [kb.affine(e, point) for e in o.map.results]  # type: ignore[arg-type]
                if vi > 1:
                    kb.store_vector(kb.load_vector(in_args[i], idx, vi), buf, [lo, li])
                else:
                    kb.store(kb.load(in_args[i], idx), buf, [lo, li])

        guarded(li, lo, stage)
    kb.add(gpu.BarrierOp())

    # phase 2: coalesced along the store dim, out of the tile
    per_row = to // vo
    for it in range(ti * to // (vo * th)):
        lin = kb.add_i(tid, it * th)
        lo, li = kb.mul_i(kb.rem_i(lin, per_row), vo), kb.div_i(lin, per_row)

        def emit(point, li=li, lo=lo):
            vals = []
            for i, o in enumerate(view.inputs):
                if i in tiles:
                    vals.append([kb.load(tiles[i], [kb.add_i(lo, j), li]) for j in range(vo)])
                else:
                    vals += load_lanes(kb, [o], [in_args[i]], point, r.store_dim, vo)
            ys = body_lanes(kb, view, vals, vo)
            for k, (o, a) in enumerate(zip(view.outputs, out_args)):
                store_lanes(kb, o, a, point, r.store_dim, ys[k])

        guarded(li, lo, emit)
    kb.add(gpu.ReturnOp())
    lc.add_kernel(kernel)
    lc.launch(kernel, [o.host for o in params])
