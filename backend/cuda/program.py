"""`compile_cuda(module, entry) -> CudaProgram`: the cuda target's executable.

The module comes after `aicf-lower-to-loops`; `aicf-lower-to-gpu` runs here. The
program executes the host function's ops in order: `memref.alloc` (pool buffers,
workspace included), `memref.get_global` (constants, uploaded once),
`aicf_gpu.launch` (one kernel launch on the stream), `aicf_gpu.library_call` (a
cuBLAS call or a CuPy reduction on the stream: backend/cuda/library.py), `memref.copy`,
`memref.dealloc` (back to the pool).

Arrays at the API boundary: CuPy or NumPy arrays (NumPy ones are copied to the
device); results are CuPy arrays. bf16 has no NumPy/CuPy dtype: a bf16 tensor is a
uint16 array holding the bf16 bit patterns (`x.astype(np.float32).view(np.uint32)
>> 16` rounds toward zero; see test/python/test_gpu_kernels.py for an RNE helper).

Call as `prog(*inputs)` (outputs are allocated) or `prog(*inputs, *outputs)`
(results written into the given arrays, which must not overlap the inputs).

The first call builds a launch plan (`_make_plan`): the host ops as a flat list of
steps over numbered slots, each launch's function, grid, block, shared memory and
argument slots resolved, constants uploaded, the vector alignment each argument needs.
A call whose arrays are what the function takes (CuPy, dtype, shape, C-contiguous,
aligned) then only checks them, allocates its outputs and launches: ~17 us a call
against ~49 us through the general path, on the H100 (bench/run.py). Anything else
(NumPy inputs, strided kernels, misaligned views, the profiler, full-sync) goes
through `_run_general`, the op-by-op interpreter.

With `graphs` on (AICF_CUDA_GRAPHS=1, or `program.graphs = True`), a fast-path call of
a program of several kernels on buffers it has met before replays a CUDA graph of its
launches, captured the second time those buffers came (`_replay`).
"""

from __future__ import annotations

import json
import threading

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
)
from xdsl.ir import SSAValue

from aicf import profiling as _profiler
from aicf.backend.cuda import library
from aicf.backend.cuda import runtime as rt
from aicf.backend.cuda import tensor_maps
from aicf.backend.cuda.emit import emit_cuda, kernel_symbol, kernels_of
from aicf.backend.cuda.emit_async import global_alignment, needs_sm90a, tensor_maps_of
from aicf.backend.cuda.fast_call import own_outputs_call
from aicf.dialects import gpu
from aicf.dialects.loop import AttentionOp, GatherOp, NestOp
from aicf.dtypes import f32_to_bf16_bits, numpy_dtype
from aicf.errors import ArgumentError, CompileError, LaunchError
from aicf.interop import as_array
from aicf.logs import getLogger
from aicf.lru import LruCache
from aicf.program_cache import LazyModule, module_of

_log = getLogger("cache")


def parse_type(text: str):
    from xdsl.parser import Parser

    from aicf.context import make_context

    return _TYPES.get(text) or _TYPES.setdefault(text, Parser(make_context(), text).parse_type())


_TYPES: dict = {}


def lower_to_gpu(module: ModuleOp) -> ModuleOp:
    """A copy of a loop-level module at the GPU level (verified, as after any pass).
    A module `aicf.compile` planned already (every nest and group has its schedule)
    goes straight to the GPU lowering: grouping epilogues and planning again would
    change nothing."""
    from aicf.compiler import run_pipeline, target_pipeline
    from aicf.dialects.loop import GroupOp
    from aicf.dialects.schedule import schedule_of

    module = module.clone()
    ops = [op for op in module.walk() if isinstance(op, NestOp | GroupOp | GatherOp | AttentionOp)]
    if ops:
        passes = target_pipeline("cuda")
        if all(schedule_of(op) is not None for op in ops if not isinstance(op, GatherOp)):
            passes = passes[next(i for i, p in enumerate(passes) if p.startswith("aicf-plan")) + 1:]
        run_pipeline(module, passes)
    return module


def kernel_facts(op: gpu.KernelOp) -> dict:
    """What a run needs of a kernel besides its code, as JSON (what the program cache
    keeps, so a cached program runs without parsing kernel bodies): its name, index
    width, parameter types (as text), the tensor maps it reads (argument index, dims,
    box, element code), the vector alignment each argument needs, bytes and flops; and
    what explain() shows of it (launch shape, schedule), so a cached program explains
    itself without lowering again."""
    args = list(op.args)
    # (argument index, dims, box) of each tensor-map parameter (backend/cuda/tensor_maps.py)
    maps = [(i, list(d), list(b), tensor_maps.element_code(args[i].type.get_element_type()))
            for i, d, b in tensor_maps_of(op)]
    align: dict[int, int] = {}
    for i, _, _, _ in maps:
        align[i] = max(align.get(i, 1), tensor_maps.TMA_ALIGNMENT)
    for i, nbytes in global_alignment(op).items():  # cp.async copies (gpu.mma_sync)
        align[i] = max(align.get(i, 1), nbytes)
    for o in op.walk():
        if isinstance(o, gpu.LoadVectorOp | gpu.StoreVectorOp) and o.memref in args:
            vt = o.result.type if isinstance(o, gpu.LoadVectorOp) else o.value.type
            nbytes = vt.get_shape()[0] * numpy_dtype(vt.get_element_type()).itemsize
            i = args.index(o.memref)
            align[i] = max(align.get(i, 1), nbytes)
    b = op.attributes.get("aicf.bytes")
    f = op.attributes.get("aicf.flops")
    schedule = op.attributes.get("aicf.schedule")
    return {
        "name": op.kernel_name,
        "symbol": op.sym_name.data,
        "grid": list(op.grid_dims),
        "block": list(op.block_dims),
        "smem": op.dynamic_smem.value.data,
        "schedule": None if schedule is None else str(getattr(schedule, "data", schedule)),
        "index_bits": op.index_bits,
        "params": [str(a.type) for a in args],
        "maps": maps,
        "vector_align": sorted(align.items()),
        "bytes": b.value.data if b is not None else 0,  # type: ignore[attr-defined]
        "flops": f.value.data if f is not None else 0,  # type: ignore[attr-defined]
        "sm90a": needs_sm90a(op.walk()),
    }


# A call that leaves its outputs to the program (`y = f(x)`) replays a graph only when
# it has more launches than this: a replay then copies each output out of the graph's
# own buffers (a copy kernel and an allocation per output, and a full pass over the
# output's bytes on the GPU), while a direct launch costs ~3 us of host a kernel
# (bench/call_path.py). Past this many kernels the graph's one launch wins.
DIRECT_MAX_LAUNCHES = 8

_D_LAUNCH, _D_ALLOC, _D_FREE = 0, 1, 2


class _DirectLaunch:
    """A call without CuPy's kernel calls, for a plan of plain launches over its
    arguments, pool buffers and constants: the outputs' and intermediates' blocks taken
    from CuPy's memory pool (outputs wrapped as arrays after the launches), each kernel
    launched by cuLaunchKernel (CuPy's binding) on a parameter block built once, into
    which each call writes its pointers (the driver copies the parameters at the launch,
    so the blocks are reused; a lock keeps two threads from interleaving their
    pointers). bench/call_path.py, one kernel: 9.8 us of host time against CuPy's 14.6
    (cupy.empty's ndarray setup and the RawKernel call's argument walk), torch's 10.4."""

    def __init__(self, launches, ops, nslots: int, nin: int, outs, consts: dict[int, int], cp):
        import ctypes

        # the functions were loaded in this device's context; a thread takes the direct
        # launch once CuPy's own launch has made the context current there (a new
        # thread may reach cuLaunchKernel having made no CUDA call yet)
        self.device = cp.cuda.runtime.getDevice()
        self.get_device = cp.cuda.runtime.getDevice
        # threads whose context CuPy made current (a thread-local flag: thread ids are
        # reused after a thread exits)
        self.local = threading.local()
        self.launches = []
        self.names = []
        for name, fptr, grid, block, smem, slots in launches:
            self.names.append(name)
            cells = (ctypes.c_void_p * len(slots))()
            params = (ctypes.c_void_p * len(slots))(
                *(ctypes.addressof(cells) + i * ctypes.sizeof(ctypes.c_void_p) for i in range(len(slots))))
            self.launches.append((fptr, grid, block, smem, slots, cells, params, ctypes.addressof(params)))
        self.failed = 0  # the launch that raised, for the error message
        self.ops = ops
        self.intermediates = any(op[0] == _D_ALLOC for op in ops)
        self.nin = nin
        self.outs = outs
        self.nbytes = [int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize for shape, dt in outs]
        self.base: list = [0] * nslots
        for s, ptr in consts.items():
            self.base[s] = ptr
        self.lock = threading.Lock()
        self.alloc, self.ndarray, self.launch = cp.cuda.alloc, cp.ndarray, cp.cuda.driver.launchKernel

    @classmethod
    def of(cls, steps, kernels: dict, nslots: int, nin: int, outs, cp):
        """The direct call of a plan, or None where CuPy's calls are kept: a step other
        than a plain launch, a pool buffer or a constant; a parameter that is not a
        buffer (passed by value); an empty output or intermediate (no block to take);
        a CuPy without the kernels' handles."""
        if not hasattr(cp.cuda.driver, "launchKernel"):
            return None
        if any(0 in shape for shape, _ in outs):
            return None
        launches, ops, consts = [], [], {}
        for st in steps:
            if st[0] is _LAUNCH:
                _, fn, name, grid, block, smem, slots = st
                fptr = getattr(getattr(fn, "kernel", None), "ptr", None)
                params = kernels[name].params
                if not isinstance(fptr, int) or not all(isinstance(t, MemRefType) for t in params) \
                        or len(params) != len(slots):
                    return None
                ops.append((_D_LAUNCH, len(launches)))
                launches.append((name, fptr, grid, block, smem, slots))
            elif st[0] is _ALLOC:
                nbytes = int(np.prod(st[2], dtype=np.int64)) * np.dtype(st[3]).itemsize
                if nbytes == 0:
                    return None
                ops.append((_D_ALLOC, st[1], nbytes))
            elif st[0] is _FREE:
                ops.append((_D_FREE, st[1]))
            elif st[0] is _CONST:
                consts[st[1]] = st[2].data.ptr
            else:
                return None
        return cls(launches, ops, nslots, nin, outs, consts, cp)

    def ready(self) -> bool:
        """Whether this thread, on this device, can launch directly."""
        return getattr(self.local, "ok", False) and self.get_device() == self.device

    def seen_here(self) -> None:
        """CuPy launched on this thread, on this device: its context is current here."""
        if self.get_device() == self.device:
            self.local.ok = True

    def __call__(self, arrays: tuple, stream_ptr: int) -> tuple:
        """Launch on `arrays`, the inputs (the outputs are allocated and returned) or
        the inputs and the outputs (returned as given)."""
        alloc = self.alloc
        ptrs = self.base.copy()
        for i, a in enumerate(arrays):
            ptrs[i] = a.data.ptr
        nin = self.nin
        given = len(arrays) > nin
        blocks = [] if given else [alloc(n) for n in self.nbytes]
        for j, b in enumerate(blocks):
            ptrs[nin + j] = b.ptr
        held: dict[int, object] = {}  # intermediates, back to the pool when freed
        launch, launches = self.launch, self.launches
        with self.lock:
            for op in self.ops:
                if op[0] == _D_LAUNCH:
                    fptr, g, b, smem, slots, cells, _, params_ptr = launches[op[1]]
                    for i, s in enumerate(slots):
                        cells[i] = ptrs[s]
                    self.failed = op[1]
                    launch(fptr, g[0], g[1], g[2], b[0], b[1], b[2], smem, stream_ptr, params_ptr, 0)
                elif op[0] == _D_ALLOC:
                    m = held[op[1]] = alloc(op[2])
                    ptrs[op[1]] = m.ptr
                else:
                    held.pop(op[1], None)
                    ptrs[op[1]] = 0
        if given:
            return arrays[nin:]
        nd = self.ndarray
        return tuple(nd(shape, dt, memptr=m) for (shape, dt), m in zip(self.outs, blocks))


class _Kernel:
    def __init__(self, facts: dict, params: list, fn):
        self.fn = fn
        self.name = facts["name"]
        self.index_dtype = np.int64 if facts["index_bits"] == 64 else np.int32
        # each map with its parameter's layout (shape, element strides) from the
        # kernel's type: the slot may hold the buffer in another shape (a batch of
        # rows the kernel reads as one matrix), which only the pointer has to match
        self.maps = [(i, tuple(d), tuple(b), c, _layout(params[i])) for i, d, b, c in facts["maps"]]
        self.vector_align: dict[int, int] = dict(facts["vector_align"])
        self.params = params
        self.nbytes = facts["bytes"]
        self.flops = facts["flops"]


def _entry_func(module: ModuleOp, entry: str | None) -> func.FuncOp:
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    if not funcs:
        raise CompileError("no function to run")
    if entry is None:
        return funcs[-1] if len(funcs) > 1 and not any(f.sym_name.data == "main" for f in funcs) else next(
            (f for f in funcs if f.sym_name.data == "main"), funcs[0])
    fn = next((f for f in funcs if f.sym_name.data == entry), None)
    if fn is None:
        raise CompileError(f"no function @{entry}")
    return fn


def host_plan(module: ModuleOp, entry: str | None) -> dict:
    """The entry's host function as JSON data, which the program cache keeps so that a
    cached program runs without parsing its host IR (1130 ops for a GPT-2: 2 s of
    xDSL parsing): the signature as type texts, and the ops as steps over numbered
    slots (the arguments first). A library call keeps its callee, params and operand
    types, from which `library_op` builds it again; an op the launch plan cannot take
    becomes an "other" step (the general path runs that program)."""
    fn = _entry_func(module, entry)
    attr = fn.attributes.get("aicf.num_outputs")
    slot: dict[SSAValue, int] = {v: i for i, v in enumerate(fn.body.block.args)}
    steps: list[list] = []
    for op in fn.body.block.ops:
        if isinstance(op, memref.AllocOp):
            slot[op.memref] = len(slot)
            steps.append([_ALLOC, slot[op.memref], str(op.memref.type)])
        elif isinstance(op, memref.DeallocOp):
            steps.append([_FREE, slot[op.memref]])
        elif isinstance(op, memref.GetGlobalOp):
            slot[op.memref] = len(slot)
            steps.append([_CONST, slot[op.memref], op.name_.root_reference.data, str(op.memref.type)])
        elif isinstance(op, memref.CopyOp):
            steps.append([_COPY, slot[op.source], slot[op.destination]])
        elif isinstance(op, gpu.LaunchOp):
            steps.append([_LAUNCH, op.kernel_name, list(op.grid_dims), list(op.block_dims), op.smem_bytes,
                          [slot[v] for v in op.args]])
        elif isinstance(op, gpu.LibraryCallOp):
            steps.append([_LIBRARY, op.routine, str(op.params), [str(v.type) for v in op.inputs],
                          [str(v.type) for v in op.outputs], [slot[v] for v in op.inputs],
                          [slot[v] for v in op.outputs]])
        elif op.name == "func.return":
            break
        else:
            steps.append(["other", op.name])
    return {"entry": fn.sym_name.data, "num_outputs": attr.value.data if attr is not None else 0,  # type: ignore
            "args": [str(t) for t in fn.function_type.inputs.data], "steps": steps}


def library_op(callee: str, params: str, ins: list[str], outs: list[str]) -> gpu.LibraryCallOp:
    """A library call op as `host_plan` recorded it, on fresh values of its operand
    types (what the runtime's call classes read: the params and the types)."""
    from xdsl.ir import Block
    from xdsl.parser import Parser

    from aicf.context import make_context

    block = Block(arg_types=[parse_type(t) for t in (*ins, *outs)])
    attrs = Parser(make_context(), params).parse_attribute()
    return gpu.LibraryCallOp(callee, block.args[: len(ins)], block.args[len(ins):], attrs)  # type: ignore[arg-type]


def globals_part(module: ModuleOp) -> ModuleOp:
    """The module's constants alone (what `_global` reads), small to parse."""
    return ModuleOp([op.clone() for op in module.ops if isinstance(op, memref.GlobalOp)])


def host_part(module: ModuleOp) -> ModuleOp:
    """The host functions alone (the general path walks them; the constants they read
    are `globals_part`, kept once)."""
    return ModuleOp([op.clone() for op in module.ops if not isinstance(op, gpu.KernelOp | memref.GlobalOp)])


class CudaProgram:
    def __init__(self, module: ModuleOp, entry: str | None = None, sync: str | rt.SyncPolicy = "none",
                 *, _cached: dict | None = None):
        if _cached is None:
            self._module: ModuleOp | LazyModule = lower_to_gpu(module)
            self._host: ModuleOp | LazyModule = self._module
            self._consts: ModuleOp | LazyModule = self._module
            self.source = emit_cuda(self.module)
            self._facts: list[dict] | None = None  # read from the kernels when loaded
            self._host_plan = host_plan(self.module, entry)
        else:  # a program from the program cache (aicf/program_cache.py)
            loop = _cached["loop_module"]  # lowered again only if its GPU IR is asked for
            self._module = LazyModule(load=lambda: lower_to_gpu(module_of(loop)))
            self._host = LazyModule(_cached["host_module"], verify=False)
            self._consts = LazyModule(_cached["globals_module"], verify=False)
            self.source = _cached["source"]
            self._facts = _cached["kernels"]
            self._host_plan = _cached["host_plan"]
        hp = self._host_plan
        self.entry = hp["entry"]
        self.num_outputs = hp["num_outputs"]
        self.arg_types = [parse_type(t) for t in hp["args"]]
        self.num_inputs = len(self.arg_types) - self.num_outputs
        self.sync = rt.SyncPolicy(sync)
        self._mod = None
        self._kernels: dict[str, _Kernel] = {}
        self._globals: dict[str, object] = {}
        self._plan = None  # built on the first call (see _make_plan)
        self._fast = None  # a one-kernel plan's own-outputs call (fast_call.py), set with the plan
        self._library: dict[int | str, library.LibraryCall] = {}
        self.debug = False  # poison the outputs it allocates (NaN), so unwritten elements show
        self.last_event = None
        self.graphs = graphs_default()
        self._graphs = LruCache(GRAPHS_PER_PROGRAM)  # (stream, pointers) -> replayable graph
        self._seen = LruCache(4 * GRAPHS_PER_PROGRAM)  # keys met once: captured when met again
        self._statics: dict[int, list] = {}  # stream -> the intermediates its graphs write
        self._static_outs: dict[int, list] = {}  # stream -> the outputs its graphs write (see _replay_own)
        self._graphable = False  # set by _make_plan
        self._graph_lock = threading.Lock()
        self._event = None

    @classmethod
    def cached(cls, record: dict, entry: str, loop_module: ModuleOp | LazyModule,
               sync: str | rt.SyncPolicy = "none") -> CudaProgram:
        """The program `artifact()` described (of `loop_module`, lowered again only if
        something asks for the GPU-level module), without lowering or parsing its
        kernels."""
        return cls(None, entry, sync, _cached={**record, "loop_module": loop_module})  # type: ignore[arg-type]

    @property
    def func(self) -> func.FuncOp:
        """The host function (a cached program parses its host IR on first use: only
        the general path walks it)."""
        return _entry_func(module_of(self._host), self.entry)

    @property
    def module(self) -> ModuleOp:
        """The GPU-level module (a cached program parses it on first use)."""
        return module_of(self._module)

    def kernel_facts(self) -> list[dict]:
        if self._facts is None:
            self._facts = [kernel_facts(k) for k in kernels_of(self.module)]
        return self._facts

    def artifact(self) -> dict:
        """What the program cache keeps of this program (see `cached`)."""
        return {"source": self.source, "host_module": str(host_part(self.module)), "kernels": self.kernel_facts(),
                "host_plan": self._host_plan, "globals_module": str(globals_part(self.module))}

    # -- setup -----------------------------------------------------------------------------
    def _load(self) -> None:
        if self._mod is None:
            arch = None
            facts = self.kernel_facts()
            if any(k["sm90a"] for k in facts):
                if rt.cupy().cuda.Device().compute_capability != "90":
                    raise CompileError("this program has Hopper kernels (wgmma, bulk tensor copies): it needs an "
                                       "sm_90 GPU; compile it for the device you run on (target='gpu')")
                arch = "sm_90a"
            self._mod = rt.load_module(self.source, arch)
            for k in facts:
                params = [parse_type(t) for t in k["params"]]
                self._kernels[k["name"]] = _Kernel(k, params, self._mod.get_function(kernel_symbol(k["name"])))

    def _global(self, name: str, t: MemRefType):
        cp = rt.cupy()
        if name not in self._globals:
            host = module_of(self._consts)
            g = next((op for op in host.ops if isinstance(op, memref.GlobalOp) and op.sym_name.data == name), None)
            if g is None or not isinstance(g.initial_value, DenseIntOrFPElementsAttr):
                raise CompileError(f"global @{name} has no dense initial value")
            dt = numpy_dtype(t.get_element_type())
            vals = np.asarray(g.initial_value.get_values(), dtype=np.float64 if dt.kind in "fu" else dt).reshape(-1)
            if isinstance(t.get_element_type(), BFloat16Type):
                vals = f32_to_bf16_bits(vals)
            shape = tuple(t.get_shape())
            arr = np.full(shape, vals[0], dtype=dt) if vals.size == 1 else vals.astype(dt).reshape(shape)
            self._globals[name] = cp.asarray(np.ascontiguousarray(arr))
        return self._globals[name]

    def _library_call(self, op: gpu.LibraryCallOp | list) -> library.LibraryCall:
        """The runtime call of a library op, or of `host_plan`'s record of one (the
        same call either way: one per op of the host function)."""
        key = id(op) if isinstance(op, gpu.LibraryCallOp) else json.dumps(op)
        call = self._library.get(key)
        if call is None:
            if not isinstance(op, gpu.LibraryCallOp):
                op = library_op(*op[1:5])
            call = self._library[key] = library.prepare(op)
        return call

    # -- argument checks -------------------------------------------------------------------
    def _check(self, i: int, a, t: MemRefType, is_output: bool):
        cp = rt.cupy()
        what = f"{'output' if is_output else 'argument'} #{i} of @{self.entry}"
        dt = numpy_dtype(t.get_element_type())
        if not is_output:
            a = as_array(a, "cuda", what)  # torch, JAX, ...: through DLPack
        if isinstance(a, np.ndarray | np.generic) and not is_output:
            a = cp.asarray(a)
        if not isinstance(a, cp.ndarray):
            if is_output:  # the program writes it on the device: a host array cannot be one
                raise ArgumentError(f"{what}: expected a CuPy array (or a GPU array through DLPack) to write "
                                    f"into, got {type(a).__module__.split('.')[0]}.{type(a).__name__}")
            raise ArgumentError(f"{what}: expected a CuPy or NumPy array, got {type(a).__name__}")
        if a.dtype != dt:
            hint = " (bf16 is passed as uint16 bits)" if isinstance(t.get_element_type(), BFloat16Type) else ""
            raise ArgumentError(f"{what}: dtype {a.dtype} where {t.get_element_type()} is expected{hint}")
        if tuple(a.shape) != tuple(t.get_shape()):
            raise ArgumentError(f"{what}: shape {tuple(a.shape)} where {tuple(t.get_shape())} is expected")
        if not isinstance(t.layout, StridedLayoutAttr) and not a.flags.c_contiguous:
            if is_output:
                raise ArgumentError(f"{what}: must be C-contiguous")
            a = cp.ascontiguousarray(a)
        return a

    # -- the launch plan (the fast path of __call__) ---------------------------------------
    def _make_plan(self):
        """The host function as a flat list of steps over numbered slots (arguments
        first), with every launch's function, grid, block, shared memory and argument
        slots resolved once; constants are uploaded here. Built from `host_plan`'s
        records, so a cached program never parses its host IR. False when a kernel
        takes run-time strides (the general path computes them per call)."""
        cp = rt.cupy()
        self._load()
        nargs = len(self.arg_types)
        nslots = nargs
        steps: list[tuple] = []
        align = [1] * nargs  # vector alignment each argument must have
        for rec in self._host_plan["steps"]:
            kind = rec[0]
            if kind == _ALLOC:
                t = parse_type(rec[2])
                nslots += 1
                steps.append((_ALLOC, rec[1], tuple(t.get_shape()), numpy_dtype(t.get_element_type())))
            elif kind == _FREE:
                steps.append((_FREE, rec[1]))
            elif kind == _CONST:
                nslots += 1
                steps.append((_CONST, rec[1], self._global(rec[2], parse_type(rec[3]))))
            elif kind == _COPY:
                steps.append((_COPY, rec[1], rec[2]))
            elif kind == _LAUNCH:
                _, name, grid, block, smem, slots = rec
                k = self._kernels[name]
                if any(isinstance(t, MemRefType) and isinstance(t.layout, StridedLayoutAttr) for t in k.params):
                    return False
                slots = tuple(slots)
                for i, s in enumerate(slots):
                    if s < nargs and k.vector_align.get(i):
                        align[s] = max(align[s], k.vector_align[i])
                fn = k.fn
                if smem > 48 * 1024:
                    fn.max_dynamic_shared_size_bytes = smem
                grid, block = tuple(grid), tuple(block)
                if k.maps:
                    steps.append((_LAUNCH_TMA, k, k.name, grid, block, smem, slots))
                    continue
                steps.append((_LAUNCH, fn, k.name, grid, block, smem, slots))
            elif kind == _LIBRARY:
                steps.append((_LIBRARY, self._library_call(rec), tuple(rec[5]), tuple(rec[6])))
            else:
                return False
        specs = []
        for i, t in enumerate(self.arg_types):
            specs.append((numpy_dtype(t.get_element_type()), tuple(t.get_shape()), align[i]))
        # a graph replays what was captured: library calls that allocate while they run
        # (CuPy's reductions) stay out; one launch gains nothing from a graph. Every
        # slot is dense here, so a cuBLAS call copies nothing
        work = sum(st[0] in (_LAUNCH, _LAUNCH_TMA, _COPY, _LIBRARY) for st in steps)
        self._graphable = work >= 2 and all(st[1].capturable for st in steps if st[0] is _LIBRARY)
        # one launch on the arguments alone (a small program's whole plan): the call
        # launches it directly, without the step loop; a few plain launches over pool
        # buffers: the same, launch after launch (see DIRECT_MAX_LAUNCHES)
        single = direct = None
        outs = tuple((shape, dt) for dt, shape, _ in specs[self.num_inputs:])
        launches = sum(st[0] is _LAUNCH for st in steps)
        if len(steps) == 1 and steps[0][0] is _LAUNCH and nslots == len(specs):
            _, fn, name, grid, block, smem, slots = steps[0]
            single = (fn, name, grid, block, smem, slots, slots == tuple(range(len(specs))), outs, cp,
                      _DirectLaunch.of(steps, self._kernels, nslots, self.num_inputs, outs, cp))
            if single[-1] is not None and self.sync is not _FULL_SYNC:
                self._fast = own_outputs_call(single[-1], specs, self.num_inputs, self,
                                              record=self.sync is _EVENT_RECORD, cp=cp)
        elif 1 <= launches <= DIRECT_MAX_LAUNCHES:  # with constants or intermediates
            direct = _DirectLaunch.of(steps, self._kernels, nslots, self.num_inputs, outs, cp)
        return (nslots, steps, specs, cp.ndarray, single, direct)

    def takes_as_is(self, arrays) -> bool:
        """Whether `arrays` need none of the caller's conversions: as many as the
        inputs, each a CuPy array."""
        nd = rt.cupy().ndarray
        return len(arrays) == self.num_inputs and all(type(a) is nd for a in arrays)

    def __call__(self, *arrays, stream=None):
        """Run the program: the cached launch plan when the arrays are what the
        function takes (CuPy, right dtype/shape, C-contiguous, aligned) and nothing
        needs per-launch bookkeeping (profiler, full-sync); else the general path."""
        out = self.call_planned(arrays, stream)
        return self._run_general(*arrays, stream=stream) if out is None else out

    def call_planned(self, arrays: tuple, stream=None):
        """The call through the launch plan, or None when these arrays (or the
        program's settings) need the general path. Kept flat: at ~7 us of host time a
        call, each Python layer shows (bench/call_path.py)."""
        fast = self._fast
        if fast is not None:
            out = fast(arrays, stream)
            if out is not None:
                return out
        plan = self._plan
        if plan is None:
            plan = self._plan = self._make_plan()
        if plan is False or _profiler._ACTIVE or self.sync is _FULL_SYNC:
            return None
        nslots, steps, specs, ndarray, single, direct = plan
        nin, nall = self.num_inputs, len(specs)
        n = len(arrays)
        if n != nin and n != nall:
            return None
        for a, (dt, shape, al) in zip(arrays, specs):
            if type(a) is not ndarray or a.dtype != dt or a.shape != shape or not a.flags.c_contiguous or (
                al > 1 and a.data.ptr % al
            ):
                return None
        if single is not None and n == nin and not self.debug:
            return self._launch_single(single, arrays, stream)
        cp = rt.cupy()
        if single is not None:
            direct = single[-1]
        # outputs given: a graph replays several launches without copies, so the direct
        # call takes one launch, or a few where graphs are off
        if direct is not None and not self.debug and (
                n == nin or single is not None or not (self.graphs and self._graphable)):
            current = cp.cuda.get_current_stream()
            if stream is None:
                stream = current
            # intermediates come from the current stream's pool: freed there while a
            # kernel on another stream still reads them, a later allocation on the
            # current one could take them (the step loop allocates them on the caller's
            # stream)
            if direct.ready() and (not direct.intermediates or stream.ptr == current.ptr):
                if n == nall:
                    _reject_overlap(arrays[:nin], arrays[nin:], self.entry)
                try:
                    outs = direct(arrays, stream.ptr)
                except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
                    _, g, b, smem, *_ = direct.launches[direct.failed]
                    raise self._launch_error(direct.names[direct.failed], g, b, smem, e) from None
                if self.sync is _EVENT_RECORD:
                    self._record(stream)
                return outs[0] if len(outs) == 1 else outs
            # CuPy's launches below make the context current on this thread
            seen = direct
        else:
            seen = None
        env: list = [None] * nslots
        env[:n] = arrays
        stream = stream or cp.cuda.get_current_stream()
        if n == nin:
            if self.graphs and self._graphable and not self.debug and direct is None:
                outs = self._replay_own(env, nin, nall, steps, stream, specs)
                if outs is not None:
                    if self.sync is _EVENT_RECORD:
                        self._record(stream)
                    return outs[0] if nall - nin == 1 else tuple(outs)
            empty = cp.empty
            for i in range(nin, nall):
                dt, shape, _ = specs[i]
                env[i] = empty(shape, dt)  # the pool's blocks are 512-byte aligned
                if self.debug:
                    poison(env[i])
        else:
            _reject_overlap(arrays[:nin], arrays[nin:], self.entry)
            if self.graphs and self._graphable and self._replay(env, nall, steps, stream):
                if self.sync is _EVENT_RECORD:
                    self._record(stream)
                return env[nin] if nall - nin == 1 else tuple(env[nin:nall])
        self._run_steps(env, steps, stream)
        if seen is not None:
            seen.seen_here()
        if self.sync is _EVENT_RECORD:
            self._record(stream)
        if nall - nin == 1:
            return env[nin]
        return tuple(env[nin:nall])

    def _launch_single(self, single: tuple, arrays: tuple, stream):
        """`call_planned` of a plan that is one launch on the arguments: its outputs
        allocated, the kernel launched (bench/call_path.py: the step loop was ~1 us of
        a ~15 us synced call)."""
        fn, name, grid, block, smem, slots, in_order, out_specs, cp, direct = single
        if stream is None:
            stream = cp.cuda.get_current_stream()
        if direct is not None and direct.ready():
            try:
                outs = direct(arrays, stream.ptr)
            except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
                raise self._launch_error(name, grid, block, smem, e) from None
            if self.sync is _EVENT_RECORD:
                self._record(stream)
            return outs[0] if len(outs) == 1 else outs
        if len(out_specs) == 1:
            outs: tuple = (cp.empty(*out_specs[0]),)
        else:
            outs = tuple(cp.empty(shape, dt) for shape, dt in out_specs)
        env = arrays + outs
        try:
            fn(grid, block, env if in_order else tuple(env[s] for s in slots), shared_mem=smem, stream=stream)
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            raise self._launch_error(name, grid, block, smem, e) from None
        if direct is not None:
            direct.seen_here()
        if self.sync is _EVENT_RECORD:
            self._record(stream)
        return outs[0] if len(outs) == 1 else outs

    def _launch_error(self, name: str, grid, block, smem: int, e: Exception) -> LaunchError:
        """The error of a launch that raised (an asynchronous fault of an earlier kernel
        can surface there too, which the message says)."""
        return LaunchError(f"launch of kernel '{name}' failed (grid={list(grid)}, block={list(block)}, "
                           f"smem={smem}), or an earlier kernel of @{self.entry} faulted: {e}")

    def _record(self, stream) -> None:
        """`last_event` after this call's work: one event of the program's, recorded
        again each call (creating an event per call cost ~2 us of the ~10 us call)."""
        ev = self._event
        if ev is None:
            ev = self._event = rt.cupy().cuda.Event(block=False, disable_timing=True)
        ev.record(stream)
        self.last_event = ev

    def _run_steps(self, env: list, steps, stream, statics: list | None = None) -> None:
        """The plan's steps on `stream` over the slots `env`; with `statics`, the
        intermediates are those arrays (a graph's, kept alive with it) instead of fresh
        pool buffers."""
        cp = rt.cupy()
        st = None
        try:
            for st in steps:
                kind = st[0]
                if kind is _LAUNCH:
                    _, fn, name, grid, block, smem, slots = st
                    fn(grid, block, tuple([env[s] for s in slots]), shared_mem=smem, stream=stream)
                elif kind is _LAUNCH_TMA:
                    _, k, name, grid, block, smem, slots = st
                    arrays = [env[s] for s in slots]
                    tensor_maps.launch(k.fn, name, grid, block, smem, arrays,
                                       [(arrays[i], d, b, c, lay) for i, d, b, c, lay in k.maps], stream,
                                       k.index_dtype)
                elif kind is _LIBRARY:
                    st[1]([env[s] for s in st[2]], [env[s] for s in st[3]], stream)
                elif kind is _ALLOC:
                    if statics is not None:
                        env[st[1]] = statics[st[1]]
                    else:
                        # from `stream`'s pool: freed below while this call's kernels may
                        # still read it, it is only reused in that stream's order
                        with stream:
                            env[st[1]] = cp.empty(st[2], st[3])
                elif kind is _FREE:
                    if statics is None:
                        env[st[1]] = None
                elif kind is _CONST:
                    env[st[1]] = st[2]
                else:
                    with stream:
                        cp.copyto(env[st[2]], env[st[1]])
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            # the step that raised; an asynchronous fault of an earlier kernel can
            # surface here too, which the message says
            if st is not None and st[0] in (_LAUNCH, _LAUNCH_TMA):
                raise self._launch_error(*st[2:6], e) from None
            raise LaunchError(f"@{self.entry}: a host step failed: {e}") from None

    def _replay(self, env: list, nall: int, steps, stream) -> bool:
        """Run the call as a CUDA graph when one was captured for these arguments on
        this stream; capture one the second time they are met (a program called on the
        same buffers again and again, as a model's forward is, replays one graph
        instead of launching each kernel from Python). The graph's intermediates are
        its own, allocated once per stream. False: run the steps as usual."""
        key = (stream.ptr, tuple(a.data.ptr for a in env[:nall]))
        with self._graph_lock:
            graph = self._graph_for(key, lambda: self._capture(env, steps, stream))
            if graph is None:
                return False
            graph.launch(stream)
        return True

    def _graph_for(self, key, capture):
        """The graph captured for `key`; None the first time the key is met (it is
        remembered, and `capture()` runs the second time) or when capture fails.
        Called with the graph lock held."""
        graph = self._graphs.get(key)
        if graph is None:
            if self._seen.get(key) is None:
                self._seen[key] = True
                return None
            graph = capture()
            if graph is not None:
                self._graphs[key] = graph
        return graph

    def _replay_own(self, env: list, nin: int, nall: int, steps, stream, specs) -> list | None:
        """As `_replay`, for a call that leaves its outputs to the program (`y = f(x)`):
        the graph writes outputs of its own (one set per stream) and each replay copies
        them into fresh arrays, so the graph does not hang on where the pool puts a
        call's outputs (a key with them in it may never come twice). None: run the
        steps as usual."""
        cp = rt.cupy()
        key = (stream.ptr, tuple(a.data.ptr for a in env[:nin]), "own outputs")

        def capture():
            outs = self._static_outs.get(stream.ptr)
            if outs is None:
                outs = self._static_outs[stream.ptr] = [cp.empty(specs[i][1], specs[i][0])
                                                        for i in range(nin, nall)]  # fmt: skip
            env[nin:nall] = outs
            return self._capture(env, steps, stream)

        with self._graph_lock:
            graph = self._graph_for(key, capture)
            if graph is None:
                return None
            outs = self._static_outs[stream.ptr]
            graph.launch(stream)
            with stream:  # in stream order, before any later replay rewrites them
                fresh = [cp.empty(o.shape, o.dtype) for o in outs]
                for f, o in zip(fresh, outs):
                    cp.copyto(f, o)
        return fresh

    def _capture(self, env: list, steps, stream):
        cp = rt.cupy()
        statics = self._statics.get(stream.ptr)
        if statics is None:
            statics = [None] * len(env)
            for st in steps:
                if st[0] is _ALLOC:
                    statics[st[1]] = cp.empty(st[2], st[3])
            self._statics[stream.ptr] = statics
        side = cp.cuda.Stream(non_blocking=True)  # the legacy default stream cannot capture
        side.wait_event(stream.record())
        try:
            # relaxed: another thread's unrelated CUDA calls do not break the capture
            side.begin_capture(getattr(cp.cuda.runtime, "streamCaptureModeRelaxed", None))
            try:
                self._run_steps(list(env), steps, side, statics)
            finally:
                graph = side.end_capture()
        except Exception as e:  # a capture the driver refuses: this program runs uncaptured
            _log.warning("@%s: no CUDA graph (%s); launching kernel by kernel", self.entry, e)
            self.graphs = False
            return None
        return graph

    def _run_general(self, *arrays, stream=None):
        """Every host op interpreted per call, with the full argument handling
        (NumPy inputs copied, strided views, staging of misaligned vector arguments,
        per-launch profiling and sync)."""
        from aicf import profiling as prof_mod

        cp = rt.cupy()
        self._load()
        nin, nall = self.num_inputs, len(self.arg_types)
        if len(arrays) not in (nin, nall):
            raise ArgumentError(
                f"@{self.entry} takes {nin} inputs (or {nall} arrays with the outputs), got {len(arrays)}"
            )
        stream = stream or cp.cuda.get_current_stream()
        env: dict[SSAValue, object] = {}
        args = list(self.func.body.block.args)
        outs = []
        # conversions (NumPy uploads, contiguous copies) on the launch stream: a stream
        # the caller passes need not wait for the current one's work
        with stream:
            for i, (v, t) in enumerate(zip(args, self.arg_types)):
                if i < nin:
                    env[v] = self._check(i, arrays[i], t, False)
                else:
                    if len(arrays) == nall:
                        o = self._check(i - nin, arrays[i], t, True)
                    else:
                        o = rt.allocate(tuple(t.get_shape()), numpy_dtype(t.get_element_type()))
                        if self.debug:
                            poison(o)
                    env[v] = o
                    outs.append(o)
        if len(arrays) == nall:
            _reject_overlap([env[a] for a in args[:nin]], outs, self.entry)
        staged: list[tuple[object, object]] = []
        prof = prof_mod.active()
        for op in self.func.body.block.ops:
            if isinstance(op, memref.AllocOp):
                t = op.memref.type
                env[op.memref] = rt.allocate(tuple(t.get_shape()), numpy_dtype(t.get_element_type()))
            elif isinstance(op, memref.DeallocOp):
                env.pop(op.memref, None)
            elif isinstance(op, memref.GetGlobalOp):
                env[op.memref] = self._global(op.name_.root_reference.data, op.memref.type)
            elif isinstance(op, memref.CopyOp):
                cp.copyto(env[op.destination], env[op.source])
            elif isinstance(op, gpu.LaunchOp):
                k = self._kernels[op.kernel_name]
                kargs = []
                for i, (v, pt) in enumerate(zip(op.args, k.params)):
                    a = env[v]
                    if isinstance(pt, MemRefType):
                        align = k.vector_align.get(i)
                        if align and a.size and a.data.ptr % align:
                            fresh = rt.allocate(a.shape, a.dtype)
                            fresh[...] = a
                            if v in args[nin:]:
                                staged.append((fresh, a))
                            a = fresh
                            env[v] = a
                        kargs.append(a)
                        lay = pt.layout
                        if isinstance(lay, StridedLayoutAttr):
                            for d, s in enumerate(lay.get_strides()):
                                if s is None:
                                    kargs.append(k.index_dtype(a.strides[d] // a.itemsize))
                            if k.index_dtype == np.int32 and a.size:
                                span = sum((e - 1) * abs(st) // a.itemsize for e, st in zip(a.shape, a.strides)) + 1
                                if span >= 2**31:
                                    raise ArgumentError(
                                        f"kernel '{k.name}': a strided argument spans {span} elements, "
                                        "past the kernel's 32-bit indices"
                                    )
                    else:
                        kargs.append(a)
                rec = None
                if prof is not None:
                    rec = prof_mod.LaunchRecord(k.name, op.grid_dims, op.block_dims, op.smem_bytes, k.nbytes, k.flops)
                    prof.begin(rec, stream)
                if k.maps:
                    launched = [env[v] for v in op.args]
                    tensor_maps.launch(k.fn, k.name, op.grid_dims, op.block_dims, op.smem_bytes, kargs,
                                       [(launched[i], d, b, c, lay) for i, d, b, c, lay in k.maps], stream,
                                       k.index_dtype)
                    if self.sync is rt.SyncPolicy.FULL_SYNC:
                        stream.synchronize()
                else:
                    rt.launch(k.fn, k.name, op.grid_dims, op.block_dims, op.smem_bytes, kargs, stream, self.sync)
                if rec is not None:
                    prof.end(rec, stream)  # type: ignore[union-attr]
            elif isinstance(op, gpu.LibraryCallOp):
                call = self._library_call(op)
                rec = None
                if prof is not None:
                    rec = prof_mod.LaunchRecord(call.name, (), (), 0, call.nbytes, call.flops)
                    prof.begin(rec, stream)
                call([env[v] for v in op.inputs], [env[v] for v in op.outputs], stream,
                     sync=self.sync is rt.SyncPolicy.FULL_SYNC)
                if rec is not None:
                    prof.end(rec, stream)  # type: ignore[union-attr]
            elif op.name == "func.return":
                break
            else:
                raise CompileError(f"the cuda runtime cannot run host op '{op.name}'")
        for fresh, dest in staged:
            cp.copyto(dest, fresh)
        if self.sync is rt.SyncPolicy.EVENT_RECORD:
            self._record(stream)
        if len(outs) == 1:
            return outs[0]
        return tuple(outs)


def _layout(t) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(shape, element strides) of a static memref type, None otherwise."""
    from aicf.lowering.gpu_schedules.view import strides_of

    if not isinstance(t, MemRefType):
        return None
    st = strides_of(t)
    shape = tuple(t.get_shape())
    if st is None or any(s is None for s in st) or any(e < 0 for e in shape):
        return None
    return shape, tuple(st)  # type: ignore[arg-type]


GRAPHS_PER_PROGRAM = 8
"""Graphs kept per program (one per set of argument buffers and stream)."""


def graphs_default() -> bool:
    """AICF_CUDA_GRAPHS: 1 (the default) replays a program of several kernels as a CUDA
    graph when it is called again on the same buffers (a 49-kernel chain: 406 -> 57 us a
    call on the H100, bench/call_overhead.py); 0 launches kernel by kernel.
    `program.graphs` overrides it per program."""
    import os

    v = os.environ.get("AICF_CUDA_GRAPHS", "1").strip().lower()
    return v not in ("0", "off", "false", "no")


_ALLOC, _FREE, _CONST, _COPY, _LAUNCH, _LIBRARY = "alloc", "free", "const", "copy", "launch", "library"
_LAUNCH_TMA = "launch-tma"
_FULL_SYNC, _EVENT_RECORD = rt.SyncPolicy.FULL_SYNC, rt.SyncPolicy.EVENT_RECORD


def _extent(a) -> tuple[int, int]:
    lo = hi = a.data.ptr
    for e, s in zip(a.shape, a.strides):
        if e == 0:
            return (a.data.ptr, a.data.ptr)
        if s < 0:
            lo += (e - 1) * s
        else:
            hi += (e - 1) * s
    return lo, hi + a.itemsize


def _reject_overlap(inputs, outputs, entry: str) -> None:
    for j, o in enumerate(outputs):
        olo, ohi = _extent(o)
        for i, a in enumerate(inputs):
            ilo, ihi = _extent(a)
            if olo < ihi and ilo < ohi:
                raise ArgumentError(f"@{entry}: output #{j} overlaps input #{i} (in-place is not allowed here)")
        for k, p in enumerate(outputs[:j]):
            plo, phi = _extent(p)
            if olo < phi and plo < ohi:
                raise ArgumentError(f"@{entry}: outputs #{k} and #{j} overlap")


def poison(a) -> None:
    """Fill a fresh output so that elements no kernel writes show: NaN for floats (and
    0xFFFF, a NaN, for bf16 bits in uint16), the minimum for signed integers."""
    import numpy as np

    if a.dtype.kind == "f":
        a.fill(np.nan)
    elif a.dtype == np.uint16:
        a.fill(0xFFFF)
    elif a.dtype.kind == "i":
        a.fill(np.iinfo(a.dtype).min)


def compile_cuda(lowered_module: ModuleOp, entry: str | None = None, sync: str = "none") -> CudaProgram:
    """The cuda target's executable for a module after aicf-lower-to-loops (or
    already at the GPU level). The GPU lowering plans with the sm_90 description, so
    another GPU is refused here rather than given kernels planned for the wrong chip."""
    from aicf.target import target_for

    target_for(int(rt.cupy().cuda.Device().compute_capability))
    return CudaProgram(lowered_module, entry, sync)
