"""Why f16 softmax 4096x1000 measures 0.76x torch eager in bench/run.py (half.py's
row, interleaved rounds) but 1.02x in bench/call_breakdown.py: the same program
through aicf.compile(text) and through aicf.jit, each timed against torch in
interleaved rounds, with its host time per call and its kernels' device time (CUPTI),
fresh and after the f16 chain's 2^28-element arrays went through CuPy's pool (as in
run.py), and with the garbage collector off.

    python3 bench/small_call_probe.py
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from call_path import host_us  # noqa: E402
from kernel_times import kernel_us, softmax  # noqa: E402
from run import SOFTMAX, interleaved, ratio_check  # noqa: E402


def main() -> int:
    import cupy as cp
    import torch

    import aicf

    rng = np.random.default_rng(0)
    sync = cp.cuda.get_current_stream().synchronize
    for R, C in ((4096, 1000), (32768, 512)):
        x = cp.asarray(rng.standard_normal((R, C), dtype=np.float32) * 3 + 0.5).astype(cp.float16)
        t = torch.as_tensor(x, device="cuda")
        compiled = aicf.compile(SOFTMAX.format(R=R, C=C).replace("f32", "f16"), target="cuda")
        jf = aicf.jit(target="cuda")(softmax)
        jf(x)
        jitted = jf.executable(x)
        ref = lambda: torch.softmax(t, dim=-1)  # noqa: E731
        same = compiled._program.source == jitted._program.source
        print(f"== softmax {R}x{C} f16: same CUDA source: {same}", flush=True)
        for stage in ("fresh", "after 2^28 f16 arrays", "gc off"):
            if stage == "after 2^28 f16 arrays":
                big = [cp.empty(2**28, cp.float16) for _ in range(3)]
                del big
            if stage == "gc off":
                gc.disable()
            for name, exe in (("compile", compiled), ("jit exe", jitted), ("jit f", None)):
                f = (lambda: jf(x)) if exe is None else (lambda exe=exe: exe(x))
                ours, theirs, ratios = interleaved(f, ref, 20)
                h = host_us(f, sync, calls=2000, reps=3)
                print(f"  [{stage}] {name:8s} wall {ours * 1e3:6.2f} us  torch {theirs * 1e3:6.2f} us  "
                      f"host {h:6.2f} us  {ratio_check(ratios, 'torch')}", flush=True)
            gc.enable()
        print(f"  torch host {host_us(ref, torch.cuda.synchronize, calls=2000, reps=3):6.2f} us", flush=True)
        for name, f in (("compile", lambda: compiled(x)), ("jit exe", lambda: jitted(x)), ("torch", ref)):
            print(f"  kernels {name}: {kernel_us(f, 200)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
