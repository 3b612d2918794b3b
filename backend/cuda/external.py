"""External CUDA kernels: compiling them, and running an `aicf_gpu.library_call
"external"` (what a nest or group scheduled `gpu.external` becomes).

Compiling: NVRTC through CuPy, as the cuda target builds its own kernels
(backend/cuda/runtime.py: `-std=c++17`, the device's arch), the cubin cached on disk.
Where CuPy or a GPU is missing (CI), `nvcc -cubin` for the target's arch checks that
the source compiles, so a proposal that does not compile is rejected with the
compiler's message anywhere.

Running: the call's `key` names the kernel (aicf/kernels/store.py); `grid`, `block`,
`smem` and `workspace` were resolved by the planner for the op's shapes. Arguments:
the operands' pointers in the kernel's order (`args` index the call's operands, inputs
then outputs), then each one's extents and element strides as int64, then the
workspace pointer when the kernel asked for one (aicf/kernels/abi.py). A kernel for
contiguous operands gets contiguous copies of strided ones (LibraryCall's dense_only).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from aicf.backend import disk_cache
from aicf.backend.cuda.library import LibraryCall
from aicf.errors import CompileError, LaunchError

COMPILE_TIMEOUT_S = 120.0


def _source(kernel) -> str:
    from aicf.kernels.abi import cuda_source

    return cuda_source(kernel.source)


def nvrtc_available() -> bool:
    try:
        from cupy_backends.cuda.libs import nvrtc  # type: ignore  # noqa: F401

        return True
    except Exception:  # noqa: BLE001 - no CuPy, or no CUDA libraries
        return False


def compile_kernel(kernel, sm_arch: int) -> dict | None:
    """How the gate's child loads the kernel ({"cubin": path} from NVRTC), after
    checking it compiles; CompileError with the compiler's message. With no NVRTC,
    the check runs through nvcc and None comes back (nothing to run here); with
    neither, None as well."""
    from aicf.backend.cuda import runtime as rt

    arch = f"sm_{sm_arch}"
    source = _source(kernel)
    if nvrtc_available():
        key = rt.cache_key(source, arch)
        path = disk_cache.lookup("cuda", key, ".cubin")
        if path is None:
            try:
                cubin = rt._nvrtc_cubin(source, arch)
            except RuntimeError as e:
                raise CompileError(f"NVRTC failed on the external kernel '{kernel.name}':\n{e}") from None
            path = disk_cache.store("cuda", key, ".cubin", cubin)
        return {"cubin": str(path), "entry": kernel.entry}
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None
    with tempfile.TemporaryDirectory(prefix="aicf-nvcc-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        try:
            proc = subprocess.run([nvcc, "-std=c++17", f"-arch={arch}", "-cubin", str(src), "-o",
                                   str(Path(tmp) / "kernel.cubin")], capture_output=True, text=True,
                                  timeout=COMPILE_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise CompileError(f"nvcc did not finish on '{kernel.name}' in {COMPILE_TIMEOUT_S:g} s") from None
        if proc.returncode != 0:
            raise CompileError(f"nvcc failed on the external kernel '{kernel.name}':\n"
                               + (proc.stderr or proc.stdout).replace(str(src), "kernel.cu").strip())
    return None


class ExternalCall(LibraryCall):
    """One launch of an admitted external kernel."""

    def __init__(self, op):
        super().__init__(op)
        from aicf.kernels import store

        p = self.p
        self.kernel = store.get(p["key"])
        if self.kernel is None:
            raise CompileError(f"the external kernel '{p['key']}' is not known to this process "
                               "(register it, or let the gate admit it: aicf/kernels/)")
        n = len(op.inputs) + len(op.outputs)
        self.dense_only = [p["layout"] == "contiguous"] * n
        self.name = f"external[{self.kernel.name}]"
        self._fn = None

    def _function(self):
        if self._fn is None:
            from aicf.backend.cuda import runtime as rt

            mod = rt.load_module(_source(self.kernel))
            self._fn = mod.get_function(self.kernel.entry)
        return self._fn

    def _run(self, ins, outs) -> None:
        import cupy as cp

        p = self.p
        operands = [*ins, *outs]
        chosen = [operands[i] for i in p["args"]]
        params: list = list(chosen)
        for a in chosen:
            params += [np.int64(e) for e in a.shape]
            params += [np.int64(s // a.itemsize) for s in a.strides]
        ws = None
        if p["workspace"]:
            ws = cp.empty(p["workspace"], np.uint8)
            params.append(ws)
        if 0 in p["grid"]:
            return
        fn = self._function()
        if p["smem"] > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = p["smem"]
        try:
            fn(tuple(p["grid"]), tuple(p["block"]), tuple(params), shared_mem=p["smem"],
               stream=cp.cuda.get_current_stream())
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            raise LaunchError(f"launch of the external kernel '{self.kernel.name}' failed (grid={p['grid']}, "
                              f"block={p['block']}, smem={p['smem']}): {e}") from None
