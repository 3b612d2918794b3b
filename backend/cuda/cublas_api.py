"""cuBLAS's C API through ctypes, for the one routine the runtime calls
(`cublasGemmStridedBatchedEx`), on handles of aicf's own.

Why not CuPy's bindings: they refuse any cuBLAS call while a stream is capturing
("calling cuBLAS API during stream capture is currently unsupported", raised in
their `setStream`), so a program with a matmul could never replay as a CUDA graph.
cuBLAS itself supports capture when the handle has a workspace of its own (it
must not allocate while capturing: cuBLAS's "CUDA Graphs Support"), which is what
these handles get. A handle of our own also leaves CuPy's pointer and math modes
alone.

The library is the one CuPy loaded (found in the process's memory map), so both
agree on the CUDA version. One handle per (thread, device): a cuBLAS handle must
not be used by two threads at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

from aicf.errors import LaunchError

# a workspace per handle: NVIDIA's recommendation for Hopper is 32 MiB (cuBLAS's
# "cublasSetWorkspace"), more than enough elsewhere
WORKSPACE_BYTES = 32 << 20

_SUCCESS = 0
_lib: ctypes.CDLL | None = None
_lib_lock = threading.Lock()
_local = threading.local()


def _library_path() -> str | None:
    """The libcublas the process has loaded (CuPy's), else the one the loader finds."""
    from cupy.cuda import cublas  # noqa: F401  (loads libcublas)

    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rsplit(None, 1)[-1]
                if "/libcublas.so" in path:
                    return path
    except OSError:
        pass
    return ctypes.util.find_library("cublas")


def library() -> ctypes.CDLL:
    global _lib
    if _lib is not None:  # every call after the first: no lock on the launch path
        return _lib
    with _lib_lock:
        if _lib is None:
            path = _library_path()
            if path is None:
                raise LaunchError("cuBLAS: libcublas is not loaded and the loader cannot find it")
            lib = ctypes.CDLL(path)
            vp, i, ll = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
            lib.cublasCreate_v2.argtypes = [ctypes.POINTER(vp)]
            lib.cublasSetStream_v2.argtypes = [vp, vp]
            lib.cublasSetWorkspace_v2.argtypes = [vp, vp, ctypes.c_size_t]
            lib.cublasGemmStridedBatchedEx.argtypes = [
                vp, i, i, i, i, i, vp,
                vp, i, i, ll,
                vp, i, i, ll,
                vp,
                vp, i, i, ll,
                i, i, i,
            ]  # fmt: skip
            for fn in (lib.cublasCreate_v2, lib.cublasSetStream_v2, lib.cublasSetWorkspace_v2,
                       lib.cublasGemmStridedBatchedEx):  # fmt: skip
                fn.restype = ctypes.c_int
            _lib = lib
        return _lib


def _check(status: int, what: str) -> None:
    if status != _SUCCESS:
        raise LaunchError(f"cuBLAS {what} failed with status {status}")


class _Handle:
    """A cuBLAS handle of one (thread, device), the stream it is bound to, and a
    workspace per stream it has run on: cublasSetStream resets the handle's workspace
    to cuBLAS's default pool (cuBLAS's "cublasSetStream"), so each rebinding sets ours
    again, and two streams never share one (their gemms may run at once), as torch's
    handle pool does."""

    def __init__(self, ptr: int):
        self.ptr = ptr
        self.stream: int | None = None
        self.workspaces: dict[int, object] = {}

    def bind(self, stream_ptr: int) -> None:
        import cupy as cp

        lib = library()
        _check(lib.cublasSetStream_v2(self.ptr, stream_ptr), "cublasSetStream")
        ws = self.workspaces.get(stream_ptr)
        if ws is None and not _capturing(stream_ptr):
            ws = self.workspaces[stream_ptr] = cp.empty(WORKSPACE_BYTES, cp.uint8)
        # a stream first met while it captures a graph (the runtime's side stream) keeps
        # the default pool cublasSetStream gave it: nothing may be allocated then
        if ws is not None:
            _check(lib.cublasSetWorkspace_v2(self.ptr, ws.data.ptr, WORKSPACE_BYTES), "cublasSetWorkspace")
        self.stream = stream_ptr


def _capturing(stream_ptr: int) -> bool:
    import cupy as cp

    try:
        return bool(cp.cuda.runtime.streamIsCapturing(stream_ptr))
    except Exception:  # a CuPy without the binding: assume a capture, allocate nothing
        return True


def _handle() -> _Handle:
    import cupy as cp

    dev = cp.cuda.runtime.getDevice()
    handles = getattr(_local, "handles", None)
    if handles is None:
        handles = _local.handles = {}
    h = handles.get(dev)
    if h is None:
        p = ctypes.c_void_p()
        _check(library().cublasCreate_v2(ctypes.byref(p)), "cublasCreate")
        h = handles[dev] = _Handle(p.value)
    return h


def handle() -> int:
    """This thread's handle for the current device."""
    return _handle().ptr


def on_stream(stream_ptr: int) -> int:
    """This thread's handle, bound to `stream_ptr` with that stream's workspace
    (rebound only when the stream changes: the call path pays no cuBLAS call for it)."""
    h = _handle()
    if h.stream != stream_ptr:
        h.bind(stream_ptr)
    return h.ptr


def gemm_strided_batched(h: int, *args) -> None:
    """cublasGemmStridedBatchedEx on handle `h` (from `on_stream`); `args` as the C
    function takes them after the handle (alpha and beta as host pointers)."""
    _check(library().cublasGemmStridedBatchedEx(h, *args), "cublasGemmStridedBatchedEx")
