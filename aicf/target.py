"""Target descriptions: the hardware numbers every decision reads, as data.

One place for them, so no tile size or launch bound is a constant buried in a pass or
the emitter. Each planning pass takes a target by name (`target=` option: h100 /
sm_90, a100 / sm_80, cpu, or auto: the GPU CuPy finds, else the host CPU).

GPU: bandwidth and peak rates of the H100 are the ones measured on the lent H100
(DESIGN.md's table); the A100's are published figures (not measured here), marked so.
What the device can say about itself (SM count, shared memory, L2, clock, registers)
is read from it when one is present (`GpuTarget.from_device`), over the description
of its compute capability. CPU: read from the host (cores, SIMD width, caches), the
rates are figures measured on this project's machines (see CpuTarget).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class GpuTarget:
    name: str
    sm_arch: int  # compute capability as an int: 90 for sm_90
    num_sms: int
    warp_size: int
    max_threads_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int  # 32-bit registers
    max_registers_per_thread: int
    smem_per_sm: int  # bytes
    smem_per_block_optin: int  # bytes, after cudaFuncSetAttribute
    smem_per_block_default: int  # bytes, without opt-in
    smem_banks: int
    smem_bank_bytes: int
    l2_bytes: int
    dram_bandwidth: float  # bytes/s, measured (read + write)
    fp32_flops: float  # FLOP/s, FFMA peak (measured via cuBLAS fp32 sgemm)
    tf32_flops: float
    fp16_flops: float
    launch_overhead_s: float  # empty launch from Python, measured
    max_vector_bytes: int = 16  # widest global load/store per thread
    mem_latency_s: float = 7.0e-7  # DRAM load latency under load: bytes in flight = bw * latency
    clock_hz: float = 1.755e9  # SM boost clock, to turn cycle counts into seconds
    # Added for the matmul cost model (aicf/cost_model.py):
    l2_bandwidth: float = 5.5e12  # bytes/s, L2 -> SM (estimate, not measured here)
    smem_bytes_per_clk: int = 128  # shared-memory bandwidth per SM (one wavefront/clock)
    reg_alloc_unit: int = 256  # registers are allocated per warp in units of this many
    smem_reserved_per_block: int = 1024  # the driver's per-block shared-memory reservation
    sub_partitions: int = 4  # SM sub-partitions (schedulers), each with 1/4 of the registers
    # special-function unit (MUFU: ex2, rcp, sin, tanh, ...; F2I/FRND share its rate)
    # results per SM a clock, against 128 FFMA (CUDA C Programming Guide, throughput
    # of native arithmetic instructions, compute capability 8.x and 9.0)
    mufu_per_sm_clock: int = 16

    # library kernels through CuPy, measured on the lent H100 (DESIGN.md's table):
    # cupy.sum over rows of these lengths reached this share of the copy bandwidth
    # (262144x128: 1546, 65536x1024: 1865, 8192^2: 2651, 1024x65536: 2463 GB/s)
    library_reduce_efficiency: tuple[tuple[int, float], ...] = (
        (128, 0.52), (1024, 0.63), (8192, 0.895), (65536, 0.83))
    # the output tile one cuBLAS block computes on large problems (its waves over the
    # SMs decide small problems' times)
    library_gemm_tile: int = 128
    max_grid_y: int = 65535  # CUDA limits on gridDim.y / .z
    max_grid_z: int = 65535
    kind: str = "gpu"

    @property
    def sm(self) -> str:
        return f"sm_{self.sm_arch}"

    @classmethod
    def from_device(cls, device: int | None = None) -> GpuTarget:
        """The description of a GPU CuPy sees: what the driver reports (SMs, shared
        memory, L2, clock, registers) over the described figures of its compute
        capability (bandwidth, peak rates)."""
        from aicf.backend.cuda import runtime as rt

        cp = rt.cupy()
        dev = cp.cuda.Device(device) if device is not None else cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        base = target_for(int(dev.compute_capability))
        name = props.get("name", base.name)
        return replace(
            base,
            name=name.decode() if isinstance(name, bytes) else str(name),
            num_sms=int(props.get("multiProcessorCount", base.num_sms)),
            smem_per_sm=int(props.get("sharedMemPerMultiprocessor", base.smem_per_sm)),
            smem_per_block_optin=int(props.get("sharedMemPerBlockOptin", base.smem_per_block_optin)),
            l2_bytes=int(props.get("l2CacheSize", base.l2_bytes)),
            registers_per_sm=int(props.get("regsPerMultiprocessor", base.registers_per_sm)),
            clock_hz=float(props.get("clockRate", base.clock_hz / 1e3)) * 1e3,
        )


H100 = GpuTarget(
    name="NVIDIA H100 80GB HBM3",
    sm_arch=90,
    num_sms=132,
    warp_size=32,
    max_threads_per_block=1024,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    max_registers_per_thread=255,
    smem_per_sm=228 * 1024,
    smem_per_block_optin=227 * 1024,
    smem_per_block_default=48 * 1024,
    smem_banks=32,
    smem_bank_bytes=4,
    l2_bytes=50 * 1024 * 1024,
    dram_bandwidth=2962e9,
    fp32_flops=51e12,
    tf32_flops=362e12,
    fp16_flops=702e12,
    launch_overhead_s=4.8e-6,
)

A100 = GpuTarget(
    # published figures for the A100 SXM4 80GB (not measured here): 2039 GB/s peak
    # DRAM, of which a copy reaches ~90%; 19.5 / 156 / 312 TFLOP/s fp32 / tf32 / fp16
    name="NVIDIA A100-SXM4-80GB",
    sm_arch=80,
    num_sms=108,
    warp_size=32,
    max_threads_per_block=1024,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    max_registers_per_thread=255,
    smem_per_sm=164 * 1024,
    smem_per_block_optin=163 * 1024,
    smem_per_block_default=48 * 1024,
    smem_banks=32,
    smem_bank_bytes=4,
    l2_bytes=40 * 1024 * 1024,
    dram_bandwidth=1.83e12,
    fp32_flops=19.5e12,
    tf32_flops=156e12,
    fp16_flops=312e12,
    launch_overhead_s=4.8e-6,
    clock_hz=1.41e9,
    l2_bandwidth=4.0e12,
)

DEFAULT_GPU = H100
"""The description planned for when no GPU is present and none is named (CI, lit)."""


TARGETS: dict[int, GpuTarget] = {H100.sm_arch: H100, A100.sm_arch: A100}
"""Target descriptions by compute capability; planning for a GPU with another's
numbers would pick tiles that do not fit, so an undescribed one is refused."""


def target_for(sm_arch: int) -> GpuTarget:
    """The description of a GPU of compute capability `sm_arch` (90 for sm_90)."""
    try:
        return TARGETS[sm_arch]
    except KeyError:
        known = ", ".join(f"sm_{a}" for a in TARGETS)
        from aicf.errors import AicfError

        raise AicfError(
            f"no target description for sm_{sm_arch} (aicf describes {known}); "
            "add one to aicf/target.py with the device's numbers"
        ) from None


@dataclass(frozen=True)
class CpuTarget:
    """The host CPU as the cpu target's planner sees it. Cores, SIMD width and cache
    sizes are read from the host; the rates are measured figures (see `host`)."""

    name: str
    cores: int
    simd_bytes: int  # widest vector register (AVX-512: 64, AVX2: 32, SSE/NEON: 16)
    l1d_bytes: int
    l2_bytes: int
    l3_bytes: int
    dram_bandwidth: float  # bytes/s, read + write, all cores
    fp32_flops: float  # FLOP/s, all cores, vectorised FMA loops
    # starting an OpenMP parallel region and joining it (libgomp, measured ~2-5 us)
    launch_overhead_s: float = 3e-6
    kind: str = "cpu"

    @classmethod
    @functools.cache
    def host(cls) -> CpuTarget:
        """This machine. Rates: a 2-core x86-64 cloud VM of this project measured
        ~10 GB/s copy and ~50 GFLOP/s per core for a vectorised FMA loop (AVX2 + FMA);
        scaled by the cores and SIMD width read here."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        flags, name = _cpuinfo()
        simd = 64 if "avx512f" in flags else 32 if "avx2" in flags else 16
        return cls(
            name=name or "host CPU",
            cores=cores,
            simd_bytes=simd,
            l1d_bytes=_cache_size(1, 32 * 1024),
            l2_bytes=_cache_size(2, 1024 * 1024),
            l3_bytes=_cache_size(3, 8 * 1024 * 1024),
            dram_bandwidth=10e9 * min(cores, 8) / 2,
            fp32_flops=cores * 50e9 * simd / 32,
        )


def _cpuinfo() -> tuple[set[str], str]:
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return set(), ""
    flags: set[str] = set()
    name = ""
    for line in text.splitlines():
        k, _, v = line.partition(":")
        k = k.strip()
        if k in ("flags", "Features") and not flags:
            flags = set(v.split())
        elif k == "model name" and not name:
            name = v.strip()
    return flags, name


def _cache_size(level: int, default: int) -> int:
    key = {1: "SC_LEVEL1_DCACHE_SIZE", 2: "SC_LEVEL2_CACHE_SIZE", 3: "SC_LEVEL3_CACHE_SIZE"}[level]
    try:
        v = os.sysconf(key)
    except (ValueError, OSError):
        return default
    return v if v and v > 0 else default


_NAMED: dict[str, GpuTarget] = {"h100": H100, "sm_90": H100, "sm_90a": H100, "a100": A100, "sm_80": A100}


def gpu_present() -> bool:
    try:
        from aicf.backend.cuda import runtime as rt

        return rt.cupy().cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


def resolve_gpu_target(name: str = "auto") -> GpuTarget:
    """The GPU description a `target=` option names; auto: the GPU CuPy finds (read
    from the device), else sm_90's description."""
    key = name.strip().lower()
    if key in ("auto", "gpu", "cuda", ""):
        return GpuTarget.from_device() if gpu_present() else DEFAULT_GPU
    if key in _NAMED:
        return _NAMED[key]
    from aicf.errors import AicfError

    raise AicfError(f"unknown GPU target '{name}' (known: {', '.join(sorted(_NAMED))}, auto)")


def resolve_target(name: str = "auto") -> GpuTarget | CpuTarget:
    """A `target=` option: a GPU name (see resolve_gpu_target; `gpu`: the GPU CuPy
    finds, else sm_90), `cpu` (this host), or auto (the GPU CuPy finds, else this
    host's CPU)."""
    key = name.strip().lower()
    if key in ("cpu", "host"):
        return CpuTarget.host()
    if key in ("auto", ""):
        return GpuTarget.from_device() if gpu_present() else CpuTarget.host()
    return resolve_gpu_target(key)

