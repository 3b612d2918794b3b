"""The `aicf` logger hierarchy and AICF_LOG (aicf/logs.py): which components log, at
which level, and what a user sees on stderr for a compile, a cache miss and a hit."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aicf
from aicf import logs

PROGRAM = textwrap.dedent(
    """
    import numpy as np, aicf
    exe = aicf.compile('''
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
      %0 = aicf_tensor.sin %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %1 = aicf_tensor.exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %2 = aicf_tensor.reduce_sum %1 axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
      func.return %2 : tensor<4xf32>
    }''', target="cpu")
    x = np.ones((4, 8), np.float32)
    assert np.allclose(exe(x), np.exp(np.sin(x)).sum(-1), rtol=1e-5)
    """
)


def run(tmp_path, spec: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM],
        env={**os.environ, "AICF_LOG": spec, "AICF_CACHE_DIR": str(tmp_path / "cache"), **env},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize(
    "spec,levels",
    [
        ("fusion,cache", {"fusion": logging.INFO, "cache": logging.INFO}),
        ("+plan", {"plan": logging.DEBUG}),
        (" all , -passes", {**{c: logging.INFO for c in logs.COMPONENTS}, "passes": logging.WARNING}),
        ("", {}),
    ],
)
def test_spec_names_components_and_levels(spec, levels):
    assert logs.parse(spec) == levels


def test_unknown_component_is_named():
    with pytest.raises(ValueError, match=r"unknown aicf log component 'fuse'.*known: compile"):
        logs.parse("fuse")


def test_components_are_off_by_default_and_go_to_stderr_when_named(tmp_path):
    quiet = run(tmp_path / "quiet", "")
    assert quiet.returncode == 0, quiet.stderr
    assert "[aicf." not in quiet.stderr

    first = run(tmp_path, "fusion,cache")
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert any(line.startswith("[aicf.fusion] <string>:3:") and "3 ops into one kernel "
               "(sin exp reduce_sum)" in line for line in lines), first.stderr  # fmt: skip
    assert any(line.startswith("[aicf.cache] c miss: ") for line in lines), first.stderr
    assert any(line.startswith("[aicf.cache] c store: ") for line in lines), first.stderr
    assert any(line.startswith("[aicf.cache] programs store: ") for line in lines), first.stderr
    assert not any(line.startswith(("[aicf.passes]", "[aicf.plan]")) for line in lines)

    # a second process finds the compiled program on disk and runs no pass; hits are DEBUG
    again = run(tmp_path, "+cache,plan,passes,compile")
    lines = again.stderr.splitlines()
    assert any(line.startswith("[aicf.cache] programs hit: ") for line in lines), again.stderr
    assert any(line.startswith("[aicf.cache] c hit: ") for line in lines), again.stderr
    assert not any(line.startswith(("[aicf.passes]", "[aicf.plan]")) for line in lines), again.stderr
    assert any(line.startswith("[aicf.compile] @f for cpu: ") and "program cache" in line for line in lines)

    # without the program cache it finds the library on disk after running the passes
    again = run(tmp_path, "+cache,plan,passes,compile", AICF_PROGRAM_CACHE="0")
    lines = again.stderr.splitlines()
    assert any(line.startswith("[aicf.cache] c hit: ") for line in lines), again.stderr
    assert not any("programs" in line for line in lines), again.stderr
    assert any(line.startswith("[aicf.plan] <string>:") and "cpu." in line for line in lines)
    assert any(line.startswith("[aicf.passes] aicf-fuse{target=cpu}: ") for line in lines)
    assert any(line.startswith("[aicf.compile] @f for cpu: ") for line in lines)


def test_bad_spec_warns_and_the_program_still_runs(tmp_path):
    r = run(tmp_path, "fusion,nonsense")
    assert r.returncode == 0, r.stderr
    assert "AICF_LOG: unknown aicf log component 'nonsense'" in r.stderr


def test_jit_misses_and_hits(caplog):
    caplog.set_level(logging.DEBUG, logger="aicf.cache")

    @aicf.jit(target="cpu")
    def double(x):
        return x * 2

    x = np.ones(3, np.float32)
    double(x)
    double(x, **{})  # a keyword-free call of the same kind: a hit
    double(np.ones(5, np.float32))
    messages = [r.getMessage() for r in caplog.records if r.name == "aicf.cache"]
    misses = [m for m in messages if m.startswith("jit ") and ": miss " in m]
    assert [m.split(": miss ")[1] for m in misses] == ["(f32[3])", "(f32[5])"], messages


def test_set_logs_installs_one_handler_and_removes_it():
    root = logging.getLogger("aicf")
    before = list(root.handlers)
    try:
        logs.set_logs("plan")
        logs.set_logs("+plan")
        assert len(root.handlers) == len(before) + 1
        assert logging.getLogger("aicf.plan").level == logging.DEBUG
    finally:
        logs.set_logs("")
    assert root.handlers == before and root.propagate
    assert logging.getLogger("aicf.plan").level == logging.NOTSET
