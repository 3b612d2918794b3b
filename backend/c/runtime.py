"""Run a loop-level function compiled by the cpu target on NumPy arrays (ctypes).

Non-contiguous inputs: a C-contiguous input is passed as is, with its strides fixed at
compile time (the fast path). Any other input whose strides are whole elements
(transposed views, slices with steps, offsets, negative strides, `np.broadcast_to`
views) is passed without a copy: the function is specialised, per pattern of which
inputs are contiguous, into a variant whose argument type carries a
`strided<[?, ...], offset: ?>` layout and reads the strides at run time. Each variant is
built once and cached (in memory here, on disk by `build`), at most
MAX_STRIDED_VARIANTS per entry: further patterns share the variant that reads every
input's strides. Only arrays whose strides are not a multiple of the element size
(e.g. a field of a structured array) are copied.
Outputs are allocated by the runtime (C-contiguous).

A module's libraries are closed (dlclose) when the CpuModule is garbage collected, so
the bounded in-memory caches above it (aicf/lru.py) bound the libraries mapped.

fork(): the OpenMP runtime's thread pool does not survive fork (a child that enters a
parallel region waits forever for its parent's threads), so a forked child runs the
cpu target single-threaded: correct, not parallel. For parallel children use the
"spawn" or "forkserver" start method of multiprocessing.
"""

from __future__ import annotations

import _ctypes
import contextlib
import ctypes
import itertools
import os
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp, StridedLayoutAttr
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import Rewriter

from aicf import profiling
from aicf.backend import disk_cache
from aicf.backend.c import blas, profile
from aicf.backend.c.build import build_shared_library
from aicf.backend.c.emit import c_func_name, emit_c_unit
from aicf.backend.c.profile import step_ops
from aicf.dialects.loop import NestOp
from aicf.errors import AicfError, CompileError
from aicf.program_cache import LazyModule, module_of

_FN_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))
)


def find_func(module: ModuleOp, name: str) -> FuncOp:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    raise AicfError(f"no function @{name} in the module")


def _strided_variant(module: ModuleOp, entry: str, strided: Sequence[bool]) -> ModuleOp:
    """A copy of the module whose entry takes the marked arguments with run-time strides."""
    module = module.clone()
    func = find_func(module, entry)
    rewriter = Rewriter()
    for i, s in enumerate(strided):
        if s:
            t = func.args[i].type
            assert isinstance(t, MemRefType)
            rank = t.get_num_dims()
            layout = StridedLayoutAttr([None] * rank, None)
            func.replace_argument_type(
                i, MemRefType(t.get_element_type(), t.get_shape(), layout), rewriter
            )
    for nest in func.walk():
        sched = nest.attributes.get(blas.SCHEDULE_ATTR)
        if isinstance(nest, NestOp) and blas.is_gemm_schedule(sched):
            nest.attributes[blas.SCHEDULE_ATTR] = blas.for_runtime_strides(nest, sched)
    return module


_OPENMP_RUNTIMES = ("libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so")
_openmp: list[ctypes.CDLL] = []  # the OpenMP runtime, held open for good


def _hold_openmp_runtime() -> None:
    """Keep the OpenMP runtime our libraries loaded: closing the last of them must
    not unload it under its own idle pool threads (a crash)."""
    if _openmp:
        return
    for name in _OPENMP_RUNTIMES:
        try:  # only a runtime already loaded (RTLD_NOLOAD loads nothing, counts a reference)
            _openmp.append(ctypes.CDLL(name, mode=os.RTLD_NOLOAD))
            return
        except OSError:
            continue


_modules: weakref.WeakSet = weakref.WeakSet()  # the live CpuModules, whose locks a fork resets


def _serial_after_fork() -> None:
    for omp in _openmp:
        omp.omp_set_num_threads(1)
    # a fork while another thread builds a variant copies the module's lock held by a
    # thread the child does not have: the child's next call of that module waited forever
    for m in list(_modules):
        m._lock = threading.RLock()


os.register_at_fork(after_in_child=_serial_after_fork)


_loads = itertools.count()  # a loaded copy's name is never used twice in a process (see _load)


def _load(path) -> ctypes.CDLL:
    """The library at `path` (a cache entry), loaded from a private copy of the bytes
    its digest check passed, unlinked once loaded. Loaded from the entry itself, it
    stayed mapped from the cache: a truncation of the entry by another process killed
    this one with SIGBUS, a write in place changed the code it ran, and the file could
    change between the check and the load. The copy's name is new each time: dlopen
    returns the library already loaded under a name it is given again."""
    path = Path(path)
    data = disk_cache.read_checked(path)
    if data is None:
        raise OSError(f"{path} changed since it was checked")
    name = f".load-{os.getpid()}-{next(_loads)}-"
    lib = None
    for where in (path.parent, None):  # beside the entry (a folder libraries load from), else /tmp
        try:
            fd, copy = tempfile.mkstemp(prefix=name, suffix=".tmp", dir=where)  # .tmp: pruned if left
        except OSError:  # a read-only cache
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            lib = ctypes.CDLL(copy)
            break
        except OSError:  # a folder mounted noexec, say
            continue
        finally:
            with contextlib.suppress(OSError):
                os.unlink(copy)
    if lib is None:
        lib = ctypes.CDLL(str(path))
    _hold_openmp_runtime()
    return lib


def _build_and_load(source: str, flags: tuple[str, ...], linked: tuple[str, ...]) -> ctypes.CDLL:
    """The library of `source`, loaded. A cached entry that passes its digest check but
    does not load (written by another machine's toolchain into a shared home, say) is
    removed and rebuilt once, instead of failing every later run."""
    path = build_shared_library(source, flags, linked)
    try:
        return _load(path)
    except OSError as e:
        disk_cache.remove(path)
        first = e
    path = build_shared_library(source, flags, linked)
    try:
        return _load(path)
    except OSError as e:
        raise CompileError(f"cannot load the library built for the cpu target: {e} "
                           f"(the cached copy did not load either: {first})") from None


def _close_all(libs: list[ctypes.CDLL]) -> None:
    # Only the module's own function pointers point into these libraries, and they
    # die with it, so nothing can call into a closed library.
    for lib in libs:
        _ctypes.dlclose(lib._handle)
    libs.clear()


MAX_STRIDED_VARIANTS = 16
"""Strided variants built per entry; a further pattern runs on the variant that takes
every input with its strides (n inputs have 2^n patterns: each got a build and a
library loaded for the module's lifetime)."""


class CpuModule:
    """A loop-level module built for the cpu target: C emitted for every function and
    built into one shared library. Strided variants of an entry are built on demand.
    (Fusion happened at the tensor level, by aicf-fuse.)"""

    def __init__(self, module: ModuleOp | LazyModule, built: tuple[str, tuple[str, ...], tuple[str, ...]] | None = None):
        """`built`: the (source, flags, linked) emit_c_unit gave for this module
        before (the program cache), so it is not emitted again."""
        self._module = module
        self.source, self.flags, self.linked = built if built is not None else emit_c_unit(module_of(module))
        self._variants: dict[tuple[str, tuple[bool, ...]], ctypes._CFuncPtr] = {}
        self._libs: list[ctypes.CDLL] = []
        # reentrant: a signal handler (or a finalizer the collector runs) calling the
        # program with a new pattern of strides while this thread builds one under the
        # lock waited for itself for good
        self._lock = threading.RLock()
        _modules.add(self)
        weakref.finalize(self, _close_all, self._libs)
        self._libs.append(_build_and_load(self.source, self.flags, self.linked))

    @property
    def module(self) -> ModuleOp:
        """The loop-level module (from the program cache: parsed on first use)."""
        return module_of(self._module)

    def takes_new_pattern(self, entry: str, strided: tuple[bool, ...]) -> bool:
        """Whether `entry` may get one more variant for the pattern `strided` (one it
        has, or fewer than MAX_STRIDED_VARIANTS of its own so far)."""
        if (entry, strided, False) in self._variants:
            return True
        return sum(1 for e, s, _ in list(self._variants) if e == entry and any(s)) < MAX_STRIDED_VARIANTS

    def function(self, entry: str, strided: tuple[bool, ...], profiled: bool = False):
        """The entry's variant for this pattern of strided arguments: its ctypes
        function, or with `profiled` a ProfiledFunction (built on first use)."""
        key = (entry, strided, profiled)
        fn = self._variants.get(key)
        if fn is not None:
            return fn
        with self._lock:
            if key in self._variants:
                return self._variants[key]
            if any(strided) or profiled:
                if any(strided):
                    source, flags, linked = emit_c_unit(_strided_variant(self.module, entry, strided))
                else:
                    source, flags, linked = self.source, self.flags, self.linked
                if profiled:
                    ops = step_ops(find_func(self.module, entry))
                    source = profile.instrument(source, c_func_name(entry), len(ops))
                lib = _build_and_load(source, flags, linked)
                self._libs.append(lib)
            else:
                lib = self._libs[0]
            fn = _FN_TYPE((c_func_name(entry), lib))
            if profiled:
                symbol = profile.timing_symbol(c_func_name(entry))
                table = (ctypes.c_int64 * max(2 * len(ops), 1)).in_dll(lib, symbol)
                fn = ProfiledFunction(fn, table, ops)
            self._variants[key] = fn
            return fn


@dataclass(frozen=True)
class ProfiledFunction:
    """A profiled build's function, its timing array (backend/c/profile.py) and the
    ops of its steps, in order."""

    fn: object
    table: object
    ops: list

    def step_times(self) -> list[tuple[int, int]]:
        return profile.step_times(self.table, len(self.ops))


class CpuProgram:
    """One entry function of a CpuModule.

    `run(inputs, outputs)` calls it on NumPy arrays whose dtypes and shapes the caller
    has already checked; `source` is the C of the contiguous variant.
    """

    def __init__(self, cmodule: CpuModule | ModuleOp, entry: str):
        if isinstance(cmodule, ModuleOp):
            cmodule = CpuModule(cmodule)
        self.cmodule = cmodule
        self.source = cmodule.source
        self.entry = entry

    @property
    def module(self) -> ModuleOp:
        return self.cmodule.module

    def _failure(self) -> str:
        """What a nonzero status of the C function means: a step could not allocate
        its intermediate buffer, or an external kernel (aicf/kernels/) returned nonzero,
        which its ABI calls a failure (the gate only ever ran it on its test cases)."""
        import re

        kernels = sorted(set(re.findall(r"/\* external kernel ([\w.-]+) \*/", self.cmodule.source)))
        if not kernels:
            return f"@{self.entry}: out of memory allocating an intermediate buffer"
        names = ", ".join(k.rsplit("-", 1)[0] for k in kernels)
        return (f"@{self.entry}: a step failed: the external kernel(s) {names} returned nonzero (a failure, "
                "by the kernel ABI) on these inputs, or an intermediate buffer could not be allocated")

    def run(self, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> None:
        arrays: list[np.ndarray] = []
        strided: list[bool] = []
        for a in inputs:
            if a.flags.c_contiguous or a.size <= 1:
                strided.append(False)
            elif all(s % a.itemsize == 0 for s in a.strides):
                strided.append(True)
            else:
                a = np.ascontiguousarray(a)
                strided.append(False)
            arrays.append(a)
        if any(strided) and not self.cmodule.takes_new_pattern(self.entry, tuple(strided)):
            strided = [a.ndim > 0 for a in arrays]  # correct for any input, contiguous ones too
        for o in outputs:
            assert o.flags.c_contiguous
            arrays.append(o)
            strided.append(False)
        prof = profiling.active()
        fn = self.cmodule.function(self.entry, tuple(strided), profiled=prof is not None)
        n = len(arrays)
        bufs = (ctypes.c_void_p * n)(*(a.ctypes.data for a in arrays))
        keep = []
        strides = (ctypes.POINTER(ctypes.c_int64) * n)()
        for i, (a, s) in enumerate(zip(arrays, strided)):
            if s:
                st = (ctypes.c_int64 * max(a.ndim, 1))(*(x // a.itemsize for x in a.strides))
                keep.append(st)
                strides[i] = ctypes.cast(st, ctypes.POINTER(ctypes.c_int64))
        if prof is None:
            status = fn(bufs, strides)
        else:
            status = fn.fn(bufs, strides)
            prof.add_steps(self.entry, fn.ops, fn.step_times())
        if status != 0:
            raise AicfError(self._failure())
