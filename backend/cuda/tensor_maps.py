"""Tensor maps for bulk tensor copies, and launching the kernels that take them.

A kernel whose `aicf_gpu.tma_load` ops read a parameter through a tensor map takes
one `const __grid_constant__ aicf_tensor_map` per distinct (parameter, dims, box)
after its ordinary parameters (dialects/gpu_async.py). The map is a 128-byte
descriptor that only the driver can encode (`cuTensorMapEncodeTiled`, with the
argument's pointer, extents and byte strides); CuPy has no way to pass a struct by
value, so these kernels are launched through the driver's `cuLaunchKernel` with
ctypes, the kernel handle and stream coming from CuPy.

Encoded maps are cached per (pointer, extents, strides, dtype, box): CuPy's pool hands
the same pointers out again, and an encode costs about a microsecond.
"""

from __future__ import annotations

import ctypes
from functools import lru_cache

import numpy as np

from aicf.errors import LaunchError
from aicf.lru import LruCache

# CUtensorMapDataType (cuda.h)
_FLOAT16, _FLOAT32, _BF16 = 6, 7, 9
_SWIZZLE_128B = 3
_L2_PROMOTION_128B = 2
TMA_ALIGNMENT = 16  # global address and strides of a tensor map (bytes)


@lru_cache(maxsize=1)
def _driver():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:  # pragma: no cover - only without a driver
        raise LaunchError(f"tensor-map kernels need the CUDA driver library: {e}") from None
    lib.cuTensorMapEncodeTiled.restype = ctypes.c_int
    lib.cuTensorMapEncodeTiled.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
        ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
    ]
    lib.cuLaunchKernel.restype = ctypes.c_int
    lib.cuLaunchKernel.argtypes = [
        ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
        ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
    ]
    return lib


def element_code(t) -> int:
    """The CUtensorMapDataType of an element type (bf16 arrays travel as uint16 bits,
    so the kernel's type names it, not the array's dtype)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type

    for cls, code in ((Float16Type, _FLOAT16), (Float32Type, _FLOAT32), (BFloat16Type, _BF16)):
        if isinstance(t, cls):
            return code
    raise LaunchError(f"no tensor map for element type {t}")


_MAPS: LruCache = LruCache(256)


class TensorMap(ctypes.Structure):
    _fields_ = [("opaque", ctypes.c_uint64 * 16)]
    _align_ = 64


def encode(array, dims: tuple[int, ...], box: tuple[int, ...], code: int) -> TensorMap:
    """The tensor map of `array` (a CuPy array) over its dims `dims`, innermost
    first (the first must have unit stride), copying boxes of `box` elements of the
    element type `code` (element_code)."""
    shape, strides = array.shape, array.strides
    if strides[dims[0]] != array.itemsize and shape[dims[0]] > 1:
        raise LaunchError(f"a tensor-map argument's dim {dims[0]} is not contiguous (strides {strides})")
    return encode_raw(array.data.ptr, [shape[d] for d in dims], [strides[d] for d in dims[1:]], box, code)


def encode_raw(ptr: int, extents, byte_strides, box: tuple[int, ...], code: int) -> TensorMap:
    """The tensor map of the tensor at `ptr` of `extents` (innermost first, unit
    stride) and the byte strides of the other dims; a dim of extent 1 may have any
    stride (a broadcast one: stride 0)."""
    extents, byte_strides = tuple(extents), tuple(byte_strides)
    key = (ptr, extents, byte_strides, code, box)
    m = _MAPS.get(key)
    if m is not None:
        return m
    if ptr % TMA_ALIGNMENT:
        raise LaunchError(f"a tensor-map argument at {ptr:#x} is not {TMA_ALIGNMENT}-byte aligned")
    rank = len(extents)
    gdim = (ctypes.c_uint64 * rank)(*extents)
    gstride = (ctypes.c_uint64 * max(rank - 1, 1))(*[max(s, TMA_ALIGNMENT) for s in byte_strides] or [0])
    cbox = (ctypes.c_uint32 * rank)(*box)
    ones = (ctypes.c_uint32 * rank)(*([1] * rank))
    m = TensorMap()
    r = _driver().cuTensorMapEncodeTiled(
        ctypes.addressof(m), code, rank, ptr, gdim, gstride, cbox, ones, 0, _SWIZZLE_128B, _L2_PROMOTION_128B, 0
    )
    if r != 0:
        raise LaunchError(
            f"cuTensorMapEncodeTiled failed ({r}) for extents {list(extents)}, "
            f"byte strides {list(byte_strides)}, box {list(box)}"
        )
    _MAPS[key] = m
    return m


def _scalar(v, index_dtype) -> ctypes._SimpleCData:
    if isinstance(v, ctypes._SimpleCData):  # the caller typed it
        return v
    if isinstance(v, np.integer | int):
        return ctypes.c_int64(int(v)) if index_dtype == np.int64 else ctypes.c_int32(int(v))
    if isinstance(v, np.floating | float):
        return ctypes.c_float(float(v))
    raise LaunchError(f"cannot pass {type(v).__name__} to a tensor-map kernel")


def launch(fn, name: str, grid, block, smem: int, args, maps, stream, index_dtype=np.int32) -> None:
    """Launch `fn` (a CuPy kernel) with `args` (CuPy arrays and index scalars, in
    parameter order) followed by the encoded tensor `maps` [(array, dims, box, dtype code
    [, (shape, element strides) of the kernel's parameter type, which the map then
    describes: the array may hold the buffer in another shape])], on `stream`."""
    params: list = []
    for a in args:
        if hasattr(a, "data") and hasattr(a.data, "ptr"):
            params.append(ctypes.c_void_p(a.data.ptr))
        else:
            params.append(_scalar(a, index_dtype))
    for array, dims, box, code, *layout in maps:
        if layout and layout[0] is not None:  # the kernel's view of the buffer: its type's shape and strides
            shape, strides = layout[0]
            params.append(encode_raw(array.data.ptr, [shape[d] for d in dims],
                                     [strides[d] * array.itemsize for d in dims[1:]], box, code))
        else:
            params.append(encode(array, dims, box, code))
    launch_params(fn, name, grid, block, smem, params, stream)


def launch_params(fn, name: str, grid, block, smem: int, params: list, stream) -> None:
    """Launch `fn` (a CuPy kernel) with its parameters as ctypes values (tensor maps
    among them: passed by value), on `stream`."""
    ptrs = (ctypes.c_void_p * len(params))(*[ctypes.addressof(p) for p in params])
    handle = getattr(fn, "kernel", fn).ptr
    if smem > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = smem
    r = _driver().cuLaunchKernel(handle, *grid, *block, smem, stream.ptr, ptrs, None)
    if r != 0:
        raise LaunchError(f"launch of kernel '{name}' failed (CUresult {r}; grid={list(grid)}, "
                          f"block={list(block)}, smem={smem})")
