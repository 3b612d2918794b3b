"""`aicf-swizzle-smem`: give each shared buffer the layout its accesses want.

For every `aicf_gpu.alloc_shared` of a kernel whose layout is still row-major, the
pass evaluates the index of every access to the buffer (`memref.load/store`,
`aicf_gpu.load_vector/store_vector`) for each lane of the first warp (thread ids
from the kernel's block shape, block ids 0, loop counters at their lower bound),
prices the warp access under candidate layouts with the bank-conflict model
(passes/gpu/bank_conflicts.py), and keeps the cheapest:

- row-major (kept on a tie: no change without a gain);
- `#aicf_gpu.padded<interval = row, pad = widest access>`: rows padded by one access
  width; the index function stays affine, so it costs no index instructions, only a
  little memory (offered for static buffers only, since it changes the footprint);
- `#aicf_gpu.swizzle<vec, per_phase, max_phase>` (Triton's parameters): vec a
  multiple of the widest vector access, so vector accesses stay contiguous, and
  vec * max_phase within a row, so the XOR permutes inside the row; no extra memory,
  but an XOR in every access's index (so it loses ties to padding).

Accesses whose index depends on something other than thread ids, constants and
loop counters (a loaded value) are not priced. Before/after, for the transposed
A tile of the tiled matmul (threads store down columns):

    %a = aicf_gpu.alloc_shared : memref<2x8x128xf32, #aicf_gpu.address_space<shared>>
    ->
    %a = aicf_gpu.alloc_shared : memref<2x8x128xf32, #aicf_gpu.padded<interval = 128,
           pad = 4>, #aicf_gpu.address_space<shared>>
(in a dynamic buffer, where padding is not offered: #aicf_gpu.swizzle<vec = 4,
per_phase = 1, max_phase = 8>).

Candidates are priced through their index functions (`gpu.layout_offset`, on NumPy);
`aicf-lower-smem-layouts` (passes/gpu/lower_smem_layouts.py) then generates the chosen
layout's index arithmetic from that same function, and `access_costs` counts the bank
conflicts of the lowered IR per lane, on exactly the ops the emitter prints.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from aicf.dialects import gpu
import numpy as np

from aicf.passes.gpu.bank_conflicts import (
    BANK_BYTES,
    BANKS,
    WARP,
    AccessCost,
    layout_offsets,
    warp_access,
    wavefronts_many,
)

IndexFn = Callable[[int], Sequence[int] | None]


@dataclass
class Choice:
    layout: Attribute
    cost: int  # wavefronts of all priced accesses under `layout`
    baseline: int  # the same under row-major
    table: list[tuple[str, int]] = field(default_factory=list)  # (layout, wavefronts)


def _describe(layout: Attribute) -> str:
    if isinstance(layout, NoneAttr):
        return "row-major"
    from xdsl.printer import Printer
    import io

    s = io.StringIO()
    Printer(stream=s).print_attribute(layout)
    return s.getvalue()


def _price(layout: Attribute, shape: Sequence[int], elem_bytes: int, tables) -> int:
    total = 0
    for vec, (idx, active, weights) in tables.items():
        offs = layout_offsets(layout, idx, shape) * elem_bytes
        total += int((wavefronts_many(offs, active, vec * elem_bytes) * weights).sum())
    return total


def candidate_layouts(
    shape: Sequence[int], widest: int, allow_padding: bool, elem_bytes: int = 4
) -> list[Attribute]:
    """Row-major first, then swizzles by increasing strength, then padding."""
    out: list[Attribute] = [NoneAttr()]
    if len(shape) < 2:
        return out
    cols = shape[-1]
    # vec: the widest access or twice it; max_phase: up to the vec-groups of one
    # 128-byte bank row (more phases than that cannot spread wider); per_phase up to 4
    for vec in (widest, 2 * widest):
        if vec > cols or cols % vec:
            continue
        groups = max(2, (BANKS * BANK_BYTES) // (vec * elem_bytes))
        mp = 2
        while mp <= groups and vec * mp <= cols:
            if cols % (vec * mp) == 0:  # a permutation of each row (the verifier's rule)
                for pp in (1, 2, 4):
                    out.append(gpu.SwizzleLayoutAttr(vec, pp, mp))
            mp *= 2
    if allow_padding:
        out.append(gpu.PaddedLayoutAttr(cols, widest))
    return out


def choose_layout(
    shape: Sequence[int],
    elem_bytes: int,
    accesses: Sequence[tuple[IndexFn, int]],
    allow_padding: bool = True,
) -> Choice:
    """The cheapest layout for a shared buffer of `shape` given its warp accesses
    (index of each lane's first element, elements per access)."""
    widest = max([v for _, v in accesses] or [1])
    widest = 1 << (widest - 1).bit_length()  # a power of two
    counts: dict[tuple, int] = {}
    for f, vec in accesses:
        key = (tuple(f(lane) for lane in range(WARP)), vec)
        counts[key] = counts.get(key, 0) + 1
    return _choose(tuple(shape), elem_bytes, tuple(counts.items()), widest, allow_padding)


def _tables(shape, items):
    """Per access width: (index array (n, 32, rank), active (n, 32), weights (n,))."""
    by_vec: dict[int, list] = {}
    for (table, vec), weight in items:
        by_vec.setdefault(vec, []).append((table, weight))
    out = {}
    rank = len(shape)
    for vec, rows in by_vec.items():
        idx = np.zeros((len(rows), WARP, rank), dtype=np.int64)
        active = np.zeros((len(rows), WARP), dtype=bool)
        for i, (table, _) in enumerate(rows):
            for lane, t in enumerate(table):
                if t is not None:
                    idx[i, lane] = t
                    active[i, lane] = True
        out[vec] = (idx, active, np.array([w for _, w in rows], dtype=np.int64))
    return out


@functools.lru_cache(maxsize=4096)
def _choose(shape, elem_bytes, items, widest, allow_padding) -> Choice:
    cands = candidate_layouts(shape, widest, allow_padding, elem_bytes)
    tables = _tables(shape, items)
    priced = [(l, _price(l, shape, elem_bytes, tables)) for l in cands]
    base = priced[0][1]
    # fewest wavefronts; on a tie, the cheapest index function: row-major, then row
    # padding (still affine: the compiler folds it into immediate offsets), then an
    # XOR swizzle (index instructions on every access: measured 4% of a 4096^3 f32
    # matmul whose A-tile reads went through it, H100 2026-11-22)
    best_l, best_c = min(priced, key=lambda lc: (lc[1], _index_rank(lc[0])))
    return Choice(best_l, best_c, base, [(_describe(l), c) for l, c in priced])


def _index_rank(layout: Attribute) -> int:
    if isinstance(layout, NoneAttr):
        return 0
    return 1 if isinstance(layout, gpu.PaddedLayoutAttr) else 2


# --------------------------------------------------------------------------------------
# Evaluating a kernel's index arithmetic per lane
# --------------------------------------------------------------------------------------

_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: lambda a, b: a // b,
    arith.DivSIOp: lambda a, b: int(a / b),
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.CeilDivUIOp: lambda a, b: -(-a // b),
    arith.RemUIOp: lambda a, b: a % b,
    arith.RemSIOp: lambda a, b: int(math.fmod(a, b)),
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
    arith.ShLIOp: lambda a, b: a << b,
    arith.ShRUIOp: lambda a, b: a >> b,
}


class LaneEvaluator:
    """Integer values of an SSA index for the 32 lanes of warp 0 (None when unknown),
    evaluated for all lanes at once and memoised per value."""

    def __init__(self, kernel: gpu.KernelOp):
        self.block = kernel.block_dims
        self.grid = kernel.grid_dims
        self.memo: dict[SSAValue, tuple[int, ...] | None] = {}

    def thread(self, dim: str) -> tuple[int, ...]:
        bx, by, _ = self.block
        lanes = range(WARP)
        if dim == "x":
            return tuple(l % bx for l in lanes)
        if dim == "y":
            return tuple((l // bx) % by for l in lanes)
        return tuple(l // (bx * by) for l in lanes)

    def lanes(self, v: SSAValue, depth: int = 0) -> tuple[int, ...] | None:
        if v in self.memo:
            return self.memo[v]
        r = self._eval(v, depth) if depth < 200 else None
        self.memo[v] = r
        return r

    def eval(self, v: SSAValue, lane: int) -> int | None:
        r = self.lanes(v)
        return None if r is None else r[lane]

    def _eval(self, v: SSAValue, depth: int) -> tuple[int, ...] | None:
        if isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            if isinstance(parent, scf.ForOp) and v.index == 0:
                return self.lanes(parent.lb, depth + 1)
            return None
        assert isinstance(v, OpResult)
        op = v.op
        if isinstance(op, arith.ConstantOp):
            val = op.value
            return (val.value.data,) * WARP if isinstance(val, IntegerAttr) else None
        if isinstance(op, arith.IndexCastOp):
            return self.lanes(op.input, depth + 1)
        fn = _BINARY.get(type(op))
        if fn is not None:
            a = self.lanes(op.operands[0], depth + 1)
            b = self.lanes(op.operands[1], depth + 1)
            if a is None or b is None:
                return None
            try:
                return tuple(fn(x, y) for x, y in zip(a, b))
            except ZeroDivisionError:
                return None
        if isinstance(op, gpu.ThreadIdOp):
            return self.thread(op.dim)
        if isinstance(op, gpu.LaneIdOp):
            return tuple(range(WARP))
        if isinstance(op, gpu.BlockIdOp):
            return (0,) * WARP
        if isinstance(op, gpu.BlockDimOp):
            return (self.block["xyz".index(op.dim)],) * WARP
        if isinstance(op, gpu.GridDimOp):
            return (self.grid["xyz".index(op.dim)],) * WARP
        return None


def _users_in_order(v: SSAValue) -> list[Operation]:
    users = {use.operation for use in v.uses}
    if len(users) < 2:
        return list(users)
    root = v.owner if isinstance(v, OpResult) else v.owner.parent_op()
    while root is not None and not isinstance(root, gpu.KernelOp) and root.parent_op() is not None:
        root = root.parent_op()
    if root is None:
        return list(users)
    return [o for o in root.walk() if o in users]


def accesses_of(buf: SSAValue, ev: LaneEvaluator) -> list[tuple[IndexFn, int]]:
    """(index of each lane, elements per access) of every priced access to `buf`, in
    program order."""
    out: list[tuple[IndexFn, int]] = []
    for op in _users_in_order(buf):
        if isinstance(op, memref.LoadOp | memref.StoreOp) and op.memref is buf:
            idx, vec = list(op.indices), 1
        elif isinstance(op, gpu.LoadVectorOp) and op.memref is buf:
            idx, vec = list(op.indices), op.result.type.get_shape()[0]
        elif isinstance(op, gpu.StoreVectorOp) and op.memref is buf:
            idx, vec = list(op.indices), op.value.type.get_shape()[0]
        else:
            continue
        cols = [ev.lanes(i) for i in idx]
        if any(c is None for c in cols):
            continue
        table = list(zip(*cols)) if cols else [()] * WARP
        out.append((table.__getitem__, vec))
    return out


def access_costs(buf: SSAValue, ev: LaneEvaluator) -> list[AccessCost]:
    """The bank cost of warp 0's execution of each priced access to the shared buffer
    `buf`, as the IR indexes it: through the index function of the buffer type's
    layout while it has one (before `aicf-lower-smem-layouts`), and after that pass
    at the flat index its arith ops compute, evaluated per lane like any index: the
    very expressions the CUDA emitter prints."""
    t = buf.type
    assert isinstance(t, MemRefType)
    eb = max(1, getattr(t.get_element_type(), "bitwidth", 32) // 8)
    return [warp_access(t.layout, t.get_shape(), eb, f, v) for f, v in accesses_of(buf, ev)]


def assign_layout(op: gpu.AllocSharedOp, explain: bool = False) -> gpu.AllocSharedOp | None:
    """The alloc with the layout its accesses want, or None to keep it as it is."""
    t = op.result.type
    assert isinstance(t, MemRefType)
    if not isinstance(t.layout, NoneAttr) or t.get_num_dims() < 2:
        return None
    kernel = op.parent_op()
    while kernel is not None and not isinstance(kernel, gpu.KernelOp):
        kernel = kernel.parent_op()
    if kernel is None or gpu.FIXED_LAYOUTS_ATTR in kernel.attributes:
        return None
    elt = t.get_element_type()
    eb = getattr(elt, "bitwidth", 32) // 8
    accs = accesses_of(op.result, LaneEvaluator(kernel))
    if not accs:
        return None
    choice = choose_layout(t.get_shape(), eb, accs, allow_padding=op.dynamic_offset is None)
    if explain:
        rest = sorted(choice.table[1:], key=lambda x: x[1])[:4]
        rows = ", ".join(f"{n}: {c}" for n, c in choice.table[:1] + rest)
        print(
            f"aicf-swizzle-smem: @{kernel.kernel_name} {t}: wavefronts {rows} "
            f"-> {_describe(choice.layout)}",
            file=sys.stderr,
        )
    if isinstance(choice.layout, NoneAttr):
        return None
    new_t = MemRefType(elt, t.get_shape(), choice.layout, t.memory_space)
    off = op.dynamic_offset.value.data if op.dynamic_offset is not None else None
    new = gpu.AllocSharedOp(new_t, off)
    new.attributes.update(op.attributes)
    return new


class SwizzleSharedBuffers(RewritePattern):
    def __init__(self, explain: bool):
        self.explain = explain

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.AllocSharedOp, rewriter: PatternRewriter) -> None:
        new = assign_layout(op, self.explain)
        if new is not None:
            rewriter.replace_matched_op(new)


def swizzle_kernel(kernel: gpu.KernelOp, explain: bool = False) -> None:
    """Run the pass on one kernel."""
    for op in [o for o in kernel.walk() if isinstance(o, gpu.AllocSharedOp)]:
        new = assign_layout(op, explain)
        if new is None:
            continue
        block = op.parent_block()
        assert block is not None
        block.insert_op_before(new, op)
        op.result.replace_all_uses_with(new.result)
        block.erase_op(op)


@dataclass(frozen=True)
class SwizzleSmemPass(ModulePass):
    """Assign XOR-swizzle (or padded) layouts to row-major shared buffers from the
    bank conflicts of their accesses; `explain=true` prints the priced layouts."""

    name = "aicf-swizzle-smem"

    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SwizzleSharedBuffers(self.explain), apply_recursively=False).rewrite_module(op)
