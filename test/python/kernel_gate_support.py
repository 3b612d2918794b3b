"""Shared by the kernel gate's tests (test_kernel_gate*.py): the programs, the
proposer script (external_kernels/propose.py) and a fixture that gives each test a
fresh verdict cache and registry."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent / "external_kernels"
PROPOSER = HERE / "propose.py"
SOFTMAX_LOG = (HERE / "softmax_log.mlir").read_text()
SOFTMAX_LOG_C = (HERE / "softmax_log.c").read_text()


def proposer(mode: str) -> str:
    return f"{sys.executable} {PROPOSER} {mode}"


def bcast_sum(rows: int = 4096, cols: int = 1024) -> str:
    """sum(broadcast_to(v, [rows, cols]), axis=0): one nest the proposer's kernels match."""
    return f"""
func.func @bcast_sum(%v: tensor<{cols}xf32>) -> tensor<*xf32> {{
  %b = aicf_tensor.broadcast_to %v shape = [{rows}, {cols}] : (tensor<{cols}xf32>) -> tensor<{rows}x{cols}xf32>
  %s = aicf_tensor.reduce_sum %b axes = [0] : (tensor<{rows}x{cols}xf32>) -> tensor<*xf32>
  func.return %s : tensor<*xf32>
}}"""


def softmax_log(rows: int, cols: int) -> str:
    return SOFTMAX_LOG.replace("?x?", f"{rows}x{cols}")


def softmax_log_reference(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        lg = np.log(x.astype(np.float64))
        e = np.exp(lg - lg.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)


def register_softmax_log(multiple_of: int = 1, layout: str = "strided", target: str = "cpu", **extra):
    from aicf.kernels import register

    guard = {"shapes": [["n", "c"]], "layout": layout}
    if multiple_of > 1:
        guard["constraints"] = {"c": {"multiple_of": multiple_of}}
    return register(name="softmax_of_log", pattern=SOFTMAX_LOG, source=SOFTMAX_LOG_C, entry="softmax_of_log",
                    target=target, guard=guard, **extra)


def schedule_kinds(exe) -> list[str]:
    from aicf.dialects.loop import GroupOp, NestOp
    from aicf.dialects.schedule import schedule_of

    return [schedule_of(o).kind for o in exe.module.walk()
            if isinstance(o, GroupOp | NestOp) and not isinstance(o.parent_op(), GroupOp)]


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One cache root for a module's tests (our own kernels build once)."""
    return tmp_path_factory.mktemp("aicf-cache")


@pytest.fixture
def isolated(shared_cache, monkeypatch):
    """A fresh verdict cache, registry and gate counters for the test."""
    from aicf.kernels import cache, gate, proposer as prop, registry

    monkeypatch.setenv("AICF_CACHE_DIR", str(shared_cache))
    monkeypatch.delenv("AICF_PROPOSER", raising=False)
    shutil.rmtree(shared_cache / "kernels", ignore_errors=True)

    def reset():
        registry.clear()
        cache.forget_memory()
        gate._DECIDED_HERE.clear()
        for stats in (gate.STATS, prop.STATS):
            for k in stats:
                stats[k] = 0
        prop.NOTES.clear()

    reset()
    yield shared_cache
    reset()
