"""The row and column reduction schedules' choices against the H100 calibration of
2026-11-23 (bench/results/2026-11-23-calibration-NVIDIA-H100-80GB-HBM3.json): the
measured order the model must reproduce, and the peeled vector width of odd rows."""

from __future__ import annotations

import pytest

from aicf.cost import gpu as g
from aicf.lowering.loop_to_gpu import nest_view
from aicf.passes.loop.candidates import per_output_candidate, rows_candidate
from aicf.target import H100

from test_cost_model import nest_of


def reduction(m: int, n: int, axis: int, dt: str = "f32"):
    out = n if axis == 0 else m
    kept = "d1" if axis == 0 else "d0"
    iters = "reduction, parallel" if axis == 0 else "parallel, reduction"
    nest = nest_of(
        "^bb0(%v: f32):\n    aicf_loop.yield %v : f32", f"%x : memref<{m}x{n}xf32>", f"%y : memref<{out}xf32>",
        f"{m}, {n}", iters, f"(d0, d1) -> (d0, d1), (d0, d1) -> ({kept})",
        f"%x: memref<{m}x{n}xf32>, %y: memref<{out}xf32>",
    )
    fn = nest.parent_op()
    return nest_view(fn, nest, 0)


def test_occupancy_has_a_knee():
    """Bytes in flight at Little's law's figure do not reach the whole bandwidth; eight
    times as many do (1024x65536 rows: 0.105 ms by warps at x ~ 1, 0.0945 by blocks)."""
    need = H100.dram_bandwidth * H100.mem_latency_s
    at_one = g.occupancy(H100, 1000, need / 1000)
    assert 0.85 < at_one < 0.95
    assert g.occupancy(H100, 8000, need / 1000) > 0.99
    assert g.occupancy(H100, 100, need / 1000) == pytest.approx(0.1, rel=1e-3)


def test_long_rows_take_a_block_per_row():
    c = rows_candidate(reduction(1024, 65536, 1), H100)
    assert c.schedule["mode"] == "block"


def test_odd_rows_are_peeled_to_float4():
    c = rows_candidate(reduction(3000, 3001, 1), H100)
    assert (c.schedule["vec"], c.schedule.get("peel")) == (4, 1)
    even = rows_candidate(reduction(3000, 3000, 1), H100)
    assert (even.schedule["vec"], even.schedule.get("peel")) == (4, None)


def test_short_column_sum_shares_outputs_among_a_blocks_threads():
    """4096x1000 over axis 0: 250 output vectors are too few for the GPU's threads. The
    block's threads share them (slices), one kernel, where the split over blocks
    needed two or three (calibration 2026-11-24: the sliced kernel measured best of
    the space, bench/calibrate.py --only axis=0)."""
    c = per_output_candidate(reduction(4096, 1000, 0), H100)
    s = c.schedule
    assert s["split"] == 1 and s.get("slices", 1) >= 8 and s.get("combine") is None