"""Host time of a program that is one cuBLAS call (the planner's library pick), against
cupy.matmul on the same arrays: where the call's microseconds go (issue 8's small
shapes, 1000^3 and 4096x4096x64, are bound by them), with a cProfile of the call path.

    python3 bench/library_call.py
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import bench, compile_text  # noqa: E402
from tensor_core import program  # noqa: E402


def main() -> int:
    import cupy as cp

    for m, n, k in [(1000, 1000, 1000), (4096, 4096, 64)]:
        prog = compile_text(program(1, m, n, k, "f16"), "gpu.cublas_gemm", "")
        a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
        c = prog(a, b)
        cp.cuda.Device().synchronize()
        print(f"{m}x{n}x{k} f16")
        for name, f in (("prog(a, b, c)", lambda: prog(a, b, c)), ("prog(a, b)", lambda: prog(a, b)),
                        ("cupy.matmul", lambda: cp.matmul(a, b))):
            for _ in range(50):
                f()
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            for _ in range(2000):
                f()
            host = (time.perf_counter() - t0) / 2000 * 1e6
            cp.cuda.Device().synchronize()
            print(f"  {name:14s} host {host:5.1f} us/call; events {bench(f, reps=15) * 1e3:5.1f} us")
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(2000):
            prog(a, b, c)
        pr.disable()
        cp.cuda.Device().synchronize()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(10)
        print(s.getvalue()[:2500])
    return 0


if __name__ == "__main__":
    sys.exit(main())
