"""`aicf-swizzle-smem`: give each shared buffer the layout its accesses want.

For every `aicf_gpu.alloc_shared` of a kernel whose layout is still row-major, the
pass evaluates the index of every access to the buffer (`memref.load/store`,
`aicf_gpu.load_vector/store_vector`) for each lane of the first warp (thread ids
from the kernel's block shape, block ids 0, loop counters at their lower bound),
prices the warp access under candidate layouts with the bank-conflict model
(passes/gpu/bank_conflicts.py), and keeps the cheapest:

- row-major (kept on a tie: no change without a gain);
- `#aicf_gpu.swizzle<vec, per_phase, max_phase>` (Triton's parameters): vec a
  multiple of the widest vector access, so vector accesses stay contiguous, and
  vec * max_phase within a row, so the XOR permutes inside the row;
- `#aicf_gpu.padded<interval = row, pad = widest access>` (costs memory; only for
  static buffers, since it changes the footprint).

Accesses whose index depends on something other than thread ids, constants and
loop counters (a loaded value) are not priced. Before/after, for the transposed
A tile of the tiled matmul (threads store down columns):

    %a = aicf_gpu.alloc_shared : memref<2x8x128xf32, #aicf_gpu.address_space<shared>>
    ->
    %a = aicf_gpu.alloc_shared : memref<2x8x128xf32, #aicf_gpu.swizzle<vec = 4,
           per_phase = 1, max_phase = 8>, #aicf_gpu.address_space<shared>>
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Attribute, BlockArgument, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from aicf.dialects import gpu
from aicf.passes.gpu.bank_conflicts import WARP, access_cost, layout_offset

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


def _price(layout: Attribute, shape: Sequence[int], elem_bytes: int, accesses) -> int:
    total = 0
    for f, vec in accesses:
        addrs = []
        for lane in range(WARP):
            idx = f(lane)
            addrs.append(None if idx is None else layout_offset(layout, idx, shape) * elem_bytes)
        total += access_cost(addrs, vec * elem_bytes).wavefronts
    return total


def candidate_layouts(shape: Sequence[int], widest: int, allow_padding: bool) -> list[Attribute]:
    """Row-major first, then swizzles by increasing strength, then padding."""
    out: list[Attribute] = [NoneAttr()]
    if len(shape) < 2:
        return out
    cols = shape[-1]
    vec = widest
    while vec <= cols:
        if cols % vec == 0:
            mp = 2
            while vec * mp <= cols:
                for pp in (1, 2, 4, 8):
                    out.append(gpu.SwizzleLayoutAttr(vec, pp, mp))
                mp *= 2
        vec *= 2
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
    cands = candidate_layouts(shape, widest, allow_padding)
    priced = [(l, _price(l, shape, elem_bytes, accesses)) for l in cands]
    base = priced[0][1]
    best_l, best_c = priced[0]
    for l, c in priced[1:]:
        if c < best_c:  # strictly cheaper: the earlier (simpler) layout wins ties
            best_l, best_c = l, c
    return Choice(best_l, best_c, base, [(_describe(l), c) for l, c in priced])


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
    """Integer value of an SSA index for a lane of warp 0 (None when unknown)."""

    def __init__(self, kernel: gpu.KernelOp):
        self.block = kernel.block_dims
        self.grid = kernel.grid_dims

    def thread(self, lane: int, dim: str) -> int:
        bx, by, _ = self.block
        if dim == "x":
            return lane % bx
        if dim == "y":
            return (lane // bx) % by
        return lane // (bx * by)

    def eval(self, v: SSAValue, lane: int, depth: int = 0) -> int | None:
        if depth > 200:
            return None
        if isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            if isinstance(parent, scf.ForOp) and v.index == 0:
                return self.eval(parent.lb, lane, depth + 1)
            return None
        assert isinstance(v, OpResult)
        op = v.op
        if isinstance(op, arith.ConstantOp):
            val = op.value
            return val.value.data if isinstance(val, IntegerAttr) else None
        if isinstance(op, arith.IndexCastOp):
            return self.eval(op.input, lane, depth + 1)
        for cls, fn in _BINARY.items():
            if isinstance(op, cls):
                a = self.eval(op.operands[0], lane, depth + 1)
                b = self.eval(op.operands[1], lane, depth + 1)
                if a is None or b is None:
                    return None
                try:
                    return fn(a, b)
                except ZeroDivisionError:
                    return None
        if isinstance(op, gpu.ThreadIdOp):
            return self.thread(lane, op.dim)
        if isinstance(op, gpu.LaneIdOp):
            return lane
        if isinstance(op, gpu.BlockIdOp):
            return 0
        if isinstance(op, gpu.BlockDimOp):
            return self.block["xyz".index(op.dim)]
        if isinstance(op, gpu.GridDimOp):
            return self.grid["xyz".index(op.dim)]
        return None


def accesses_of(buf: SSAValue, ev: LaneEvaluator) -> list[tuple[IndexFn, int]]:
    """(index of each lane, elements per access) of every priced access to `buf`."""
    out: list[tuple[IndexFn, int]] = []
    for use in buf.uses:
        op = use.operation
        if isinstance(op, memref.LoadOp | memref.StoreOp) and op.memref is buf:
            idx, vec = list(op.indices), 1
        elif isinstance(op, gpu.LoadVectorOp) and op.memref is buf:
            idx, vec = list(op.indices), op.result.type.get_shape()[0]
        elif isinstance(op, gpu.StoreVectorOp) and op.memref is buf:
            idx, vec = list(op.indices), op.value.type.get_shape()[0]
        else:
            continue
        table = []
        for lane in range(WARP):
            vals = [ev.eval(i, lane) for i in idx]
            table.append(None if any(x is None for x in vals) else tuple(vals))
        if all(t is None for t in table):
            continue
        out.append((lambda lane, table=table: table[lane], vec))
    return out


class SwizzleSharedBuffers(RewritePattern):
    def __init__(self, explain: bool):
        self.explain = explain

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.AllocSharedOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        if not isinstance(t.layout, NoneAttr) or t.get_num_dims() < 2:
            return
        kernel = op.parent_op()
        while kernel is not None and not isinstance(kernel, gpu.KernelOp):
            kernel = kernel.parent_op()
        if kernel is None:
            return
        elt = t.get_element_type()
        eb = getattr(elt, "bitwidth", 32) // 8
        accs = accesses_of(op.result, LaneEvaluator(kernel))
        if not accs:
            return
        choice = choose_layout(t.get_shape(), eb, accs, allow_padding=op.dynamic_offset is None)
        if self.explain:
            rows = ", ".join(f"{n}: {c}" for n, c in choice.table[:1] + sorted(choice.table[1:], key=lambda x: x[1])[:4])
            print(
                f"aicf-swizzle-smem: @{kernel.kernel_name} {t}: {rows} -> {_describe(choice.layout)}",
                file=sys.stderr,
            )
        if isinstance(choice.layout, NoneAttr):
            return
        new_t = MemRefType(elt, t.get_shape(), choice.layout, t.memory_space)
        off = op.dynamic_offset.value.data if op.dynamic_offset is not None else None
        new = gpu.AllocSharedOp(new_t, off)
        new.attributes.update(op.attributes)
        rewriter.replace_matched_op(new)


@dataclass(frozen=True)
class SwizzleSmemPass(ModulePass):
    """Assign XOR-swizzle (or padded) layouts to row-major shared buffers from the
    bank conflicts of their accesses; `explain=true` prints the priced layouts."""

    name = "aicf-swizzle-smem"

    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SwizzleSharedBuffers(self.explain), apply_recursively=False).rewrite_module(op)
