"""The planner's pick for matmul + bias + tanh-GELU (f16) on this GPU, with tuning on
(the default for matmuls of >= 2^31 FLOPs) and off: `exe.explain()`'s candidates and
the pick's time against the fused kernel forced.

    python3 bench/epilogue_pick_probe.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402
from tensor_core import EPILOGUE  # noqa: E402


def main() -> int:
    import cupy as cp

    import aicf

    for m, n, k in ((8192, 3072, 768), (4096, 4096, 4096)):
        x = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16) / np.float16(np.sqrt(k))
        w = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((n,), dtype=cp.float32).astype(cp.float16)
        text = EPILOGUE.format(m=m, n=n, k=k, approx=' approximate = "tanh"')
        for tune in (None, False):
            exe = aicf.compile(text, target="cuda", tune=tune)
            exe(x, w, b)
            ms = bench(lambda: exe(x, w, b), reps=15)
            print(f"== {m}x{n}x{k} tanh, tune={tune}: {ms:.4f} ms", flush=True)
            print("\n".join(line for line in exe.explain().splitlines() if "gpu." in line or "tun" in line.lower())[:3000],
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
