"""The cost model `aicf-fuse` decides with: estimated time of a set of kernels.

A group of ops runs as one kernel (an `aicf_tensor.fused` group, or a lone op). Its
estimated time on the target is

    t = launch + (bytes_read + bytes_written) / dram_bandwidth + flops / fp32_flops

- launch: `target.launch_overhead_s`, once per kernel;
- bytes_read: every group input once, its full size (row groups re-read their rows
  from on-chip memory: the GPU lowering keeps a row slice in shared memory/L1);
- bytes_written: every group output once; group-local buffers (per-row reductions)
  stay on chip and cost nothing;
- flops: for every nest of the group's plan (`fusion_domain.GroupDomain.plan`), each
  member op it inlines, once per point of the nest (`aicf.cost.ops.tensor_op_cost` per element). This is
  where recomputation shows: a producer inlined into two nests, or a small operand
  broadcast up to a big domain, is paid for every time.

A merge of groups A and B is taken when it is legal, fits the budget and
`t(A) + t(B) - t(A u B) > 0`: it saves the write of every value that stops leaving
the group, the reads of it, and a launch. Recomputing a producer into a consumer's
group instead (the producer's group keeps it for its other users) is scored the same
way, counting the producer's group as unchanged.

The budget bounds what one kernel may hold, from the target's register file:
`max_inputs` (operands read by one thread: each costs address registers and a load
in flight) and `max_ops` (values a thread keeps live in one body).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.ir import Operation, SSAValue

from aicf.dialects import tensor as t
from aicf.passes.tensor.fusion_domain import GroupDomain, static_shape
from aicf.cost.ops import tensor_op_cost
from aicf.target import CpuTarget, GpuTarget

def nbytes(v: SSAValue) -> int:
    shape = static_shape(v)
    assert shape is not None
    elt = t.element_type(v.type)
    width = getattr(elt, "bitwidth", None) or elt.width.data  # type: ignore[attr-defined]
    return prod(shape) * ((width + 7) // 8)  # i1 is stored in a byte


@dataclass(frozen=True)
class FusionBudget:
    max_inputs: int
    max_ops: int

    @classmethod
    def from_target(cls, target: GpuTarget | CpuTarget) -> FusionBudget:
        if isinstance(target, CpuTarget):
            # a C body that outgrows the registers spills to the stack at L1 speed:
            # the bounds only keep functions (and their compile time) reasonable
            return cls(max_inputs=16, max_ops=64)
        # A body needs about one register per live value plus ~3 per input (a 64-bit
        # address and the loaded element); keep a quarter of the per-thread maximum
        # for them so tiles and indices have room and occupancy stays up.
        regs = target.max_registers_per_thread // 4
        return cls(max_inputs=regs // 4, max_ops=regs)


@dataclass(frozen=True)
class Cost:
    kernels: int
    bytes_read: int
    bytes_written: int
    flops: int

    def seconds(self, target: GpuTarget | CpuTarget) -> float:
        return (
            self.kernels * target.launch_overhead_s
            + (self.bytes_read + self.bytes_written) / target.dram_bandwidth
            + self.flops / target.fp32_flops
        )

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.kernels + other.kernels,
            self.bytes_read + other.bytes_read,
            self.bytes_written + other.bytes_written,
            self.flops + other.flops,
        )

    def __str__(self) -> str:
        return (
            f"{self.kernels} kernel(s), {self.bytes_read} B read, "
            f"{self.bytes_written} B written, {self.flops} flop"
        )


@dataclass(frozen=True)
class CostModel:
    target: GpuTarget | CpuTarget

    def budget(self) -> FusionBudget:
        return FusionBudget.from_target(self.target)

    def group_cost(
        self,
        dom: GroupDomain,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
    ) -> Cost:
        flops = 0
        for nest in dom.plan():
            points = dom.nest_points(nest)
            for op in dom.inlined(nest):
                flops += points * tensor_op_cost(op.name)
        return Cost(
            kernels=1,
            bytes_read=sum(nbytes(v) for v in inputs),
            bytes_written=sum(nbytes(v) for v in outputs),
            flops=flops,
        )

    def op_cost(self, op: Operation) -> Cost:
        """One op run alone (a lone op, or what a group would cost unfused)."""
        elements = max((prod(static_shape(v) or ()) for v in op.operands), default=1)
        elements = max(elements, prod(static_shape(op.results[0]) or ()))
        return Cost(
            kernels=1,
            bytes_read=sum(nbytes(v) for v in op.operands),
            bytes_written=sum(nbytes(v) for v in op.results),
            flops=elements * tensor_op_cost(op.name),
        )

    def seconds(self, cost: Cost) -> float:
        return cost.seconds(self.target)
