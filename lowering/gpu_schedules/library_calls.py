"""What a library call does, as facts the runtime (profiler records) and the planner's
prices share: the FLOPs and the bytes of a `cublas.gemm` or `cub.reduce` call with
the given parameters (see gpu.LibraryCallOp). No cost here: the prices are in
aicf/cost/library.py."""

from __future__ import annotations

import math

_BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def _calls(p: dict) -> int:
    return math.prod(p.get("loops") or [])


def gemm_flops(p: dict) -> int:
    return 2 * p["m"] * p["n"] * p["k"] * p["batch"] * _calls(p)


def gemm_bytes(p: dict) -> int:
    """Bytes the call must move: each distinct matrix of A and B read once (a zero
    batch stride repeats one), C written once."""

    def copies(x: str) -> int:
        n = p["batch"] if p[f"stride_{x}"] or p["batch"] <= 1 else 1
        for e, s in zip(p.get("loops") or [], p.get(f"loop_stride_{x}") or []):
            n *= e if s else 1
        return n

    eb, ob = _BYTES[p["dtype"]], _BYTES[p["out_dtype"]]
    return (
        p["m"] * p["k"] * eb * copies("a")
        + p["k"] * p["n"] * eb * copies("b")
        + p["m"] * p["n"] * ob * p["batch"] * _calls(p)
    )


def reduce_bytes(p: dict) -> int:
    return p["rows"] * p["cols"] * _BYTES[p["dtype"]] + p["rows"] * _BYTES[p["out_dtype"]]
