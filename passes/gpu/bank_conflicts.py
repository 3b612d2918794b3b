"""Shared-memory bank conflicts of a warp's access, from a layout's index function.

The model is Hopper's (and Ampere's): 32 banks of 4 bytes. A warp's access of
`width` bytes per thread is served in phases: 4-byte accesses in one phase of 32
threads, 8-byte in two phases of 16, 16-byte in four phases of 8 threads. Within a
phase, threads reading the same 4-byte word share it (broadcast); distinct words in
the same bank are served one after another. A phase therefore costs as many
wavefronts as the largest number of distinct words any one bank must deliver, and
the access costs the sum over its phases. An access is conflict-free when every
phase costs one wavefront.

The layout side is the index function of the shared buffer's type: row-major for
the identity layout, `SwizzleLayoutAttr.offset` / `PaddedLayoutAttr.offset` for the
`aicf_gpu` layouts. `warp_access` evaluates it for each lane of a warp, and
`layout_offsets` on NumPy arrays for the layout search. After
`aicf-lower-smem-layouts` a shared buffer is flat (identity layout) and its accesses'
indices are the arith the pass generated from that same function: the per-lane
counter (passes/gpu/swizzle_smem.py: `access_costs`) evaluates those ops, what the
emitter prints (test/python/test_lower_smem_layouts.py checks that the NumPy
evaluation and the generated arith agree on every index).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute

from aicf.dialects.gpu import layout_offset  # noqa: F401  (re-exported: the counter prices with it)

WARP = 32
BANKS = 32
BANK_BYTES = 4


@dataclass(frozen=True)
class AccessCost:
    wavefronts: int  # what the access costs
    phases: int  # phases with at least one active thread: the conflict-free cost

    @property
    def conflicts(self) -> int:
        """Extra wavefronts over the conflict-free cost."""
        return self.wavefronts - self.phases

    @property
    def degree(self) -> float:
        """Wavefronts per phase (1.0: conflict-free; 2.0: two-way conflicts)."""
        return self.wavefronts / self.phases if self.phases else 1.0


def threads_per_phase(width: int, banks: int = BANKS, bank_bytes: int = BANK_BYTES) -> int:
    """Threads served together: one phase moves at most banks * bank_bytes bytes."""
    if width not in (1, 2, 4, 8, 16):
        raise ValueError(f"an access moves 1, 2, 4, 8 or 16 bytes, not {width}")
    return min(WARP, (banks * bank_bytes) // max(width, bank_bytes))


def access_cost(
    byte_addrs: Sequence[int | None],
    width: int,
    banks: int = BANKS,
    bank_bytes: int = BANK_BYTES,
) -> AccessCost:
    """Cost of one warp access: `byte_addrs[lane]` is the lane's first byte (None for
    an inactive lane), each lane moving `width` bytes."""
    per = threads_per_phase(width, banks, bank_bytes)
    wavefronts = phases = 0
    for start in range(0, len(byte_addrs), per):
        words_by_bank: dict[int, set[int]] = {}
        for a in byte_addrs[start : start + per]:
            if a is None:
                continue
            first = a // bank_bytes
            last = (a + width - 1) // bank_bytes
            for w in range(first, last + 1):
                words_by_bank.setdefault(w % banks, set()).add(w)
        if words_by_bank:
            phases += 1
            wavefronts += max(len(ws) for ws in words_by_bank.values())
    return AccessCost(wavefronts, phases)


def warp_access(
    layout: Attribute,
    shape: Sequence[int],
    elem_bytes: int,
    index_of_lane: Callable[[int], Sequence[int] | None],
    vec: int = 1,
) -> AccessCost:
    """Cost of a warp access where lane l touches `vec` consecutive elements starting
    at `index_of_lane(l)` (None: the lane is inactive)."""
    addrs: list[int | None] = []
    for lane in range(WARP):
        idx = index_of_lane(lane)
        addrs.append(None if idx is None else layout_offset(layout, idx, shape) * elem_bytes)
    return access_cost(addrs, vec * elem_bytes)


def unique_bytes(byte_addrs: Sequence[int | None], width: int) -> int:
    """Distinct bytes a warp access touches (what it needs at best, broadcasts merged)."""
    words: set[int] = set()
    for a in byte_addrs:
        if a is not None:
            words.update(range(a // BANK_BYTES, (a + width - 1) // BANK_BYTES + 1))
    return len(words) * BANK_BYTES


# --------------------------------------------------------------------------------------
# The same, vectorised over many warp accesses (layout search prices thousands)
# --------------------------------------------------------------------------------------


def layout_offsets(layout: Attribute, index: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """`layout_offset` over an integer array whose last axis is the index."""
    index = np.asarray(index, dtype=np.int64)
    return np.asarray(layout_offset(layout, [index[..., d] for d in range(index.shape[-1])], shape))


def wavefronts_many(byte_addrs: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """Wavefronts of each of n warp accesses: `byte_addrs`, `active` are (n, 32)."""
    n = byte_addrs.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    per = threads_per_phase(width)
    phases = WARP // per
    nw = max(1, -(-width // BANK_BYTES))
    words = (byte_addrs // BANK_BYTES)[..., None] + np.arange(nw)  # (n, 32, nw)
    phase = np.broadcast_to((np.arange(WARP) // per)[None, :, None], words.shape)
    acc = np.broadcast_to(np.arange(n)[:, None, None], words.shape)
    mask = np.broadcast_to(active[..., None], words.shape)
    w, p, a = words[mask], phase[mask], acc[mask]
    span = int(w.max()) + 1 if w.size else 1
    key = np.unique((a * phases + p) * span + w)
    wd = key % span
    ap = key // span
    counts = np.bincount(ap * BANKS + wd % BANKS, minlength=n * phases * BANKS)
    per_phase = counts.reshape(n, phases, BANKS).max(axis=2)
    return per_phase.sum(axis=1)
