"""Target descriptions: the hardware numbers the cost model and the GPU lowering read.

One place for them, so no tile size or launch bound is a constant buried in a pass or
the emitter. Bandwidth and peak rates are the ones measured on the lent H100
(DESIGN.md's table); the rest is from the device properties of sm_90.
"""

from __future__ import annotations

from dataclasses import dataclass


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

    @property
    def sm(self) -> str:
        return f"sm_{self.sm_arch}"


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

DEFAULT_GPU = H100


TARGETS: dict[int, GpuTarget] = {H100.sm_arch: H100}
"""Target descriptions by compute capability. Only sm_90 is described (and measured)
so far; planning for another GPU with sm_90's numbers would pick tiles that do not fit."""


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
