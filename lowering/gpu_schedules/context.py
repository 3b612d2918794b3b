"""What a schedule writes into: kernels go into the module, host ops (workspace
allocation, launches, deallocation) go before the nest being lowered."""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Operation, SSAValue

from aicf.dialects import gpu
from aicf.target import GpuTarget


class LoweringContext:
    def __init__(self, module: ModuleOp, anchor: Operation, target: GpuTarget, kernel_anchor: Operation):
        self.module = module
        self.anchor = anchor  # host ops are inserted before this op
        self.target = target
        self.kernel_anchor = kernel_anchor  # kernels are inserted before this op
        self._frees: list[SSAValue] = []
        self._kernels: list[gpu.KernelOp] = []
        self._used_names = {
            op.sym_name.data for op in module.ops if hasattr(op, "sym_name") and op.sym_name is not None
        }

    def kernel_name(self, base: str) -> str:
        name, k = base, 0
        while name in self._used_names:
            k += 1
            name = f"{base}_{k}"
        self._used_names.add(name)
        return name

    def add_kernel(self, kernel: gpu.KernelOp) -> None:
        parent = self.kernel_anchor.parent_block()
        assert parent is not None
        parent.insert_op_before(kernel, self.kernel_anchor)
        self._kernels.append(kernel)

    def host(self, op: Operation) -> Operation:
        parent = self.anchor.parent_block()
        assert parent is not None
        parent.insert_op_before(op, self.anchor)
        _locate(op, self.anchor.location)
        return op

    def workspace(self, type: MemRefType) -> SSAValue:
        """A scratch buffer for this nest's kernels, from the runtime's pool; freed
        after the nest's last launch."""
        op = memref.AllocOp.get(type.get_element_type(), shape=type.get_shape())
        op.attributes["aicf_gpu.workspace"] = _unit()
        self.host(op)
        self._frees.append(op.memref)
        return op.memref

    def launch(self, kernel: gpu.KernelOp, args: list[SSAValue]) -> None:
        self.host(gpu.LaunchOp.of(kernel, args))

    def finish(self) -> None:
        for v in self._frees:
            self.host(memref.DeallocOp.get(v))
        self._frees = []
        for k in self._kernels:  # built after add_kernel, some of them
            _locate(k, self.anchor.location)
        self._kernels = []


def _unit() -> Attribute:
    from xdsl.dialects.builtin import UnitAttr

    return UnitAttr()


def _locate(op: Operation, loc: Attribute) -> None:
    """The ops lowered from a nest or group carry its location (as MLIR's lowerings
    do), so a diagnostic about a kernel points at the source line it came from."""
    for o in op.walk():
        if isinstance(o.location, UnknownLoc):
            o.location = loc
