"""Where a small cuda call's host time goes (issue 12's call-overhead bar): the host
microseconds per call of each piece of the 1024-element sin call, measured as
back-to-back calls without a sync (the kernel runs ~2 us, the host longer, so the loop
is host-bound), beside torch's and CuPy's calls of the same op, and the synced call
(call + sync, wall clock) of each, in one run.

    python3 bench/call_path.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import time

import numpy as np

import aicf

from call_overhead import sin_program, synced_us


def host_us(f, sync, calls=5000, reps=5) -> float:
    """Median over `reps` of the host time per call of `calls` back-to-back calls."""
    for _ in range(500):
        f()
    sync()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        samples.append((time.perf_counter() - t0) / calls)
        sync()
    return statistics.median(samples) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    import cupy as cp
    import torch

    rng = np.random.default_rng(0)
    sync = cp.cuda.get_current_stream().synchronize
    exe = aicf.compile(sin_program(1024), target="cuda")
    prog = exe._program
    x = cp.asarray(rng.standard_normal(1024, dtype=np.float32))
    y = cp.empty_like(x)
    exe(x)
    step = next(st for st in prog._plan[1] if st[0] == "launch")
    _, fn, _, grid, block, smem, _ = step
    stream = cp.cuda.get_current_stream()
    tx = torch.as_tensor(x, device="cuda")
    tsync = torch.cuda.synchronize

    # the driver's launch, bare: what any Python launch path pays at least
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    fptr = fn.kernel.ptr if hasattr(fn, "kernel") else None
    slots = (ctypes.c_void_p * 2)(x.data.ptr, y.data.ptr)
    params = (ctypes.c_void_p * 2)(ctypes.addressof(slots) + 0, ctypes.addressof(slots) + 8)

    def bare():
        cuda.cuLaunchKernel(fptr, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem,
                            stream.ptr, params, None)

    # the lean path's candidates: the pool's block without cupy.empty's ndarray setup,
    # and CuPy's binding of cuLaunchKernel on a parameter block built once (the driver
    # copies the parameters at the launch, so the block is reused)
    drv = cp.cuda.driver
    lslots = (ctypes.c_void_p * 2)(x.data.ptr, y.data.ptr)
    lparams = (ctypes.c_void_p * 2)(ctypes.addressof(lslots), ctypes.addressof(lslots) + 8)
    lparams_ptr = ctypes.addressof(lparams)
    sptr = stream.ptr

    def lean():
        mp = cp.cuda.alloc(4096)
        lslots[1] = mp.ptr
        drv.launchKernel(fptr, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem, sptr, lparams_ptr, 0)
        return cp.ndarray((1024,), np.float32, memptr=mp)

    pieces = {
        "aicf exe(x)": lambda: exe(x),
        "aicf program(x)": lambda: prog(x),
        "aicf program(x, out)": lambda: prog(x, y),
        "cupy.sin(x)": lambda: cp.sin(x),
        "torch.sin(x)": lambda: torch.sin(tx),
        "cupy RawKernel launch": lambda: fn(grid, block, (x, y), shared_mem=smem, stream=stream),
        "cupy.empty(1024)": lambda: cp.empty((1024,), np.float32),
        "get_current_stream": cp.cuda.get_current_stream,
        "argument checks": lambda: (type(x) is cp.ndarray and x.dtype == np.float32 and x.shape == (1024,)
                                    and x.flags.c_contiguous and x.data.ptr % 16),
        "ctypes cuLaunchKernel": bare if fptr else None,
        "cupy.cuda.alloc(4096)": lambda: cp.cuda.alloc(4096),
        "ndarray(memptr=alloc)": lambda: cp.ndarray((1024,), np.float32, memptr=cp.cuda.alloc(4096)),
        "driver.launchKernel, prebuilt params": (lambda: drv.launchKernel(
            fptr, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem, sptr, lparams_ptr, 0)) if fptr else None,
        "lean: alloc + launchKernel + ndarray": lean if fptr else None,
    }
    host = {k: host_us(f, tsync if "torch" in k else sync) for k, f in pieces.items() if f is not None}
    synced = {
        "aicf exe(x)": synced_us(lambda: exe(x), sync),
        "cupy.sin(x)": synced_us(lambda: cp.sin(x), sync),
        "torch.sin(x)": synced_us(lambda: torch.sin(tx), tsync),
        "torch.sin(x), stream sync": synced_us(lambda: torch.sin(tx), torch.cuda.current_stream().synchronize),
        "ctypes cuLaunchKernel": synced_us(bare, sync) if fptr else None,
        "lean: alloc + launchKernel + ndarray": synced_us(lean, sync) if fptr else None,
        "aicf exe(x) again": synced_us(lambda: exe(x), sync),
        "torch.sin(x) again": synced_us(lambda: torch.sin(tx), tsync),
    }
    # the bar (issue 12): aicf's synced call against torch's (torch.cuda.synchronize,
    # as a torch user syncs), interleaved in rounds so that the machine's drift (the
    # lent machine's host times move 30-50% between minutes) falls on both alike
    rounds = []
    for _ in range(9):
        a_us = synced_us(lambda: exe(x), sync, calls=1000, warm=50)
        t_us = synced_us(lambda: torch.sin(tx), tsync, calls=1000, warm=50)
        rounds.append((a_us, t_us, t_us / a_us))
    ratio = statistics.median(r[2] for r in rounds)
    print("interleaved rounds (aicf us, torch us, torch/aicf):", [tuple(round(v, 2) for v in r) for r in rounds])
    print(f"median of the rounds' ratios torch/aicf: {ratio:.3f} (>= 1: aicf's synced call is at most torch's)")
    for k, v in host.items():
        print(f"host per call  {k:26s} {v:6.2f} us")
    for k, v in synced.items():
        if v is not None:
            print(f"synced call    {k:26s} {v:6.2f} us")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                       "host_us": host, "synced_us": synced, "interleaved_rounds": rounds,
                       "median_ratio_torch_over_aicf": ratio}, fh, indent=2)


if __name__ == "__main__":
    main()
