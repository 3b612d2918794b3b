"""Guarded buffers: how the gate lays out each argument of a test run so that a write
outside the operand shows.

Each argument lives in its own byte buffer: a guard zone of GUARD_BYTES canary bytes,
the operand's span, another guard zone. The operand's elements sit at its strides
from the start of the span; the rest of the span (the gaps of a strided input) holds
canary bytes too. Outputs start poisoned (NaN, or the type's minimum), so an element
the kernel does not write differs from any finite expected value. After the run the
whole buffer comes back: any changed byte outside an output's elements is a write
out of bounds (or into an input).

NumPy only: the gate's child process (sandbox.py) imports this before anything else.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

GUARD_BYTES = 4096
CANARY = 0xA5
ALIGN = 256  # the data pointer's alignment: the GPU pool's, above the cpu ABI's 64

_STORAGE = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
            "i32": np.int32, "i64": np.int64, "i16": np.int16, "i8": np.int8, "i1": np.bool_}


def storage_dtype(name: str) -> np.dtype:
    """The array dtype of an aicf element type name (bf16 as its uint16 bits)."""
    return np.dtype(_STORAGE[name])


def poison(dtype: np.dtype):
    if dtype.kind == "f":
        return np.nan
    if dtype == np.uint16:  # bf16 bits: a quiet NaN
        return 0x7FC1
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return True


def element_view(buf: np.ndarray, dtype: str, shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """The operand's elements inside its guarded buffer."""
    dt = storage_dtype(dtype)
    return np.ndarray(tuple(shape), dt, buffer=buf, offset=GUARD_BYTES,
                      strides=tuple(s * dt.itemsize for s in strides))


def padded(role: str, dtype: str, shape, strides, span: int, values: np.ndarray | None) -> np.ndarray:
    """The initial bytes of an argument's buffer (guards, span, elements placed)."""
    dt = storage_dtype(dtype)
    buf = np.full(2 * GUARD_BYTES + max(span, 1) * dt.itemsize, CANARY, np.uint8)
    v = element_view(buf, dtype, shape, strides)
    v[...] = values if role == "in" else poison(dt)
    return buf


def aligned_copy(buf: np.ndarray) -> np.ndarray:
    """`buf` copied to memory whose data pointer (past the guard) is ALIGN-aligned."""
    raw = np.empty(buf.size + ALIGN, np.uint8)
    off = (-raw.ctypes.data) % ALIGN
    out = raw[off:off + buf.size]
    out[...] = buf
    return out


def guarded_workspace(nbytes: int) -> np.ndarray:
    return aligned_copy(np.full(2 * GUARD_BYTES + max(nbytes, 1), CANARY, np.uint8))


def damage(before: np.ndarray, after: np.ndarray, role: str) -> str | None:
    """What the run wrote where it must not, or None."""
    if after.shape != before.shape:
        return "its buffer came back with another size"
    n = GUARD_BYTES
    lead = np.flatnonzero(after[:n] != CANARY)
    if lead.size:
        return f"wrote {lead.size} byte(s) before its first element (from {n - lead[0]} bytes before it)"
    tail = np.flatnonzero(after[after.size - n:] != CANARY)
    if tail.size:
        return f"wrote {tail.size} byte(s) past the end of its elements (up to {tail[-1] + 1} bytes past)"
    if role == "in":
        changed = np.flatnonzero(after[n:after.size - n] != before[n:before.size - n])
        if changed.size:
            return f"wrote {changed.size} byte(s) into this input (or the gaps between its elements)"
    return None
