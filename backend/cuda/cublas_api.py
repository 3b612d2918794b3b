"""cuBLAS's C API through ctypes, for the one routine the runtime calls
(`cublasGemmStridedBatchedEx`), on handles of aicf's own.

Why not CuPy's bindings: they refuse any cuBLAS call while a stream is capturing
("calling cuBLAS API during stream capture is currently unsupported", raised in
their `setStream`), so a program with a matmul could never replay as a CUDA graph.
cuBLAS itself supports capture (its workspace pool gives a capture graph
allocation nodes from CUDA 12.2; see `_Handle`). A handle of our own also leaves
CuPy's pointer and math modes alone.

The library is the one CuPy loaded (found in the process's memory map), so both
agree on the CUDA version. One handle per (thread, device): a cuBLAS handle must
not be used by two threads at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

from aicf.errors import LaunchError


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
    """A cuBLAS handle of one (thread, device) and the stream it is bound to. It runs on
    cuBLAS's own workspace pool: cublasSetStream resets any workspace set on the
    handle to that pool (cuBLAS's "cublasSetStream"), which cuBLAS keeps per stream,
    and from CUDA 12.2 a capture takes its memory as graph allocation nodes. A
    workspace of ours would have to outlive every graph captured with it and be keyed
    on stream handles, which the driver recycles."""

    def __init__(self, ptr: int):
        self.ptr = ptr
        self.stream: int | None = None

    def bind(self, stream_ptr: int) -> None:
        _check(library().cublasSetStream_v2(self.ptr, stream_ptr), "cublasSetStream")
        self.stream = stream_ptr


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
    """This thread's handle, bound to `stream_ptr` (rebound only when the stream
    changes: the call path pays no cuBLAS call for it)."""
    h = _handle()
    if h.stream != stream_ptr:
        h.bind(stream_ptr)
    return h.ptr


def gemm_strided_batched(h: int, *args) -> None:
    """cublasGemmStridedBatchedEx on handle `h` (from `on_stream`); `args` as the C
    function takes them after the handle (alpha and beta as host pointers)."""
    _check(library().cublasGemmStridedBatchedEx(h, *args), "cublasGemmStridedBatchedEx")
