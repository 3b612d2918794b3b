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
from pathlib import Path


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
    # the share of the DRAM bandwidth one SM's loads can draw (its outstanding misses
    # bound it): a grid of fewer blocks than 1 / this leaves bandwidth unused. An
    # estimate (~100 GB/s an SM, a quarter of the SMs saturating DRAM) to calibrate
    sm_dram_share: float = 1 / 33
    clock_hz: float = 1.755e9  # SM boost clock, to turn cycle counts into seconds
    # Added for the matmul cost model (aicf/cost/matmul.py):
    l2_bandwidth: float = 5.5e12  # bytes/s, L2 -> SM (estimate, not measured here)
    smem_bytes_per_clk: int = 128  # shared-memory bandwidth per SM (one wavefront/clock)
    reg_alloc_unit: int = 256  # registers are allocated per warp in units of this many
    smem_reserved_per_block: int = 1024  # the driver's per-block shared-memory reservation
    sub_partitions: int = 4  # SM sub-partitions (schedulers), each with 1/4 of the registers
    # special-function unit (MUFU: ex2, rcp, sin, tanh, ...; F2I/FRND share its rate)
    # results per SM a clock, against 128 FFMA (CUDA C Programming Guide, throughput
    # of native arithmetic instructions, compute capability 8.x and 9.0)
    mufu_per_sm_clock: int = 16
    # our warp-specialised wgmma kernel (gpu.wgmma) against fp16_flops, measured on the
    # lent H100 (2026-11-23, 128x256x64 tiles, 4 stages, persistent): 689 TFLOP/s at
    # 4096^3 f16 (bench/tensor_core.py --sweep) = 0.98; the cost model's fill and drain
    # terms make up the rest
    wgmma_efficiency: float = 1.0
    # its epilogue: staged through shared memory (store = "smem", rows stored by whole
    # warps) the tiles' drain term covers it; storing each thread's fragment where it
    # lies costs C's bytes this many times over at the DRAM bandwidth on top, with
    # column pairs where C's rows allow them, or one element at a time (8 rows of a
    # warp's store each get 4 scattered elements). Measured against the staged store on
    # the same tiles (bench/wgmma_store.py, 2026-11-24): pairs 1.5-1.9 (4096^3,
    # 8192x3072x768, 4096x4096x64), single elements 6.7 (GPT-2's logits,
    # 8192x50257x768: 2.94 against 1.28 ms)
    # warp-level tensor cores (mma.sync m16n8k16, gpu.mma_sync) against fp16_flops: the
    # A100's is the published figure for a well-pipelined kernel (CUTLASS/cuBLAS f16 at
    # 80-90% of its 312 TFLOP/s; not measured here). Hopper runs mma.sync at 63-65% of
    # its peak at best (published); our kernel on the lent H100 (2026-11-24,
    # bench/mma_sync.py): 321 TFLOP/s at 4096^3 f16 (128x256x32, 64x64 warp tiles, 4
    # stages) and 216 at 8192x3072x768, where the cost model with 0.64 said 397 and 300:
    # 0.5 puts it there (see the H100 below)
    mma_sync_efficiency: float = 0.85
    # a fused epilogue's body runs on the consumer warps alone (8 a block, one block an
    # SM) while the tensor cores wait: warp instructions per SM per clock they reach.
    # bias + erf-gelu (27 instructions an element) over the wgmma kernel alone
    # (bench/tensor_core.py --epilogue, 2026-11-24): 4096^3 +17 us, 8192x3072x768
    # +26 us, 8192^3 +48 us: 4.1, 4.2 and 5.8 a clock. The tanh form (30 counted, a
    # precise division among them) ran 2.4x the erf form's time (+42, +60 us), which
    # this rate prices at 1.1x; fused or not, those two cases measured within 5%
    wgmma_epilogue_issue_per_clock: float = 4.0
    # ... and a precise division there costs this many instructions more than its
    # count: the tanh form (exp and a division, 30 counted against the erf form's 26)
    # took +42 and +60 us where the erf form took +17 and +26 (the division's slow-path
    # call, around which the warps hold ~128 accumulator registers)
    epilogue_division_instructions: float = 44.0
    wgmma_pair_store_slowdown: float = 1.7
    wgmma_scalar_store_slowdown: float = 6.7

    # library kernels through CuPy, measured on the lent H100 (DESIGN.md's table):
    # cupy.sum over rows of these lengths reached this share of the copy bandwidth
    # (262144x128: 1546, 65536x1024: 1865, 8192^2: 2651, 1024x65536: 2463 GB/s)
    library_reduce_efficiency: tuple[tuple[int, float], ...] = (
        (128, 0.52), (1024, 0.63), (8192, 0.895), (65536, 0.83))
    # host time of a CuPy reduction call (cupy.sum dispatch: DESIGN.md's synced
    # 1024-element calls, CuPy 19 us against 4.8 us for a raw launch; an estimate to
    # calibrate); cuBLAS goes through CuPy's thin binding at a raw launch's cost
    library_reduce_overhead_s: float = 12e-6
    # host time of a call of a program that is one op, back to back: it runs without a
    # CUDA graph (one step gains nothing from one), so where the GPU's work is shorter
    # these bound the calls' rate. A generated kernel goes through the direct launch
    # (bench/call_path.py, 2026-11-24: 8-10 us); a cuBLAS call through the step loop
    # and ctypes (bench/library_call.py: 46-52 us, against 24-31 for cupy.matmul)
    host_kernel_call_s: float = 10e-6
    host_library_call_s: float = 48e-6
    # the output tile one cuBLAS block computes on large problems (its waves over the
    # SMs decide small problems' times)
    library_gemm_tile: int = 128
    # cuBLAS's fast kernels store C rows of whole 16-byte vectors; with C's row pitch
    # or its row length (N) not a multiple of that it falls back to kernels this many
    # times slower. GPT-2's logits, 8192x50257x768 f16 (torch eager, 2026-11-24):
    # 7.46 ms against 1.01 ms for N = 50264; and N = 50257 into rows 50264 apart still
    # ran an align1 kernel, 7.31 ms (kineto). Session 7's 2.8 ms "aligned" figure was
    # itself a padded-rows run with N = 50257, i.e. not the fast kernel.
    library_gemm_c_align_bytes: int = 16
    library_gemm_unaligned_c_slowdown: float = 7.4
    max_grid_x: int = 2**31 - 1  # CUDA limits on gridDim.x / .y / .z
    max_grid_y: int = 65535
    max_grid_z: int = 65535
    kind: str = "gpu"

    @property
    def sm(self) -> str:
        return f"sm_{self.sm_arch}"

    @property
    def has_mma_sync(self) -> bool:
        """cp.async, ldmatrix and mma.sync m16n8k16 with f32 accumulation: sm_80 and on."""
        return self.sm_arch >= 80

    @property
    def has_wgmma(self) -> bool:
        """wgmma, setmaxnreg and bulk tensor copies: sm_90a, i.e. exactly Hopper."""
        return self.sm_arch == 90

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
    mma_sync_efficiency=0.5,
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
    attention_flops_per_core: float
    """FLOP/s of one core in the C emitter's tiled attention (cpu.attention; both
    products' multiply-adds counted as 2 flops)."""

    kind: str = "cpu"
    slice_stack_bytes: int = 1 << 14
    """The most stack a per-slice row group's local buffers may take in one thread (the
    slice's values stay in L1 and well inside any thread's stack)."""

    @property
    def dgemm_flops_per_core(self) -> float:
        return self.sgemm_flops_per_core / 2

    # the names the shared cost blocks (fusion, aicf/cost/cpu.py) read on any target
    @property
    def fp32_flops(self) -> float:
        """All cores at OpenBLAS's sgemm rate: the FMA roof a vectorised loop can reach."""
        return self.sgemm_flops_per_core * self.cores

    @property
    def dram_bandwidth(self) -> float:
        return self.mem_bytes_per_s

    @property
    def launch_overhead_s(self) -> float:
        return self.parallel_region_s

    @classmethod
    def host(cls) -> CpuTarget:
        return host_cpu()


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
# the emitted cpu.attention, f32, head dim 64, sequence 1024, one thread (bench/NOTES.md,
# "CPU attention")
_MEASURED_ATTENTION_FLOPS_PER_CORE = 50e9


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
        attention_flops_per_core=_MEASURED_ATTENTION_FLOPS_PER_CORE,
    )


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

    if key == "cpu":  # a known target, but not one this GPU-only caller can take
        raise AicfError(f"target '{name}' is not a GPU: this takes a GPU target "
                        f"({', '.join(sorted(_NAMED))}, gpu, auto)")
    raise AicfError(f"unknown target '{name}' (known: {', '.join(sorted(_NAMED))}, gpu, cpu, auto)")


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

