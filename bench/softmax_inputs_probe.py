"""Does the f16 softmax kernel's time depend on its inputs' values? The same compiled
program timed by CUPTI (device time per call) on standard normal inputs, on
3 * normal + 0.5 (bench/run.py's), on constant rows and on uniform [0, 1), with
torch's kernel on each for comparison.

    python3 bench/softmax_inputs_probe.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from kernel_times import kernel_us  # noqa: E402
from run import SOFTMAX  # noqa: E402


def main() -> int:
    import cupy as cp
    import torch

    import aicf

    rng = np.random.default_rng(0)
    for R, C in ((4096, 1000), (32768, 512)):
        exe = aicf.compile(SOFTMAX.format(R=R, C=C).replace("f32", "f16"), target="cuda")
        inputs = {
            "normal": rng.standard_normal((R, C), dtype=np.float32),
            "3*normal+0.5": rng.standard_normal((R, C), dtype=np.float32) * 3 + 0.5,
            "zeros": np.zeros((R, C), np.float32),
            "uniform[0,1)": rng.random((R, C), dtype=np.float32),
        }
        for name, h in inputs.items():
            x = cp.asarray(h.astype(np.float16))
            t = torch.as_tensor(x, device="cuda")
            ours = sum(kernel_us(lambda: exe(x), 200).values())
            theirs = sum(kernel_us(lambda: torch.softmax(t, dim=-1), 200).values())
            print(f"softmax {R}x{C} f16, {name:14s}: aicf {ours:6.2f} us  torch {theirs:6.2f} us", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
