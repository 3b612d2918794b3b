"""The GPU form of `aicf_loop.gather`: one grid-stride kernel over the output, each
thread computing an output element's source index (the op's wrap-then-clamp rule)
and copying the element.

A gather has no schedule kind: it moves its output's bytes twice and its index
once per element, with nothing to tile or reuse, so the kernel is the elementwise
shape at a fixed block size and the grid that fills the GPU once (`launch_shape`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr, i64
from xdsl.ir import SSAValue

from aicf.dialects import gpu
from aicf.dialects.loop import GatherOp
from aicf.lowering.gpu_schedules import LoweringContext
from aicf.lowering.gpu_schedules.builder import INDEX, KernelBuilder
from aicf.lowering.gpu_schedules.view import element_bytes, num_elements
from aicf.target import GpuTarget

BLOCK = 256


def launch_shape(points: int, target: GpuTarget) -> tuple[int, int]:
    """(grid, block): blocks enough for every point, at most one full wave."""
    block = min(BLOCK, target.max_threads_per_block)
    per_sm = max(1, target.max_threads_per_sm // block)
    return max(1, min(math.ceil(points / block), target.num_sms * per_sm)), block


def _source_index(kb: KernelBuilder, raw: SSAValue, n: int) -> SSAValue:
    """wrap(raw) clamped into [0, n - 1], as an index."""
    if raw.type != i64:
        raw = kb.v(arith.ExtSIOp(raw, i64))
    zero, ext = kb.constant(0, i64), kb.constant(n, i64)
    wrapped = kb.select(kb.v(arith.CmpiOp(raw, zero, "slt")), kb.v(arith.AddiOp(raw, ext)), raw)
    clamped = kb.v(arith.MinSIOp(kb.v(arith.MaxSIOp(wrapped, zero)), kb.constant(n - 1, i64)))
    return kb.v(arith.IndexCastOp(clamped, INDEX))


def lower_gather(module: ModuleOp, fn: func.FuncOp, op: GatherOp, index: int, target: GpuTarget) -> None:
    src_t, idx_t, out_t = (v.type for v in (op.source, op.indices, op.output))
    assert isinstance(src_t, MemRefType) and isinstance(idx_t, MemRefType) and isinstance(out_t, MemRefType)
    points = num_elements(out_t)
    if points:
        lc = LoweringContext(module, op, target, fn)
        grid, block = launch_shape(points, target)
        wide = max(points, num_elements(src_t), num_elements(idx_t)) + grid * block > 2**31 - 1
        kernel = gpu.KernelOp(
            lc.kernel_name(f"{fn.sym_name.data}_gather{index}"),
            [src_t, idx_t, out_t],
            [grid, 1, 1],
            [block, 1, 1],
            index_bitwidth=64 if wide else 32,
            launch_bounds=(block, 1),
        )
        kernel.attributes["aicf.schedule"] = StringAttr(f"gather axis={op.axis_value}: grid-stride, block={block}")
        moved = 2 * points * element_bytes(out_t.get_element_type()) + num_elements(idx_t) * element_bytes(
            idx_t.get_element_type()
        )
        kernel.attributes["aicf.bytes"] = IntegerAttr(moved, i64)
        kernel.attributes["aicf.flops"] = IntegerAttr(0, i64)
        kb = KernelBuilder(kernel.body.block)
        src, idx, out = kernel.args
        a, r = op.axis_value, idx_t.get_num_dims()
        n = src_t.get_shape()[a]
        start = kb.add_i(kb.mul_i(kb.v(gpu.BlockIdOp("x")), block), kb.v(gpu.ThreadIdOp("x")))

        def body(e: SSAValue, _):
            dims = kb.delinearize(e, out_t.get_shape())
            k = _source_index(kb, kb.load(idx, dims[a : a + r]), n)
            kb.store(kb.load(src, [*dims[:a], k, *dims[a + r :]]), out, dims)
            return []

        kb.for_(start, points, grid * block, [], body)
        kb.add(gpu.ReturnOp())
        lc.add_kernel(kernel)
        lc.launch(kernel, [op.source, op.indices, op.output])
    op.detach()
    op.erase()


def lower_gathers(module: ModuleOp, fn: func.FuncOp, target: GpuTarget) -> None:
    for i, op in enumerate([o for o in fn.walk() if isinstance(o, GatherOp)]):
        lower_gather(module, fn, op, i, target)


__all__ = ["lower_gathers", "launch_shape"]
