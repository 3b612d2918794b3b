"""The kernel gate on the cuda target (issue 13), on the GPU: the same proposals as
test_kernel_gate.py in CUDA (run, validated and timed in a child process against the
compiler's own kernel), and hand-registered CUDA kernels. Written without a GPU at
hand: the next GPU session runs them (pytest -m gpu) and logs to bench/results/.

The "faster" kernels do asymptotically less work than the compiler's (R * v for a sum
of R identical rows, 65536 of them); the "slower" one spins ~25 ms a launch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aicf
from aicf.kernels import STATS, register

from kernel_gate_support import (  # noqa: F401  (isolated, shared_cache: fixtures)
    HERE,
    bcast_sum,
    isolated,
    proposer,
    schedule_kinds,
    shared_cache,
    softmax_log,
    softmax_log_reference,
)

pytestmark = pytest.mark.gpu

GATE = {"time_limit_s": 5.0}
ROWS = 65536


def _line(explanation: str, name: str) -> str:
    return next(ln for ln in explanation.splitlines() if f"external:{name}" in ln)


def _v(cols: int = 1024):
    import cupy as cp

    return cp.asarray(np.random.default_rng(1).standard_normal(cols).astype(np.float32))


def test_registered_cuda_kernel_is_picked_when_faster(isolated):
    register(name="bcast_sum_by_hand", target="cuda", pattern=bcast_sum(ROWS), entry="bcast_sum",
             source=f"#define ROWS {ROWS}\n" + (HERE / "bcast_sum.cu").read_text(),
             guard={"shapes": [["c"]], "constraints": {"c": {"min": 1024, "max": 1024}}},
             launch={"grid": ["cdiv(c, 256)"], "block": [256], "smem": 0})
    exe = aicf.compile(bcast_sum(ROWS), target="cuda", gate=GATE)
    assert schedule_kinds(exe) == ["gpu.external"]
    assert "admitted by the gate" in _line(exe.explain(), "bcast_sum_by_hand")
    v = _v()
    np.testing.assert_allclose(exe(v).get(), ROWS * v.get().astype(np.float64), rtol=1e-6)


def _register_softmax(multiple_of: int = 1):
    guard = {"shapes": [["n", "c"]], "layout": "strided"}
    if multiple_of > 1:
        guard["constraints"] = {"c": {"multiple_of": multiple_of}}
    register(name="softmax_of_log", target="cuda", pattern=(HERE / "softmax_log.mlir").read_text(),
             source=(HERE / "softmax_log.cu").read_text(), entry="softmax_of_log", guard=guard,
             launch={"grid": ["n"], "block": [256], "smem": 0})


def test_registered_cuda_softmax_is_correct_on_every_case(isolated):
    _register_softmax()
    exe = aicf.compile(softmax_log(4096, 1024), target="cuda", gate=GATE)
    line = _line(exe.explain(), "softmax_of_log")
    # memory-bound on the GPU: faster or not, it must pass every case
    assert "admitted by the gate" in line or "(slower)" in line, exe.explain()
    import cupy as cp

    x = np.random.default_rng(0).uniform(0.1, 3.0, (4096, 1024)).astype(np.float32)
    np.testing.assert_allclose(exe(cp.asarray(x)).get(), softmax_log_reference(x), rtol=1e-5, atol=1e-9)


def test_registered_cuda_softmax_is_dropped_when_its_guard_fails(isolated):
    _register_softmax(multiple_of=4)
    exe = aicf.compile(softmax_log(64, 1022), target="cuda", gate=GATE)
    assert "guard: 'c' = 1022 is outside its constraints (multiple_of 4)" in _line(exe.explain(), "softmax_of_log")
    assert schedule_kinds(exe) != ["gpu.external"]


@pytest.mark.parametrize("mode, stage", [
    ("wrong", "wrong"), ("slower", "slower"), ("hang", "timeout"), ("oob", "bounds"), ("crash", "crash"),
])
def test_bad_cuda_proposals_are_rejected(isolated, mode, stage):
    exe = aicf.compile(bcast_sum(ROWS), target="cuda", proposer=proposer(mode), gate=GATE)
    assert f"rejected by the gate ({stage})" in _line(exe.explain(), f"bcast_sum_{mode}")
    assert schedule_kinds(exe) != ["gpu.external"]
    v = _v()
    # the compiler's own kernel sums the ROWS copies in f32: n * eps is its error bound
    np.testing.assert_allclose(exe(v).get(), ROWS * v.get().astype(np.float64), rtol=ROWS * 2.0**-24)


SECOND_PROCESS = textwrap.dedent("""
    import json, sys
    import cupy as cp, numpy as np
    import aicf
    from aicf.kernels import STATS
    sys.path.insert(0, {support!r})
    from kernel_gate_support import bcast_sum, proposer, schedule_kinds
    exe = aicf.compile(bcast_sum({rows}), target="cuda", proposer=proposer("faster"), gate={{"time_limit_s": 5.0}})
    v = np.random.default_rng(1).standard_normal(1024).astype(np.float32)
    err = float(np.abs(exe(cp.asarray(v)).get() - {rows} * v.astype(np.float64)).max())
    print(json.dumps({{"stats": STATS, "kinds": schedule_kinds(exe), "err": err}}))
""")


def test_faster_cuda_proposal_is_admitted_used_and_reused(isolated, tmp_path):
    log = tmp_path / "calls.log"
    env = {**os.environ, "AICF_TEST_PROPOSER_LOG": str(log), "AICF_CACHE_DIR": str(isolated)}
    code = SECOND_PROCESS.format(support=os.path.dirname(os.path.abspath(__file__)), rows=ROWS)
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.splitlines()[-1]))
    first, second = runs
    assert first["kinds"] == ["gpu.external"] and first["stats"]["gate_runs"] == 1
    assert second["kinds"] == ["gpu.external"] and second["stats"]["gate_runs"] == 0
    assert first["err"] < 1e-2 and second["err"] < 1e-2
    assert log.read_text().splitlines() == ["faster cuda"]
    assert STATS["gate_runs"] == 0  # all of it in the children
