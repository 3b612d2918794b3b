"""Schedules of the cpu target: each a guard over an `aicf_loop` nest, the parameters
it writes into the nest's `aicf.schedule` attribute, and its predicted cost from a
CpuTarget (aicf/cpu_target.py). The C emitter (backend/c/) reads the attribute only.

- `blas_gemm`: the nest as OpenBLAS sgemm/dgemm calls (kind "cpu.blas_gemm").
"""
