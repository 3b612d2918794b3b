"""The kernel store: an external kernel's description by its key, for the backends.

A `cpu.external` / `gpu.external` schedule names its kernel by key (name and source
hash); the emitters find the source here: in this process's memory (every kernel
the planner considered), else on disk (`$AICF_CACHE_DIR/kernels/<key>.kernel.json`,
written when the gate admits a kernel; backend/disk_cache.py checks it), so a
module planned in one process builds in another. A kernel read back must hash to
its key.
"""

from __future__ import annotations

import json

from aicf.backend import disk_cache
from aicf.errors import CompileError

from .kernel import ExternalKernel

_KERNELS: dict[str, ExternalKernel] = {}
_SUFFIX = ".kernel.json"


def put(kernel: ExternalKernel, persist: bool = False) -> None:
    _KERNELS[kernel.key] = kernel
    if persist:
        disk_cache.store("kernels", kernel.key, _SUFFIX, json.dumps(kernel.to_data()).encode())


def get(key: str) -> ExternalKernel | None:
    k = _KERNELS.get(key)
    if k is not None:
        return k
    try:
        path = disk_cache.lookup("kernels", key, _SUFFIX)
    except CompileError:  # no key of ours (a path, from a hand-written schedule): no kernel
        return None
    if path is None:
        return None
    try:
        k = ExternalKernel.from_data(json.loads(path.read_text()))
    except Exception:  # noqa: BLE001 - an unreadable entry is no kernel
        return None
    if k.key != key:
        return None
    _KERNELS[key] = k
    return k
