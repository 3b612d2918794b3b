"""Arrays from other libraries (torch, JAX, CuPy, ...) at an executable's boundary,
taken through DLPack without copies.

`as_array(a, target, where)`: NumPy arrays, NumPy scalars and (cuda target) CuPy arrays
are returned as they are; any other object with `__dlpack__` becomes a NumPy array
(`np.from_dlpack`) when its memory is on the CPU, or a CuPy array (`cupy.from_dlpack`)
when it is on a CUDA device and the target is cuda. An array on a device the target
cannot read, or one DLPack cannot export (a torch tensor that requires grad, a dtype
NumPy lacks, a lazily negated view), raises ArgumentError naming the argument, its device and its layout.
A masked array is refused (its mask would be ignored). Anything else is returned
unchanged for the caller's own checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aicf.errors import ArgumentError

# DLDeviceType codes (dlpack.h)
_CPU, _CUDA, _CUDA_MANAGED = 1, 2, 13
_DEVICE_NAMES = {
    1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi",
    10: "rocm", 11: "rocm_host", 13: "cuda_managed", 14: "oneapi", 15: "webgpu", 16: "hexagon",
}  # fmt: skip


def _is_cupy(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "cupy"


def _negative_bit(a: Any) -> bool:
    """Whether `a` is a torch tensor whose values are its memory negated (is_neg())."""
    is_neg = getattr(a, "is_neg", None)
    try:
        return callable(is_neg) and bool(is_neg())
    except Exception:  # not torch's method: no such bit
        return False


def describe(a: Any) -> str:
    """`torch.Tensor of dtype torch.float32, shape (4, 8), strides (1, 4)`."""
    parts = [f"{type(a).__module__.split('.')[0]}.{type(a).__name__}"]
    for key in ("dtype", "shape"):
        value = getattr(a, key, None)
        if value is not None:
            parts.append(f"{key} {tuple(value) if key == 'shape' else value}")
    strides = getattr(a, "stride", None) or getattr(a, "strides", None)
    if callable(strides):
        try:
            strides = strides()
        except Exception:  # describing must not fail
            strides = None
    if isinstance(strides, tuple | list):
        parts.append(f"strides {tuple(strides)}")
    return parts[0] + " of " + ", ".join(parts[1:]) if len(parts) > 1 else parts[0]


# what a traced function does to an array: an ndarray subclass redefining one of these
# means something else by the function's code than the plain array it is traced as
_TRACED_METHODS = tuple(
    f"__{r}{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                  "matmul") for r in ("", "r")
) + ("__neg__", "__array_ufunc__", "__array_function__", "sum", "mean", "max", "min", "var",
     "std", "transpose", "reshape", "astype")  # fmt: skip


def redefined_numpy(a: Any) -> str | None:
    """A note on what an ndarray subclass `a` redefines that a traced function would
    not follow (a masked array's mask, np.matrix's algebra, any other subclass's own
    arithmetic, ufuncs or reductions), None for a plain array or a subclass that only
    adds to it (np.memmap)."""
    if isinstance(a, np.ma.MaskedArray):
        return "a numpy.ma.MaskedArray: the compiled program reads every element and would ignore its mask; pass x.filled(value) (or np.asarray(x) for the raw data)"  # noqa: E501
    if isinstance(a, np.matrix):
        return "a numpy.matrix: its `*`, `**` and reductions are matrix algebra, which the traced function would not follow; pass np.asarray(x)"  # noqa: E501
    cls = type(a)
    if not isinstance(a, np.ndarray) or cls is np.ndarray:
        return None
    for name in _TRACED_METHODS:
        if getattr(cls, name, None) is not getattr(np.ndarray, name, None):
            return (f"a {cls.__module__}.{cls.__qualname__} (an ndarray subclass) redefines "
                    f"{name}, which the traced function would not follow (it traces a plain "
                    "array); pass np.asarray(x)")
    return None


def as_array(a: Any, target: str, where: str) -> Any:
    """`a` as an array the `target` ("cpu" or "cuda") takes; see the module docstring."""
    if isinstance(a, np.ma.MaskedArray):  # its data alone would be read: a silent wrong answer
        raise ArgumentError(f"{where}: {redefined_numpy(a)}")
    if isinstance(a, np.ndarray | np.generic) or (target == "cuda" and _is_cupy(a)):
        return a
    if not hasattr(a, "__dlpack__"):
        return a
    try:
        device_type, device_id = a.__dlpack_device__()
        device_type = int(device_type)
    except Exception as e:
        raise ArgumentError(
            f"{where}: cannot read the DLPack device of {describe(a)}: {e}"
        ) from None
    device = f"{_DEVICE_NAMES.get(device_type, f'device type {device_type}')}:{device_id}"
    if device_type == _CPU:
        take = np.from_dlpack
    elif target == "cuda" and device_type in (_CUDA, _CUDA_MANAGED):
        import cupy  # type: ignore[import-not-found]

        take = cupy.from_dlpack
    else:
        needs = "the CPU" if target == "cpu" else "the CPU or a CUDA device"
        raise ArgumentError(
            f"{where}: {describe(a)} is on {device}; the {target} target takes arrays on "
            f"{needs} (copy it there first, e.g. torch's x.cpu())"
        )
    if _negative_bit(a):
        # torch exports the memory of a lazily negated view (z.conj().imag,
        # x._neg_view()) without the sign: every value was read (and written) negated
        raise ArgumentError(
            f"{where}: {describe(a)} has torch's negative bit set (a lazily negated view); "
            "DLPack would carry its memory without the sign: pass x.resolve_neg()"
        )
    try:
        return take(a)
    except Exception as e:  # BufferError, TypeError, RuntimeError: the exporter's words
        hint = ""
        if "bfloat16" in str(getattr(a, "dtype", "")):
            hint = " (aicf takes bf16 as uint16 bits: torch's x.view(torch.uint16))"
        raise ArgumentError(
            f"{where}: {describe(a)} on {device} cannot be taken through DLPack: {e}{hint}"
        ) from None
