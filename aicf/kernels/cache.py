"""The artifact cache of the gate: verdicts and proposals, in memory and on disk.

Verdicts live in `$AICF_CACHE_DIR/kernels/<key>.verdict.json` (backend/disk_cache.py:
a private directory, entries checked before use, atomic writes), keyed on the op's
exact IR (its canonical structure with extents, dtypes and layouts), the target and
the kernel's source hash (source, entry, launch, workspace, argument order, guard).
Each holds the verdict, the measurements, the proof of correctness (the cases run
and their errors) and the environment it was reached in: aicf's version, the
compiler's own kernel for the op, the C compiler or NVRTC version, and the CPU or
the GPU and its driver. An entry from another environment is not trusted: the gate
runs again and replaces it.

Proposals (what a proposer command returned for a subgraph) live beside them as
`<key>.proposals.json`, keyed on the subgraph, the target and the command, so a
second process reuses them without asking the proposer again.
"""

from __future__ import annotations

import functools
import hashlib
import json

from aicf.backend import disk_cache

DIR = "kernels"
_MEMO: dict[str, dict] = {}


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


@functools.cache
def _cpu_environment() -> dict:
    from aicf.backend.c.build import compiler, compiler_version, host_cpu

    cc = compiler()
    return {"c_compiler": compiler_version(cc).strip().splitlines()[0] if compiler_version(cc).strip() else cc,
            "cpu": digest(host_cpu(cc))}


@functools.cache
def _gpu_environment() -> dict:
    env = {}
    try:
        import cupy as cp

        from aicf.backend.cuda import runtime as rt

        dev = cp.cuda.Device()
        env["nvrtc"] = rt.compiler_version()
        env["driver"] = str(cp.cuda.runtime.driverGetVersion())
        env["gpu"] = f"{cp.cuda.runtime.getDeviceProperties(dev.id)['name'].decode()} sm_{dev.compute_capability}"
    except Exception:  # noqa: BLE001 - no GPU: nothing measured, nothing to compare
        env["gpu"] = "none"
    return env


def environment(target: str, own_ir: str) -> dict:
    """What a verdict depends on besides the kernel and the op (see the module
    docstring)."""
    import aicf

    env = {"aicf": aicf.__version__, "own_kernel": digest(own_ir)}
    env.update(_cpu_environment() if target == "cpu" else _gpu_environment())
    return env


def load(key: str, suffix: str) -> dict | None:
    found = _MEMO.get(key + suffix)
    if found is not None:
        return found
    data = disk_cache.lookup_json(DIR, key, suffix)
    if data is None:
        return None
    _MEMO[key + suffix] = data
    return data


def save(key: str, suffix: str, data: dict, persist: bool = True) -> None:
    _MEMO[key + suffix] = data
    if persist:
        disk_cache.store(DIR, key, suffix, json.dumps(data, indent=1, sort_keys=True).encode())


def forget_memory() -> None:
    """Drop the in-memory copies (tests: what a fresh process would see)."""
    _MEMO.clear()
