"""The kernel gate on the cpu target (issue 13): kernels from outside run only when
they compile, match the float64 reference on every case, stay in bounds and in time,
and beat the compiler's own kernel; the rest are rejected with the reason and the
program runs its own kernel, in a healthy process.

Timing is robust on a loaded machine by construction: the "faster" kernels do
asymptotically less work than the compiler's (R * v instead of summing R rows;
x / sum(x) instead of softmax(log(x)) with three logs and two exps per element), the
"slower" one sleeps 200 ms a call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import textwrap

import numpy as np
import pytest

import aicf
from aicf.kernels import STATS, registry
from aicf.kernels import proposer as prop

from kernel_gate_support import SOFTMAX_LOG as SOFTMAX_LOG_TEXT, SOFTMAX_LOG_C as SOFTMAX_LOG_SOURCE
from kernel_gate_support import (  # noqa: F401  (isolated, shared_cache: fixtures)
    SOFTMAX_LOG,
    bcast_sum,
    isolated,
    proposer,
    register_softmax_log,
    schedule_kinds,
    shared_cache,
    softmax_log,
    softmax_log_reference,
)

GATE = {"time_limit_s": 2.0}


def _bcast_input(cols: int = 1024) -> np.ndarray:
    return np.random.default_rng(1).standard_normal(cols).astype(np.float32)


def _candidate_line(explanation: str, name: str) -> str:
    return next(ln for ln in explanation.splitlines() if f"external:{name}" in ln)


# --- a hand-registered kernel for a fused pattern --------------------------------------------


def test_registered_softmax_is_picked_when_faster(isolated):
    register_softmax_log()
    exe = aicf.compile(softmax_log(256, 1024), target="cpu")
    assert schedule_kinds(exe) == ["cpu.external"]
    line = _candidate_line(exe.explain(), "softmax_of_log")
    assert line.lstrip().startswith("-> cpu.external:softmax_of_log") and "admitted by the gate" in line
    x = np.random.default_rng(0).uniform(0.1, 3.0, (256, 1024)).astype(np.float32)
    np.testing.assert_allclose(exe(x), softmax_log_reference(x), rtol=1e-6, atol=1e-9)
    # a strided input reaches the kernel with its strides (its guard takes them)
    xt = np.random.default_rng(1).uniform(0.1, 3.0, (1024, 256)).astype(np.float32).T
    np.testing.assert_allclose(exe(xt), softmax_log_reference(xt), rtol=1e-6, atol=1e-9)


def test_registered_softmax_is_dropped_when_its_guard_fails(isolated):
    register_softmax_log(multiple_of=4)
    runs = STATS["gate_runs"]
    exe = aicf.compile(softmax_log(64, 1022), target="cpu")
    assert schedule_kinds(exe) == ["cpu.group"]
    line = _candidate_line(exe.explain(), "softmax_of_log")
    assert "does not apply: guard: 'c' = 1022 is outside its constraints (multiple_of 4)" in line
    assert STATS["gate_runs"] == runs  # a guard that fails costs no gate run
    x = np.random.default_rng(0).uniform(0.1, 3.0, (64, 1022)).astype(np.float32)
    np.testing.assert_allclose(exe(x), softmax_log_reference(x), rtol=2e-6, atol=1e-9)


def test_contiguous_only_kernel_falls_back_for_strided_inputs(isolated):
    register_softmax_log(layout="contiguous")
    exe = aicf.compile(softmax_log(128, 512), target="cpu")
    assert schedule_kinds(exe) == ["cpu.external"]
    xt = np.random.default_rng(2).uniform(0.1, 3.0, (512, 128)).astype(np.float32).T
    np.testing.assert_allclose(exe(xt), softmax_log_reference(xt), rtol=2e-6, atol=1e-9)
    variant = exe._program.cmodule  # the strided variant runs the fallback schedule
    assert any("strided operands, its fallback runs" in src for src in _variant_sources(variant))


def _variant_sources(cmodule):
    from aicf.backend.c.emit import emit_c_unit
    from aicf.backend.c.runtime import _strided_variant

    return [emit_c_unit(_strided_variant(cmodule.module, "softmax_log", (True, False)))[0]]


def test_kernels_file_beside_the_program(isolated, tmp_path):
    from kernel_gate_support import HERE

    (tmp_path / "prog.mlir").write_text(softmax_log(64, 256))
    (tmp_path / "prog.kernels.json").write_text(json.dumps({"kernels": [{
        "name": "softmax_of_log", "target": "cpu", "entry": "softmax_of_log",
        "pattern_file": str(HERE / "softmax_log.mlir"), "source_file": str(HERE / "softmax_log.c"),
        "guard": {"shapes": [["n", "c"]], "layout": "strided"}}]}))
    exe = aicf.compile(str(tmp_path / "prog.mlir"), target="cpu")
    assert schedule_kinds(exe) == ["cpu.external"]
    assert [k.name for k in registry.registered()] == ["softmax_of_log"]


@pytest.mark.parametrize("how", ["group-writable", "another user's", "in a folder others may write"])
def test_a_kernels_file_beside_the_program_that_others_control_is_not_read(isolated, tmp_path, how):
    # its source would be compiled and run as the caller: in a shared folder (/tmp)
    # anyone could have put it there; in one that is not sticky, they could also
    # rename ours away after the check and put theirs under its name
    if how == "in a folder others may write":
        tmp_path = tmp_path / "shared"
        tmp_path.mkdir()
    beside = tmp_path / "prog.kernels.json"
    (tmp_path / "prog.mlir").write_text(softmax_log(64, 256))
    beside.write_text(json.dumps({"kernels": [{
        "name": "planted", "target": "cpu", "entry": "softmax_of_log", "pattern": SOFTMAX_LOG,
        "source": "#error never compiled", "guard": {"layout": "strided"}}]}))
    if how == "group-writable":
        beside.chmod(0o664)
        says = "writable by group or others"
    elif how == "in a folder others may write":
        tmp_path.chmod(0o777)
        says = f"its parent {tmp_path} is writable by group or others"
    else:
        if os.geteuid() != 0:
            pytest.skip("changing a file's owner needs root")
        os.chown(beside, 65534, -1)
        says = "owned by another user"
    with pytest.warns(RuntimeWarning, match=f"not reading the kernels file {beside} beside the program: .*{says}"):
        exe = aicf.compile(str(tmp_path / "prog.mlir"), target="cpu")
    assert "cpu.external" not in schedule_kinds(exe)
    assert registry.registered() == []
    exe = aicf.compile(str(tmp_path / "prog.mlir"), target="cpu", kernels=str(beside))  # named: read
    assert [k.name for k in registry.registered()] == ["planted"]


# --- proposals through the gate ------------------------------------------------------------


@pytest.mark.parametrize("mode, stage, says", [
    ("wrong", "wrong", ["case 'program shape'", "differs from the reference", "mismatched elements"]),
    ("nocompile", "compile", ["does not compile", "kernel.c:", "error: expected"]),
    ("slower", "slower", ["correct, but not faster", "against the compiler's own", "1.1x"]),
    ("hang", "timeout", ["ran past the time limit of 2 s"]),
    ("oob", "bounds", ["kernel argument #1 (result, f32[1024])", "past the end of its elements"]),
    ("crash", "crash", ["crashed the test process (SIGSEGV)"]),
])
def test_bad_proposals_are_rejected_and_the_own_kernel_runs(isolated, mode, stage, says):
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer(mode), gate=GATE)
    assert schedule_kinds(exe) == ["cpu.nest"]
    line_and_reason = exe.explain()
    line = _candidate_line(line_and_reason, f"bcast_sum_{mode}")
    assert f"rejected by the gate ({stage})" in line
    for s in says:
        assert s in line_and_reason, s
    v = _bcast_input()
    np.testing.assert_allclose(exe(v), 4096.0 * v.astype(np.float64), rtol=1e-5)
    # the process is healthy: it compiles and runs something else
    y = aicf.compile(softmax_log(8, 16), target="cpu")(np.full((8, 16), 2.0, np.float32))
    np.testing.assert_allclose(y, 1.0 / 16, rtol=1e-6)


def test_forcing_takes_a_correct_but_slower_kernel(isolated):
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("slower"), gate=GATE, force="cpu.external")
    assert schedule_kinds(exe) == ["cpu.external"]
    v = _bcast_input()
    np.testing.assert_allclose(exe(v), 4096.0 * v.astype(np.float64), rtol=1e-5)
    # the explanation says the kernel runs because it was forced, with the gate's
    # verdict (it used to call the kernel that runs "rejected")
    line = _candidate_line(exe.explain(), "bcast_sum_slower")
    assert line.lstrip().startswith("-> cpu.external:bcast_sum_slower")
    assert "forced: used although the gate" in line and "not faster" in line
    assert "rejected" not in line


def test_a_forced_kernel_with_a_cached_verdict_is_built(isolated):
    """A correct but slower kernel forced again in a new process (its verdict from the
    disk cache): the C emitter finds its source (it used to be stored only when
    admitted: "scheduled as the external kernel ..., which this process does not know")."""
    from aicf.kernels import cache, gate, store

    aicf.compile(bcast_sum(), target="cpu", proposer=proposer("slower"), gate=GATE, force="cpu.external")
    registry.clear()  # as a new process: memory forgotten, the disk cache kept
    cache.forget_memory()
    gate._DECIDED_HERE.clear()
    store._KERNELS.clear()
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("slower"), gate=GATE, force="cpu.external")
    assert STATS["gate_runs"] == 1 and STATS["cache_hits"] >= 1
    assert schedule_kinds(exe) == ["cpu.external"]
    assert "forced: used although the gate (cached)" in _candidate_line(exe.explain(), "bcast_sum_slower")
    v = _bcast_input()
    np.testing.assert_allclose(exe(v), 4096.0 * v.astype(np.float64), rtol=1e-5)


def test_a_forced_admitted_kernel_shows_force_and_verdict_as_planned(isolated, capsys):
    """aicf-plan{explain=true force=...} (aicf-opt's view) keeps the gate's verdict on
    the forced line (the force used to replace it with a bare "forced")."""
    from aicf.compiler import _load, pipeline_for, run_pipeline

    register_softmax_log()
    module = _load(softmax_log(64, 256))
    passes = [p.replace("aicf-plan{", "aicf-plan{explain=true ")
              for p in pipeline_for("cpu", force=("cpu.external",), tensor_level=True)]
    run_pipeline(module, passes)
    line = _candidate_line(capsys.readouterr().err, "softmax_of_log")
    assert line.lstrip().startswith("-> cpu.external:softmax_of_log")
    assert "forced; admitted by the gate" in line


def test_forcing_never_takes_a_wrong_kernel(isolated):
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("wrong"), gate=GATE, force="cpu.external")
    assert schedule_kinds(exe) == ["cpu.nest"]


def test_proposer_that_fails_is_noted(isolated):
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer=proposer("garbage"), gate=GATE)
    assert schedule_kinds(exe) == ["cpu.nest"]
    assert "external kernels: proposer for @bcast_sum op #1 (aicf_tensor.reduce_sum): its output is not JSON" \
        in exe.explain()


def test_a_proposer_that_prints_nothing_is_told_so(isolated, tmp_path):
    script = tmp_path / "silent.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('no model configured', file=sys.stderr)\n")
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer=f"{sys.executable} {script}", gate=GATE)
    text = exe.explain()
    assert "it printed nothing on stdout" in text and "no model configured" in text


def test_a_kernel_without_its_entry_is_rejected_at_compile(isolated):
    """The source compiles but defines no `entry`: a compile-stage rejection saying so
    (it was the child's traceback: "undefined symbol: aicf_ext_...")."""
    from aicf.kernels import register

    register(name="no_entry", pattern=SOFTMAX_LOG_TEXT, source=SOFTMAX_LOG_SOURCE, entry="softmax_of_logs",
             guard={"shapes": [["n", "c"]]})
    exe = aicf.compile(softmax_log(16, 64), target="cpu", gate=GATE)
    line = exe.explain().split("external:no_entry", 1)[1]
    assert "rejected by the gate (compile)" in line and "does not define its entry 'softmax_of_logs'" in line
    assert "Traceback" not in exe.explain()


def test_proposer_time_limit(isolated, tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import time; time.sleep(30)\n")
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer=f"{sys.executable} {script}",
                       gate={"proposer_timeout_s": 1.0})
    assert "no reply within 1 s" in exe.explain()


def test_a_proposer_flooding_its_output_is_stopped_at_the_reply_cap(isolated, tmp_path):
    """`yes` as the proposer wrote ~0.5 GB a second into a temporary file until the
    time limit (60 s by default: tens of GB of disk, or of memory where /tmp is a
    tmpfs); it is stopped once its output passes MAX_REPLY_BYTES."""
    from aicf.kernels.proposer import MAX_REPLY_BYTES

    start = time.monotonic()
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer="yes", gate={"proposer_timeout_s": 30.0})
    assert time.monotonic() - start < 20
    assert f"its reply is longer than {MAX_REPLY_BYTES} bytes (stopped)" in exe.explain()


def test_what_a_proposer_leaves_running_in_its_group_is_stopped(isolated, tmp_path):
    """A background writer the proposer left behind (`yes &`) wrote on into the
    (deleted) reply file after the compile returned, until the disk was full."""
    marker = tmp_path / "alive"
    script = tmp_path / "bg.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\n(while :; do touch {marker}; sleep 0.05; done) &\n"
                      "echo '{\"kernels\": []}'\n")
    script.chmod(0o755)
    aicf.compile(bcast_sum(64, 32), target="cpu", proposer=str(script), gate={"proposer_timeout_s": 10.0})
    time.sleep(0.3)
    marker.unlink(missing_ok=True)
    time.sleep(0.5)
    assert not marker.exists(), "the proposer's background process still runs"


def test_a_proposer_is_stopped_when_the_compile_is_interrupted(isolated, tmp_path, monkeypatch):
    """Ctrl-C during a compile left the proposer running, with all it started: it runs
    in a session of its own, which the terminal's SIGINT does not reach, and the
    interrupt went past the wait that would have stopped it."""
    import types

    from aicf.kernels import proposer

    marker = tmp_path / "alive"
    script = tmp_path / "busy.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\nwhile :; do touch {marker}; sleep 0.05; done\n")
    script.chmod(0o755)
    start = time.monotonic()

    def sleep(s):
        if time.monotonic() - start > 1.0:
            raise KeyboardInterrupt
        time.sleep(s)

    monkeypatch.setattr(proposer, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=sleep))
    with pytest.raises(KeyboardInterrupt):
        aicf.compile(bcast_sum(64, 32), target="cpu", proposer=str(script), gate={"proposer_timeout_s": 30.0})
    time.sleep(0.3)
    marker.unlink(missing_ok=True)
    time.sleep(0.5)
    assert not marker.exists(), "the proposer still runs"

def test_a_proposer_leaving_a_background_process_is_read_when_it_exits(isolated, tmp_path):
    """Its reply is read once it has exited, though a process it started in a session
    of its own still holds its output open (the pipe read used to wait for that)."""
    script = tmp_path / "bg.sh"
    script.write_text("#!/bin/sh\ncat >/dev/null\nsetsid sleep 30 &\necho '{\"kernels\": []}'\n")
    script.chmod(0o755)
    start = time.monotonic()
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer=str(script), gate={"proposer_timeout_s": 10.0})
    assert time.monotonic() - start < 20
    assert "no reply" not in exe.explain()


@pytest.mark.parametrize("reply, words", [
    (b"\xff\xfe{}", "its output is not JSON"),
    (b'{"kernels": [{"name": "k", "source": "x", "entry": "k", "guard": 5}]}', "guard must be an object"),
    (b'{"kernels": [{"name": "k", "source": "x", "entry": "k", "guard": "abc"}]}', "guard must be an object"),
])
def test_malformed_replies_are_noted(isolated, tmp_path, reply, words):
    out = tmp_path / "reply.bin"
    out.write_bytes(reply)
    script = tmp_path / "reply.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\ncat {out}\n")
    script.chmod(0o755)
    exe = aicf.compile(bcast_sum(64, 32), target="cpu", proposer=str(script), gate=GATE)
    assert schedule_kinds(exe) == ["cpu.nest"]
    assert words in exe.explain()


def test_a_kernels_file_with_a_bad_guard_names_the_kernel(tmp_path):
    from aicf.errors import CompileError
    from aicf.kernels import load

    f = tmp_path / "g.kernels.json"
    f.write_text('{"kernels": [{"name": "g", "target": "cpu", "pattern": "x", "source": "x", "entry": "g", "guard": 5}]}')
    with pytest.raises(CompileError, match="'g'.*guard must be an object"):
        load(str(f))


def test_the_proposer_sees_the_subgraph_and_the_abi(isolated, tmp_path):
    script = tmp_path / "dump.py"
    out = tmp_path / "request.json"
    script.write_text(f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read()); print('{{\"kernels\": []}}')\n")
    aicf.compile(bcast_sum(64, 32), target="cpu", proposer=f"{sys.executable} {script}")
    req = json.loads(out.read_text())
    assert req["target"] == "cpu"
    assert "aicf_tensor.broadcast_to" in req["subgraph"] and "aicf_tensor.reduce_sum" in req["subgraph"]
    assert req["arguments"] == [{"type": "tensor<32xf32>", "dtype": "f32", "shape": [32]}]
    assert req["results"][0]["shape"] == [32]
    assert "aicf_tensor" in req["constraints"]["abi"]["header"]
    assert req["constraints"]["target"]["cores"] >= 1


SECOND_PROCESS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import aicf
    from aicf.kernels import STATS
    sys.path.insert(0, {support!r})
    from kernel_gate_support import bcast_sum, proposer, schedule_kinds
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("faster"), gate={{"time_limit_s": 2.0}})
    v = np.random.default_rng(1).standard_normal(1024).astype(np.float32)
    err = float(np.abs(exe(v) - 4096.0 * v.astype(np.float64)).max())
    print(json.dumps({{"stats": STATS, "kinds": schedule_kinds(exe), "err": err, "explain": exe.explain()}}))
""")


def test_faster_proposal_is_admitted_used_and_reused_by_a_second_process(isolated, tmp_path):
    log = tmp_path / "calls.log"
    os.environ["AICF_TEST_PROPOSER_LOG"] = str(log)
    try:
        exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("faster"), gate=GATE)
    finally:
        del os.environ["AICF_TEST_PROPOSER_LOG"]
    assert schedule_kinds(exe) == ["cpu.external"]
    assert "admitted by the gate" in _candidate_line(exe.explain(), "bcast_sum_faster")
    v = _bcast_input()
    np.testing.assert_allclose(exe(v), 4096.0 * v.astype(np.float64), rtol=1e-6)
    assert log.read_text().splitlines() == ["faster cpu"]
    env = {**os.environ, "AICF_TEST_PROPOSER_LOG": str(log), "AICF_CACHE_DIR": str(isolated)}
    code = SECOND_PROCESS.format(support=os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    second = json.loads(proc.stdout.splitlines()[-1])
    assert second["kinds"] == ["cpu.external"] and second["err"] < 1e-2
    assert second["stats"]["gate_runs"] == 0 and second["stats"]["cache_hits"] >= 1
    assert "admitted by the gate (cached)" in second["explain"]
    assert log.read_text().splitlines() == ["faster cpu"]  # the proposer was not asked again


def test_a_cached_verdict_is_checked_again_when_the_environment_changes(isolated, monkeypatch):
    from aicf.kernels import cache, gate

    def as_a_new_process():  # memory forgotten, the disk cache kept
        cache.forget_memory()
        gate._DECIDED_HERE.clear()
        registry.clear()

    aicf.compile(bcast_sum(), target="cpu", proposer=proposer("faster"), gate=GATE)
    assert STATS["gate_runs"] == 1
    as_a_new_process()
    aicf.compile(bcast_sum(), target="cpu", proposer=proposer("faster"), gate=GATE)
    assert STATS["gate_runs"] == 1 and STATS["cache_hits"] == 1  # the same environment: trusted
    real = cache.environment
    monkeypatch.setattr(cache, "environment", lambda *a: {**real(*a), "c_compiler": "another compiler 99"})
    as_a_new_process()
    exe = aicf.compile(bcast_sum(), target="cpu", proposer=proposer("faster"), gate=GATE)
    assert STATS["gate_runs"] == 2 and STATS["rechecks"] == 1
    assert schedule_kinds(exe) == ["cpu.external"]
    assert prop.STATS["proposer_calls"] == 1  # the proposal itself came from the cache


# --- the cuda target where there is no GPU: compile errors still reject -----------------------

needs_nvcc = pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="needs nvcc on PATH")


def _plan_for_h100(mode: str) -> str:
    """The explanation of bcast_sum planned for the H100 with the proposer in `mode`."""
    from aicf.compiler import KernelOptions, pipeline_for, run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.kernels.gate import GateConfig
    from aicf.kernels.planning import Options
    from aicf.passes.loop.plan import explain_module
    from aicf.target import resolve_target

    module = parse_module(make_context(), bcast_sum(), "<bcast_sum>")
    passes = pipeline_for("cuda", tune=False, kernels=KernelOptions(proposer=proposer(mode), time_limit_s=2.0))
    run_pipeline(module, [p.replace("target=gpu", "target=h100") for p in passes])
    return explain_module(module, resolve_target("h100"), options=Options(config=GateConfig(time_limit_s=2.0)))


@needs_nvcc
def test_cuda_proposal_that_does_not_compile_is_rejected_with_the_compiler_message(isolated):
    text = _plan_for_h100("nocompile")
    line = _candidate_line(text, "bcast_sum_nocompile")
    assert "rejected by the gate (compile)" in line
    assert "nvcc failed on the external kernel 'bcast_sum_nocompile'" in text and "kernel.cu(" in text


@needs_nvcc
def test_cuda_proposal_that_compiles_waits_for_a_gpu(isolated):
    text = _plan_for_h100("faster")
    assert "not checked: it compiles, but there is no GPU here to run it on" in _candidate_line(
        text, "bcast_sum_faster")
    assert "-> gpu.external" not in text


FAILS_GUARD = {"shapes": [["c"]], "constraints": {"c": {"min": 1024, "max": 1024}}}
FAILS_ON_MARK = """
#include <string.h>
int bcast_sum_fails(const aicf_tensor *args, int64_t nargs, void *workspace) {
  (void)nargs; (void)workspace;
  const float *v = (const float *)args[0].data;
  float *y = (float *)args[1].data;
  const int64_t n = args[1].shape[0], sv = args[0].strides[0], sy = args[1].strides[0];
  if (args[0].shape[0] > 0 && v[0] == 12345.0f) return 3;  /* a failure the gate's cases never meet */
  for (int64_t j = 0; j < n; ++j) y[j * sy] = 4096.0f * v[j * sv];
  return 0;
}
"""


def test_a_kernel_failing_at_run_time_is_named(isolated):
    """An admitted kernel that returns nonzero on inputs the gate never tried: the call
    fails naming it (it used to say "out of memory allocating an intermediate buffer")."""
    from aicf.kernels import register

    register(name="bcast_sum_fails", pattern=bcast_sum(), source=FAILS_ON_MARK, entry="bcast_sum_fails",
             guard=FAILS_GUARD)
    exe = aicf.compile(bcast_sum(), target="cpu", gate=GATE, force="cpu.external")
    assert schedule_kinds(exe) == ["cpu.external"]
    v = _bcast_input()
    np.testing.assert_allclose(exe(v), 4096.0 * v.astype(np.float64), rtol=1e-5)
    v[0] = 12345.0
    with pytest.raises(aicf.AicfError, match="the external kernel.s. bcast_sum_fails returned nonzero"):
        exe(v)


def test_an_edited_kernels_file_is_read_again(isolated, tmp_path):
    """The in-process cache of compiled cpu modules does not keep a module compiled
    with kernels files: the second compile sees the edited file."""
    kfile = tmp_path / "k.kernels.json"

    def write(entry: str) -> None:
        kfile.write_text(json.dumps({"kernels": [{"name": "bcast_by_file", "target": "cpu", "pattern": bcast_sum(),
                                                  "source": FAILS_ON_MARK, "entry": entry, "guard": FAILS_GUARD}]}))

    write("bcast_sum_fails")
    for _ in range(2):  # the second finds the file loaded already (no new registry generation)
        first = aicf.compile(bcast_sum(), target="cpu", gate=GATE, kernels=str(kfile), force="cpu.external")
        assert schedule_kinds(first) == ["cpu.external"]
    write("no_such_entry")
    second = aicf.compile(bcast_sum(), target="cpu", gate=GATE, kernels=str(kfile), force="cpu.external")
    assert "does not define its entry 'no_such_entry'" in second.explain()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_a_kernel_that_leaves_processes_behind_is_judged_at_once(isolated, tmp_path):
    # its children held the child's output pipe open: the gate read on until its
    # backstop (a minute and more), and they lived on after it
    pids = tmp_path / "pids"
    source = "#include <stdio.h>\n#include <unistd.h>\n" + SOFTMAX_LOG_SOURCE + textwrap.dedent(f"""
        int forking(const aicf_tensor *args, int64_t nargs, void *workspace) {{
          if (fork() == 0) {{
            FILE *f = fopen("{pids}", "a");
            if (f) {{ fprintf(f, "%d\\n", (int)getpid()); fclose(f); }}
            sleep(600);
            _exit(0);
          }}
          return softmax_of_log(args, nargs, workspace);
        }}""")
    aicf.kernels.register(name="forking", pattern=SOFTMAX_LOG, source=source, entry="forking", target="cpu",
                          guard={"shapes": [["n", "c"]], "layout": "strided"})
    start = time.monotonic()
    exe = aicf.compile(softmax_log(64, 256), target="cpu", gate=GATE)
    assert time.monotonic() - start < 50, "the gate waited for the kernel's children"
    assert "external:forking" in exe.explain()
    left = [int(p) for p in pids.read_text().split()]
    assert left
    deadline = time.monotonic() + 10  # SIGKILL is sent; dying takes a moment
    while [p for p in left if _alive(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in left if _alive(p)]
