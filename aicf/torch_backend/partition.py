"""An ATen graph split into what aicf compiles and what torch runs: the operator
support test (with the reason for a no), each partition traced into aicf_tensor IR
and compiled, and the module that calls it with tensors through DLPack."""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from aicf.errors import AicfError
from aicf.torch_backend.aten import (ATEN, BOOL_ONLY, COMPARED_IN, CREATION, OPMATH_SCALAR, PROMOTED_FROM, dtype_name,
                                     torch_cast)

if TYPE_CHECKING:
    import torch

    from aicf.torch_backend import Report


def op_name(node) -> str:
    if getattr(node.target, "__module__", None) == "_operator":  # arithmetic on sizes
        return f"operator.{node.target.__name__}"
    return str(node.target)


def _tensors(value: Any) -> list:
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tensors(v)]
    return [value] if hasattr(value, "dtype") and hasattr(value, "shape") else []


def _value_problem(value: Any) -> str | None:
    """Why aicf cannot hold a value the graph computes or takes, if it cannot."""
    if type(value).__name__ in ("SymInt", "SymFloat", "SymBool"):
        # a size or Python number made symbolic (dynamic=True, or a recompile for a new
        # value): the partition would take it as an input, which aicf has no spec for
        return "a symbolic scalar (compile with dynamic=False)"
    for t in _tensors(value):
        if dtype_name(t.dtype) is None:
            return f"dtype {t.dtype}"
        if not all(isinstance(s, int) for s in t.shape):
            return "a dynamic shape (compile with dynamic=False)"
        if t.device.type not in ("cpu", "cuda"):
            return f"device {t.device}"
    return None


def unsupported_reason(node) -> str | None:
    """None when aicf compiles `node`; else why not (for the log line)."""
    if node.target is operator.getitem:
        return unsupported_reason(node.args[0])
    if op_name(node) not in ATEN:
        return _value_problem(node.meta.get("val")) or "no aicf lowering"
    values = [node.meta.get("val")] + [a.meta.get("val") for a in node.all_input_nodes]
    for v in values:
        if v is None:
            return "no shape information"
        if (problem := _value_problem(v)) is not None:
            return problem
    if op_name(node) in BOOL_ONLY and any(str(t.dtype) != "torch.bool" for v in values for t in _tensors(v)):
        return "bitwise operator on integers (aicf has it on bools only)"
    # (a 0-d cpu tensor meets cuda tensors in torch as a number does)
    devices = {str(t.device) for v in values for t in _tensors(v) if t.ndim or t.device.type != "cpu"}
    if len(devices) > 1:
        # x.to("cuda"): a partition runs on its inputs' device, so the copy would stay
        # where it was
        return f"moves a tensor between devices ({', '.join(sorted(devices))})"
    return None


def _support(report: Report):
    from torch.fx.passes.operator_support import OperatorSupportBase

    class AicfSupport(OperatorSupportBase):
        def is_node_supported(self, submodules, node) -> bool:
            if node.op != "call_function":
                return False
            why = unsupported_reason(node)
            if why is not None and node.target is not operator.getitem:
                report.fallback[op_name(node)] = why
            return why is None

    return AicfSupport()


def computed_in(args: Sequence[Any], first: int, common: str | None, every: bool = False) -> list:
    """`args` with each integer or bool tensor (`every`: each tensor of another dtype)
    from index `first` on converted to the float dtype `common` torch converts the
    operands to (aten.PROMOTED_FROM, COMPARED_IN): int 2049 times or equal to an f16
    tensor is 2048 first, as in torch."""
    from aicf.frontend.tensor import Tensor

    if common not in ("f16", "bf16", "f32", "f64"):
        return list(args)
    return [torch_cast(a, common) if i >= first and isinstance(a, Tensor) and a.dtype != common
            and (every or a.dtype in ("i1", "i32", "i64")) else a for i, a in enumerate(args)]  # fmt: skip


def _is_0d(value: Any) -> bool:
    from aicf.frontend.tensor import Tensor

    return isinstance(value, Tensor) and value.ndim == 0


def trace_partition(gm: torch.fx.GraphModule, inputs: Sequence[Any]):
    """The partition's graph as a function of aicf tensors, checking each result's
    shape and dtype against the one torch recorded (a cast where only the integer
    width or weak typing differs)."""
    import torch

    from aicf import ops
    from aicf.frontend.tensor import Tensor

    def as_recorded(value, val, node):
        if isinstance(value, tuple | list):
            return type(value)(as_recorded(v, m, node) for v, m in zip(value, val))
        if not isinstance(value, Tensor):
            return value
        want = dtype_name(val.dtype)
        if value.dtype != want:
            value = torch_cast(value, want)
        if tuple(value.shape) != tuple(val.shape):
            raise AicfError(f"{op_name(node)} gave shape {value.shape} where torch has {tuple(val.shape)}")
        return value

    def fn(*tensors):
        env: dict[Any, Any] = {}
        args = iter(tensors)

        def load(a):
            if isinstance(a, tuple | list):
                return type(a)(load(x) for x in a)
            if isinstance(a, dict):  # keyword arguments (SDPA's attn_mask) are nodes too
                return {k: load(x) for k, x in a.items()}
            return env[a] if hasattr(a, "op") else a

        for node in gm.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(args)
            elif node.op == "get_attr":
                value = getattr(gm, node.target).detach().cpu().numpy()
                env[node] = ops.constant(value, dtype_name(node.meta["val"].dtype))
            elif node.op == "call_function":
                if node.target is operator.getitem:
                    env[node] = env[node.args[0]][node.args[1]]
                    continue
                name, val = op_name(node), node.meta["val"]
                call_args, call_kwargs = load(node.args), load(node.kwargs)
                if name in PROMOTED_FROM:
                    common = dtype_name(val.dtype)
                    call_args = computed_in(call_args, PROMOTED_FROM[name], common, every=True)
                    if name in OPMATH_SCALAR and common in ("f16", "bf16") and _is_0d(load(node.args[1])):
                        call_args[1] = load(node.args[1])  # computed in f32 (see OPMATH_SCALAR)
                        if call_args[1].dtype != "f32":
                            call_args[1] = ops.cast(call_args[1], "f32")
                elif name in COMPARED_IN:  # a bool result: the operands' common dtype
                    common = torch.result_type(*[getattr(a, "meta", {}).get("val", a) for a in node.args[:2]])
                    call_args = computed_in(call_args, 0, dtype_name(common), every=True)
                elif name in CREATION and call_kwargs.get("dtype") is None:
                    call_kwargs = {**call_kwargs, "dtype": val.dtype}
                out = ATEN[name](*call_args, **call_kwargs)
                env[node] = as_recorded(out, val, node)
            elif node.op == "output":
                out = load(node.args[0])
                return tuple(out) if isinstance(out, tuple | list) else out
        raise AicfError("the partition's graph has no output")

    return fn


class PartitionCall:
    """Runs a compiled partition: tensors in and out through DLPack, no copies (a
    non-contiguous input is made contiguous first).

    On the GPU the outputs are torch's own (torch.empty, from its caching allocator)
    and the program writes them: a model called in a loop gets the same blocks back
    each time, so the program replays one CUDA graph keyed on every pointer, with
    nothing to copy (left to allocate its outputs itself, a replayed graph writes
    outputs of its own and copies them out: GPT-2 small's 823 MB of logits, 0.54 ms a
    call on the H100)."""

    def __init__(self, exe, multiple: bool, aliases: Sequence[tuple] = ()):
        from aicf.lru import LruCache

        self.exe = exe
        self.multiple = multiple
        self.aliases = tuple(aliases)  # see output_aliases
        self.out_specs = _torch_out_specs(exe)
        # CuPy views of the input tensors met before (a model's weights, every call):
        # torch's __dlpack__ costs ~30 us a tensor (its stream and device queries), 5 ms
        # a GPT-2 forward of 150 weights, as long as the forward's kernels. The views
        # own nothing (a view that held its tensor would pin every temporary input, and
        # the allocator could then never hand the same blocks back): each is used only
        # during a call whose caller holds the tensor, and a key (pointer, dtype, shape,
        # strides, device) gives the same view whichever tensor now lives there.
        self._views = LruCache(max(64, 4 * len(exe.inputs)))

    def __call__(self, *args):
        import torch

        ins = [a.detach().contiguous() for a in args]
        if self.out_specs is not None and ins and all(a.is_cuda for a in ins):
            import cupy

            dev = ins[0].device
            outs = tuple(torch.empty(shape, dtype=dt, device=dev) for shape, dt in self.out_specs)
            # on torch's current stream: the inputs were made there and torch reads the
            # outputs there (and its allocator reuses their blocks in that order)
            with cupy.cuda.Device(dev.index or 0), cupy.cuda.ExternalStream(torch.cuda.current_stream(dev).cuda_stream):
                self.exe.call_into([self._view(a, cupy) for a in ins], outs)
            outs = self._alias(outs, args)
            return outs if self.multiple else outs[0]
        results = self.exe(*ins)
        results = results if isinstance(results, tuple) else (results,)
        out = tuple(
            torch.from_numpy(np.asarray(r)) if isinstance(r, np.ndarray | np.generic) else torch.from_dlpack(r)
            for r in results
        )
        out = self._alias(out, args)
        return out if self.multiple else out[0]

    def _alias(self, outs: tuple, args: tuple) -> tuple:
        """The outputs that are views in torch's graph as views again (of the output or
        input they view), so that writing one shows in the other as in eager."""
        if not self.aliases:
            return outs
        outs = list(outs)
        for i, kind, k, size, stride, offset in self.aliases:
            base = outs[k] if kind == "output" else args[k]
            outs[i] = base.as_strided(size, stride, offset)
        return tuple(outs)


    def _view(self, t, cupy):
        """`t` as a CuPy array that does not own its memory (cached, see __init__);
        dtypes CuPy has none for (bf16) and empty tensors go to call_into as the
        tensor (DLPack there)."""
        dt = _numpy_dtype(t.dtype)
        if dt is None or t.numel() == 0:
            return t
        key = (t.data_ptr(), t.dtype, tuple(t.shape), t.stride(), t.device.index)
        v = self._views.get(key)
        if v is None:
            itemsize = np.dtype(dt).itemsize
            span = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
            mem = cupy.cuda.UnownedMemory(t.data_ptr(), span * itemsize, None, t.device.index or 0)
            v = cupy.ndarray(tuple(t.shape), dt, cupy.cuda.MemoryPointer(mem, 0),
                             tuple(st * itemsize for st in t.stride()))
            self._views[key] = v
        return v


@functools.cache
def _numpy_dtype(dtype) -> np.dtype | None:
    """The NumPy/CuPy dtype of a torch dtype aicf exchanges with torch (aten's
    TORCH_DTYPES; None for bf16, which CuPy has no dtype for)."""
    name = str(dtype).removeprefix("torch.")
    return np.dtype(name) if dtype_name(dtype) is not None and name != "bfloat16" else None


def _torch_out_specs(exe) -> list | None:
    """(shape, torch dtype) of a cuda program's outputs, None where the caller should
    not allocate them (the cpu target; a bf16 result, which crosses DLPack as uint16
    bits)."""
    import torch

    if getattr(exe, "target", None) != "cuda" or not getattr(exe, "outputs", None):
        return None
    specs = []
    for o in exe.outputs:
        dt = getattr(torch, np.dtype(o.dtype).name, None)  # float16 -> torch.float16, ...
        if o.is_bf16 or dtype_name(dt) is None:  # not one torch and aicf exchange as is
            return None
        specs.append((tuple(o.shape), dt))
    return specs


def output_aliases(outputs: Sequence[Any], inputs: Sequence[Any]) -> list[tuple]:
    """(output index, "output" or "input", index of its base, size, stride, storage
    offset) of each output that shares its storage with a partition input or an
    earlier output in torch's graph (a view: y and y.view(-1) both returned). aicf
    computes every output into its own array; these are made views again after the
    call, as inductor's are. A view whose base aicf does not lay out as torch does (a
    view of an intermediate that is not itself an output, or of a non-contiguous
    output) raises AicfError: the partition stays torch's."""
    from torch.multiprocessing.reductions import StorageWeakRef

    def storage(t):
        return StorageWeakRef(t.untyped_storage()) if hasattr(t, "untyped_storage") else None

    by_storage: dict[Any, tuple[str, int]] = {}
    for k, t in enumerate(inputs):
        if (key := storage(t)) is not None:
            by_storage.setdefault(key, ("input", k))
    aliases = []
    for i, t in enumerate(outputs):
        key = storage(t)
        if key is None:
            continue
        base = by_storage.get(key)
        if base is None:
            by_storage[key] = ("output", i)
            if t.storage_offset() != 0 or not t.is_contiguous() or t._base is not None:
                # aicf's array for it is contiguous from 0: a view of something else
                if any(storage(o) == key for o in outputs[i + 1:]):
                    raise AicfError(f"output #{i} is a view another output shares, laid out as aicf does not")
            continue
        aliases.append((i, *base, tuple(t.size()), tuple(t.stride()), t.storage_offset()))
    return aliases


def _compile_partition(sub, vals: Sequence[Any], name: str, tune=None):
    import aicf

    specs = [aicf.TensorSpec(tuple(v.shape), dtype_name(v.dtype)) for v in vals]
    devices = {v.device.type for v in vals}
    target = "cuda" if "cuda" in devices else "cpu"
    fn = trace_partition(sub, vals)
    fn.__name__ = name
    module = aicf.trace(fn, *specs)
    output = next(n for n in sub.graph.nodes if n.op == "output")
    results = output.args[0] if isinstance(output.args[0], tuple | list) else (output.args[0],)
    aliases = output_aliases([getattr(r, "meta", {}).get("val") for r in results], vals)
    exe = aicf.compile(module, target=target, tune=tune)
    return PartitionCall(exe, isinstance(output.args[0], tuple | list), aliases), target


def compile_graph(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], report: Report, tune=None):
    """`gm` with its aicf partitions compiled (the rest stays torch's); `tune` as
    `aicf.compile` takes it."""
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

    partitioner = CapabilityBasedPartitioner(gm, _support(report), allows_single_node_partition=True)
    fused = partitioner.fuse_partitions(partitioner.propose_partitions())
    for node in list(fused.graph.nodes):
        if node.op != "call_module" or not node.target.startswith("fused_"):
            continue
        sub = fused.get_submodule(node.target)
        counted = Counter(
            op_name(n) for n in sub.graph.nodes if n.op == "call_function" and n.target is not operator.getitem
        )
        try:
            call, report.target = _compile_partition(sub, [a.meta["val"] for a in node.args], node.target, tune)
        except Exception as e:  # noqa: BLE001 - the partition runs in torch, and the log says why
            text = str(e).splitlines()[0] if str(e) else ""
            first = text if isinstance(e, AicfError) else f"{type(e).__name__}: {text}"
            for op in counted:
                report.fallback[op] = f"the partition did not compile: {first}"
            continue
        fused.delete_submodule(node.target)
        fused.add_submodule(node.target, _as_module(call))
        report.partitions.append(counted)
        report.executables.append(call.exe)
    fused.recompile()
    return fused


def _as_module(call: PartitionCall):
    import torch

    class AicfPartition(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.call = call

        def forward(self, *args):
            return self.call(*args)

    return AicfPartition()
