"""One kernel launch of a launch plan, through the driver's cuLaunchKernel with an
argument block built once.

CuPy's kernel call packs its arguments anew on every call (type dispatch per
argument, a fresh parameter buffer): 4.7 us of host time per launch on the H100,
where the driver call itself with a ready block costs ~1 us (bench/call_path.py). A
plan's kernels take only pointers (strided kernels, which take strides too, never
reach a plan), so per call only the pointer values change.
"""

from __future__ import annotations

import ctypes
import threading

from aicf.backend.cuda import runtime as rt


class Launcher:
    """`launcher(env, slots, stream_ptr)`: launch the kernel on the arrays
    `env[s] for s in slots`, on the stream at `stream_ptr`."""

    def __init__(self, fn, grid: tuple[int, ...], block: tuple[int, ...], smem: int, nargs: int):
        cp = rt.cupy()
        self.fn = fn  # the RawKernel: its per-device function pointer
        self._dims = (*grid, *block, smem)
        self._fptr: dict[int, int] = {}
        self._vals = (ctypes.c_uint64 * max(nargs, 1))()
        base = ctypes.addressof(self._vals)
        self._params = (ctypes.c_void_p * max(nargs, 1))(*[base + 8 * i for i in range(max(nargs, 1))])
        self._params_ptr = ctypes.addressof(self._params)
        # the driver reads the block during the call, which CuPy makes without the GIL:
        # two threads launching the same kernel take turns
        self._lock = threading.Lock()
        self._launch = cp.cuda.driver.launchKernel
        self._device = cp.cuda.runtime.getDevice

    def __call__(self, env: list, slots: tuple[int, ...], stream_ptr: int) -> None:
        dev = self._device()
        f = self._fptr.get(dev)
        if f is None:
            f = self._fptr[dev] = self.fn.kernel.ptr  # loads the module on that device
        gx, gy, gz, bx, by, bz, smem = self._dims
        with self._lock:
            vals = self._vals
            for i, s in enumerate(slots):
                vals[i] = env[s].data.ptr
            self._launch(f, gx, gy, gz, bx, by, bz, smem, stream_ptr, self._params_ptr, 0)
