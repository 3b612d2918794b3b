"""The CuPy side of the cuda target: compiling kernels (with a cache), the buffer
pool, launching with error checks, and the sync policy.

Compiled modules are cached in memory (aicf/lru.py, bounded) and on disk (the private
`cuda` directory of the cache, backend/disk_cache.py: `$AICF_CACHE_DIR/cuda/<key>.cubin`,
checked before loading) under a key of (source hash, sm arch, compiler version, options).
The source is the emitted CUDA C of the whole fused group, so it already encodes
the dtypes, layouts and tile/launch parameters: any change to one changes the key.

Buffers come from CuPy's caching memory pool; every pointer we hand to a kernel is
checked for 256-byte alignment (the pool's blocks are 512-byte aligned).
"""

from __future__ import annotations

import enum
import hashlib
import re
from pathlib import Path

from aicf.backend import disk_cache
from aicf.errors import LaunchError
from aicf.logs import getLogger
from aicf.lru import LruCache

_log = getLogger("cache")

ALIGNMENT = 256
NVRTC_OPTIONS = ("-std=c++17",)


class SyncPolicy(str, enum.Enum):
    """What the runtime does after launching a program's kernels:
    NONE: return at once (the caller orders work through the stream), as torch and
    CuPy do; the default: recording an event costs ~1 us of a ~15 us call;
    EVENT_RECORD: record an event after the last launch (`program.last_event`);
    FULL_SYNC: synchronize after every launch and raise LaunchError naming the
    kernel whose execution failed (debugging)."""

    NONE = "none"
    EVENT_RECORD = "event-record"
    FULL_SYNC = "full-sync"


def cupy():
    import cupy as cp  # noqa: PLC0415

    return cp


def _arch() -> str:
    cc = cupy().cuda.Device().compute_capability  # e.g. '90'
    return f"sm_{cc}"


def compiler_version() -> str:
    try:
        from cupy_backends.cuda.libs import nvrtc  # type: ignore

        return "nvrtc-%d.%d" % nvrtc.getVersion()
    except Exception:
        return "nvrtc-unknown"


def cache_key(source: str, arch: str, options=NVRTC_OPTIONS) -> str:
    h = hashlib.sha256()
    for part in (source, arch, compiler_version(), " ".join(options)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


_MODULES: LruCache = LruCache()
STATS = {"memory_hits": 0, "disk_hits": 0, "compiles": 0}


def _nvrtc_cubin(source: str, arch: str) -> bytes:
    from cupy_backends.cuda.libs import nvrtc  # type: ignore

    prog = nvrtc.createProgram(source, "aicf.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, [f"-arch={arch}", *NVRTC_OPTIONS])
        except Exception as e:
            log = nvrtc.getProgramLog(prog)
            raise RuntimeError(f"NVRTC failed: {e}\n{log}") from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)


def load_module(source: str, arch: str | None = None):
    """A cupy.RawModule for `source`, from the memory cache, the disk cache, or
    compiled now (NVRTC to a cubin, stored on disk)."""
    cp = cupy()
    arch = arch or _arch()
    key = cache_key(source, arch)
    mod = _MODULES.get(key)
    if mod is not None:
        STATS["memory_hits"] += 1
        return mod
    path = disk_cache.lookup("cuda", key, ".cubin")
    mod = _loaded(cp, path) if path is not None else None
    if mod is not None:
        STATS["disk_hits"] += 1
    else:
        STATS["compiles"] += 1
        try:
            cubin = _nvrtc_cubin(source, arch)
        except RuntimeError:
            raise
        except Exception:
            cubin = None  # no direct NVRTC access: let CuPy compile (its own cache)
        if cubin is not None:
            path = disk_cache.store("cuda", key, ".cubin", cubin)
            mod = cp.RawModule(path=str(path))
        else:
            mod = cp.RawModule(code=source, options=(f"-arch={arch}", *NVRTC_OPTIONS))
    _MODULES[key] = mod
    return mod


def _loaded(cp, path):
    """The RawModule of a cached cubin, loaded now (CuPy loads lazily, at the first
    kernel lookup): a cubin that passed the cache's checks may still not load (built
    by another driver or toolkit, or for another variant of the arch). Then the entry
    is dropped and the caller builds it again, instead of every launch failing."""
    mod = cp.RawModule(path=str(path))
    try:
        source_name = _first_kernel(path)
        if source_name is not None:
            mod.get_function(source_name)
    except Exception as e:  # noqa: BLE001 - CuPy's driver errors, or anything the load raises
        _log.info("the cached cubin %s did not load (%s); rebuilding it", path, e)
        disk_cache.remove(path)
        return None
    return mod


def _first_kernel(path) -> str | None:
    """A kernel the cubin defines, from its section names (`.text.NAME` in the ELF's
    string table); None when there is none to look up."""
    data = Path(path).read_bytes()
    for m in re.finditer(rb"\.text\.([A-Za-z_]\w*)\x00", data):  # a kernel's code section
        return m.group(1).decode()
    return None


def check_aligned(ptr: int, what: str, align: int = ALIGNMENT) -> None:
    if ptr % align:
        raise LaunchError(f"{what}: pointer {ptr:#x} is not {align}-byte aligned")


def allocate(shape, dtype):
    """A device buffer from CuPy's caching pool, checked for the ABI's alignment."""
    cp = cupy()
    a = cp.empty(shape, dtype=dtype)
    if a.size:
        check_aligned(a.data.ptr, "pool allocation")
    return a


def launch(fn, name: str, grid, block, smem: int, args, stream, policy: SyncPolicy) -> None:
    cp = cupy()
    try:
        if smem > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = smem
        fn(tuple(grid), tuple(block), tuple(args), shared_mem=smem, stream=stream)
        if policy is SyncPolicy.FULL_SYNC:
            stream.synchronize()
    except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
        raise LaunchError(
            f"launch of kernel '{name}' failed (grid={list(grid)}, block={list(block)}, "
            f"smem={smem}): {e}"
        ) from None
