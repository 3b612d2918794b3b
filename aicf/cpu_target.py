"""The CPU the cpu target runs on, as data: every hardware number a cpu decision uses.

`host_cpu()` reads what the machine can say (core count, vector width from the
/proc/cpuinfo flags, cache sizes from sysconf or /sys) and fills in the rates it cannot
read with figures measured on the development machine (each says where it came from).
A decision takes a `CpuTarget` as a parameter, so a test or a benchmark can pass another.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CpuTarget:
    name: str
    cores: int
    simd_bits: int
    """The widest vector registers the C compiler may use (-march=native)."""
    l1d_bytes: int
    l2_bytes: int
    l3_bytes: int
    sgemm_flops_per_core: float
    """FLOP/s of one core in OpenBLAS sgemm on large square matrices (dgemm: half)."""
    naive_matmul_flops_per_core: float
    """FLOP/s of one core in the C emitter's plain matmul nest (a dot product per output,
    accumulated in double): what BLAS is weighed against."""
    mem_bytes_per_s: float
    """Memory bandwidth (read + write) of the whole socket share we get."""
    blas_call_s: float
    """Fixed cost of one single-threaded BLAS call (argument checks, packing set-up),
    which dominates for tiny matrices."""
    parallel_region_s: float
    """Fork and join of one OpenMP parallel loop over all cores."""

    @property
    def dgemm_flops_per_core(self) -> float:
        return self.sgemm_flops_per_core / 2


# Measured on the development machine (AMD EPYC, Zen 4, 2 cores, AVX-512), 2026-11-23:
# NumPy 2.4's OpenBLAS sgemm 1024^3 on one thread: 90 GFLOP/s (dgemm 45); np.copyto of
# 256 MiB f32: 24.6 GB/s read+write; the emitted naive matmul nest 1024^3: 1.7 GFLOP/s on
# two threads (issue 7); from C, a 2x2x2 single-threaded scipy-openblas32 sgemm call:
# 0.03-0.11 us; an empty `omp parallel for` over 2 threads: PARALLEL_REGION_S below
# (bench/NOTES.md, "CPU matmul through OpenBLAS").
_MEASURED_SGEMM_FLOPS_PER_CORE = 90e9
_MEASURED_NAIVE_MATMUL_FLOPS_PER_CORE = 0.85e9
_MEASURED_MEM_BYTES_PER_S = 24.6e9
_MEASURED_BLAS_CALL_S = 0.1e-6
_MEASURED_PARALLEL_REGION_S = 2e-6


def _cpuinfo() -> dict[str, str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    info: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
    return info


def _simd_bits(flags: set[str]) -> int:
    if "avx512f" in flags:
        return 512
    if "avx2" in flags or "avx" in flags:
        return 256
    return 128


def _sysconf(name: str) -> int:
    try:
        v = os.sysconf(name)
    except (ValueError, OSError):
        return 0
    return max(int(v), 0)


def _sys_cache(level: int) -> int:
    """The size of a data/unified cache of `level` from /sys (bytes; 0 if unknown)."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for idx in sorted(base.glob("index*")):
        try:
            if int((idx / "level").read_text()) != level:
                continue
            if (idx / "type").read_text().strip() == "Instruction":
                continue
            size = (idx / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        if size and size[-1] in units:
            return int(size[:-1]) * units[size[-1]]
        return int(size)
    return 0


@functools.cache
def host_cpu() -> CpuTarget:
    """The machine this process runs on, with the cores its OpenMP threads may use: the
    affinity mask, or fewer when OMP_NUM_THREADS says so."""
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    omp = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if omp.isdigit() and int(omp) > 0:
        cores = min(cores, int(omp))
    caches = [
        _sysconf(f"SC_LEVEL{lvl}_{'D' if lvl == 1 else ''}CACHE_SIZE") or _sys_cache(lvl)
        for lvl in (1, 2, 3)
    ]
    return CpuTarget(
        name=info.get("model name", "unknown CPU"),
        cores=cores,
        simd_bits=_simd_bits(flags),
        l1d_bytes=caches[0] or 32 << 10,
        l2_bytes=caches[1] or 1 << 20,
        l3_bytes=caches[2] or 32 << 20,
        sgemm_flops_per_core=_MEASURED_SGEMM_FLOPS_PER_CORE,
        naive_matmul_flops_per_core=_MEASURED_NAIVE_MATMUL_FLOPS_PER_CORE,
        mem_bytes_per_s=_MEASURED_MEM_BYTES_PER_S,
        blas_call_s=_MEASURED_BLAS_CALL_S,
        parallel_region_s=_MEASURED_PARALLEL_REGION_S,
    )
