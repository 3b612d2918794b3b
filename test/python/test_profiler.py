"""The profiler on both targets: a record per loop nest on cpu (each step of the C
function, timed in a profiled build), per kernel on cuda (CUDA events); the bytes and
FLOPs of each, a Chrome trace and a roofline plot."""

from __future__ import annotations

import json
import os
import tempfile
import time

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from aicf.backend.c import profile  # noqa: E402
from aicf.errors import AicfError  # noqa: E402

RNG = np.random.default_rng(4)

# three nests the tensor pipeline keeps apart: a matmul, a row sum of its tanh, a transpose
PROGRAM = """
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> (tensor<64xf32>, tensor<48x64xf32>) {
  %0 = aicf_tensor.matmul %a, %b : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  %1 = aicf_tensor.tanh %0 : (tensor<64x48xf32>) -> tensor<64x48xf32>
  %2 = aicf_tensor.reduce_sum %1 axes = [1] : (tensor<64x48xf32>) -> tensor<64xf32>
  %3 = aicf_tensor.transpose %0 perm = [1, 0] : (tensor<64x48xf32>) -> tensor<48x64xf32>
  func.return %2, %3 : tensor<64xf32>, tensor<48x64xf32>
}
"""


def _args():
    return RNG.standard_normal((64, 32)).astype(np.float32), RNG.standard_normal((32, 48)).astype(np.float32)


def test_cpu_records_every_nest_with_its_counts():
    exe = aicf.compile(PROGRAM, target="cpu")
    a, b = _args()
    start = time.monotonic_ns()
    prof = exe.profile(a, b, repeat=2)
    wall_us = (time.monotonic_ns() - start) / 1e3
    from aicf.backend.c.runtime import find_func

    steps = profile.step_ops(find_func(exe.module, "f"))
    assert len(steps) >= 3
    assert len(prof.records) == 2 * len(steps)  # every step of both calls
    assert all(r.target == "cpu" and r.ms >= 0 for r in prof.records)
    matmul = prof.records[0]
    assert matmul.kernel == "@f#0 nest 64x48x32"
    # FLOPs and bytes by hand: a multiply and an add per point; A, B and C once
    assert matmul.flops == 2 * 64 * 48 * 32
    assert matmul.nbytes == 4 * (64 * 32 + 32 * 48 + 64 * 48)
    assert matmul.ms > 0 and matmul.tflops > 0
    # the steps of a call run in order and inside the profiled region
    first = prof.records[: len(steps)]
    for earlier, later in zip(first, first[1:]):
        assert earlier.begin_us + earlier.ms * 1e3 <= later.begin_us + 1e-3
    assert 0 <= first[0].begin_us and first[-1].begin_us <= wall_us
    table = prof.table()
    assert "@f#0 nest 64x48x32" in table and "nothing ran" not in table


def test_cpu_results_are_unchanged_by_profiling():
    exe = aicf.compile(PROGRAM, target="cpu")
    a, b = _args()
    plain = exe(a, b)
    with aicf.profiler():
        profiled = exe(a, b)
    for x, y in zip(plain, profiled):
        np.testing.assert_array_equal(x, y)


def test_cpu_strided_inputs_are_profiled_too():
    exe = aicf.compile(PROGRAM, target="cpu")
    a, b = _args()
    at = np.asfortranarray(a)  # a strided (column-major) view: another variant of the function
    with aicf.profiler() as prof:
        out = exe(at, b)
    assert len(prof.records) >= 3
    np.testing.assert_allclose(out[0], np.tanh(a.astype(np.float64) @ b).sum(1), rtol=1e-5)


def test_empty_profile_says_so():
    with aicf.profiler() as prof:
        pass
    assert "nothing ran inside the profiler" in prof.table()


def test_chrome_trace(tmp_path):
    exe = aicf.compile(PROGRAM, target="cpu")
    prof = exe.profile(*_args())
    path = tmp_path / "trace.json"
    returned = prof.to_chrome_trace(path)
    trace = json.loads(path.read_text())
    assert trace == json.loads(json.dumps(returned))
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in events] == [r.kernel for r in prof.records]
    for e, r in zip(events, prof.records):
        assert e["cat"] == "nest" and e["dur"] == pytest.approx(r.ms * 1e3)
        assert e["ts"] >= 0 and e["args"]["flops"] == r.flops and e["args"]["bytes"] == r.nbytes
    assert any(e["ph"] == "M" and e["args"]["name"].startswith("aicf cpu") for e in trace["traceEvents"])


def test_unwritable_paths_are_aicf_errors_naming_the_path(tmp_path):
    """A raw FileNotFoundError / IsADirectoryError came out of to_chrome_trace."""
    with aicf.profiler() as prof:
        pass
    missing = tmp_path / "no-such-dir" / "trace.json"
    for path in (missing, str(missing), tmp_path):
        with pytest.raises(AicfError, match=r"cannot write the Chrome trace to '.*" + tmp_path.name + r".*': \w"):
            prof.to_chrome_trace(path)
    assert not missing.parent.exists()
    pytest.importorskip("matplotlib")
    with pytest.raises(AicfError, match=r"cannot write the roofline plot to '.*no-such-dir/r\.png'"):
        prof.roofline(tmp_path / "no-such-dir" / "r.png")


def test_roofline_png(tmp_path):
    pytest.importorskip("matplotlib")
    exe = aicf.compile(PROGRAM, target="cpu")
    path = exe.profile(*_args()).roofline(tmp_path / "roofline.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_instrumenting_a_changed_source_fails_loudly():
    source = "int aicf_f(void *const *bufs, const int64_t *const *strides) {\n" \
             "  if (aicf_f_step0(bufs, strides, mem)) goto fail;\n}\n"  # fmt: skip
    assert "aicf_f_profile[0] = aicf_now_ns();" in profile.instrument(source, "aicf_f", 1)
    with pytest.raises(AicfError, match=r"found 1 step calls of aicf_f .* expected 2"):
        profile.instrument(source, "aicf_f", 2)


def test_shared_steps_and_parts_are_timed_per_call():
    """A long program of one repeated layer: its steps are a few shared functions,
    called from part functions (backend/c/steps.py); every call is timed, in order."""
    import sys
    from pathlib import Path

    from aicf.backend.c.runtime import find_func

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from compile_time import unfused_chain

    exe = aicf.compile(unfused_chain(80), target="cpu")
    assert "aicf_f_part0(" in exe.source and "aicf_f_step5(" not in exe.source
    x = RNG.standard_normal((16, 16)).astype(np.float32)
    prof = exe.profile(x, x / 4)
    steps = profile.step_ops(find_func(exe.module, "f"))
    assert len(prof.records) == len(steps) == 80
    assert [r.kernel.split(" ")[1] for r in prof.records[:2]] == ["nest", "nest"]
    for earlier, later in zip(prof.records, prof.records[1:]):
        assert earlier.begin_us + earlier.ms * 1e3 <= later.begin_us + 1e-3


@pytest.mark.gpu
def test_cuda_records_every_kernel(tmp_path):
    import cupy as cp

    exe = aicf.compile(PROGRAM, target="cuda")
    a, b = (cp.asarray(x) for x in _args())
    prof = exe.profile(a, b, repeat=2)
    assert prof.records and all(r.target == "cuda" and r.ms > 0 for r in prof.records)
    assert len(prof.records) % 2 == 0
    starts = [r.begin_us for r in prof.records]
    assert starts == sorted(starts) and starts[0] == 0
    trace = prof.to_chrome_trace(tmp_path / "trace.json")
    kernels = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(kernels) == len(prof.records) and all(e["cat"] == "kernel" for e in kernels)
    if any(r.flops for r in prof.records):
        pytest.importorskip("matplotlib")
        prof.roofline(tmp_path / "roofline.png")


def test_cpu_attention_is_a_step_of_its_own():
    """An attention op is a step of the C function (backend/c/attention.py): the
    profiler times it, with the nests around it, one record each."""
    prog = """
func.func @attn(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %o = aicf_tensor.attention %q, %k, %v scale = 0.35355339059327373 causal : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %t = aicf_tensor.tanh %o : (tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  func.return %t : tensor<2x16x8xf32>
}
"""
    exe = aicf.compile(prog, target="cpu")
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((2, 16, 8)).astype(np.float32) for _ in range(3)]
    prof = exe.profile(*args)
    assert len(prof.records) == 2 and all(r.ms >= 0 for r in prof.records)
    # the attention step's counts: Q, K, V and O once each; two multiply-adds of head
    # dim 8 per causal query-key pair (16 * 17 / 2 of them per head, 2 heads)
    att = next(r for r in prof.records if "attention" in r.kernel)
    assert att.nbytes == 4 * 2 * 16 * 8 * 4
    assert att.flops == 2 * (2 * 16 * 17 // 2) * (8 + 8)
