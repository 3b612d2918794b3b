"""The gate: an external kernel runs in a program only if it compiles, computes what
its pattern computes on every case the gate tries, stays inside its buffers and its
time limit, and beats the compiler's own kernel for the op.

For one kernel and one op of a program (its signature matched the kernel's pattern
and its guard passed; aicf/kernels/planning.py):
1. compile: C with the cpu target's flags (backend/c/external.py), CUDA with NVRTC
   (nvcc where there is no GPU: backend/cuda/external.py); the compiler's message
   is the rejection;
2. cases (aicf/kernels/cases.py): the program's shapes, special values, zero, one
   and odd extents, strided inputs if the guard takes them; expected results from
   the float64 reference of the pattern;
3. a child process (aicf/kernels/sandbox.py) runs the kernel on guarded buffers
   (aicf/kernels/buffers.py), each call under the time limit, then times it against
   the compiler's own kernel for the op (alternating, medians). A crash, a hang or
   a fault ends the child, never this process;
4. this process judges: bytes written outside the outputs, a nonzero return, results
   that differ from the reference (which case, which elements), then the timings.
   Admitted only if correct and at least `min_speedup` times faster.

Verdicts are kept (aicf/kernels/cache.py) with the measurements and the cases as the
proof, and trusted again only in the same environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from aicf.dialects.boundary import boundary
from aicf.errors import CompileError
from aicf.logs import getLogger

from . import cache, store
from .buffers import CANARY, GUARD_BYTES, damage, element_view, padded
from .cases import Case, make_cases
from .kernel import ExternalKernel, evaluate
from .pattern import LoweredPattern, exact_ir, memref_info, operands

log = getLogger("plan")
STATS = {"gate_runs": 0, "cache_hits": 0, "rechecks": 0}
_DECIDED_HERE: set[str] = set()  # verdicts this process reached (not "cached" in explanations)
CHILD_STARTUP_S = 60.0  # the child imports NumPy and aicf, and may build the own kernel


@dataclass(frozen=True)
class GateConfig:
    """time_limit_s: each kernel call in the child; min_speedup: how much faster than
    the compiler's own kernel an admitted one must run (medians); bench_s: time spent
    timing (at least min_reps calls of each)."""

    time_limit_s: float = 10.0
    min_speedup: float = 1.1
    bench_s: float = 1.0
    min_reps: int = 3
    max_reps: int = 200


@dataclass
class Verdict:
    kernel: str  # the kernel's key
    status: str  # "admitted" | "rejected" | "unchecked"
    stage: str  # compile, config, run, crash, timeout, bounds, wrong, slower, faster, no-device
    reason: str
    correct: bool = False
    ext_s: float | None = None
    own_s: float | None = None
    cases: list[dict] = field(default_factory=list)  # the proof: each case run and its error
    notes: list[str] = field(default_factory=list)
    env: dict = field(default_factory=dict)
    cached: bool = False

    @property
    def admitted(self) -> bool:
        return self.status == "admitted"

    def summary(self) -> str:
        src = " (cached)" if self.cached else ""
        if self.admitted:
            return f"admitted by the gate{src}: {len(self.cases)} cases correct; {self.reason}"
        if self.status == "unchecked":
            return f"not checked{src}: {self.reason}"
        return f"rejected by the gate{src} ({self.stage}): {self.reason}"

    def forced_summary(self) -> str:
        """The summary when a force takes the kernel: it runs, whatever the timings."""
        if self.admitted:
            return f"forced; {self.summary()}"
        src = " (cached)" if self.cached else ""
        return f"forced: used although the gate{src} did not admit it: {self.reason}"

    def to_data(self) -> dict:
        d = asdict(self)
        d.pop("cached")
        return d

    @staticmethod
    def from_data(d: dict) -> Verdict:
        fields = {k: d[k] for k in Verdict.__dataclass_fields__ if k in d and k != "cached"}
        return Verdict(**fields)


def _timing(ext: float, own: float) -> str:
    return f"{ext * 1e3:.4g} ms against the compiler's own {own * 1e3:.4g} ms ({own / ext:.3g}x)"


# --- keys and the cache ---------------------------------------------------------------------


def target_id(target) -> str:
    return "cpu" if getattr(target, "kind", "") == "cpu" else f"sm_{target.sm_arch}"


def verdict_for(kernel: ExternalKernel, lowered: LoweredPattern, op: Operation, own: ModuleOp, target,
                config: GateConfig) -> Verdict:  # fmt: skip
    """The gate's verdict on `kernel` for `op` (from the cache where the environment is
    the same, else the gate runs now). `own` is a module running the compiler's own
    schedule of the op alone (dialects/boundary.py: standalone)."""
    problem = exact_ir(op)
    key = cache.digest(problem, target_id(target), kernel.source_hash, json.dumps(asdict(config), sort_keys=True))
    own_ir = str(own)
    env = cache.environment(kernel.target, own_ir)
    rec = cache.load(key, ".verdict.json")
    if rec is not None and rec.get("env") == env:
        v = Verdict.from_data(rec)
        v.cached = key not in _DECIDED_HERE
        STATS["cache_hits"] += v.cached
        if v.correct:  # the planner may take it (a correct one when forced): the emitter needs its source
            store.put(kernel)
        return v
    if rec is not None:
        STATS["rechecks"] += 1
        log.info("gate: %s: the environment changed since its verdict, checking it again", kernel.key)
    v = run_gate(kernel, lowered, op, own, target, config)
    v.env = env
    record = {**v.to_data(), "problem": problem, "target": target_id(target), "kernel_data": kernel.to_data()}
    cache.save(key, ".verdict.json", record, persist=v.status != "unchecked")
    _DECIDED_HERE.add(key)
    log.info("gate: %s for %s: %s", kernel.key, target_id(target), v.summary())
    store.put(kernel, persist=v.admitted)
    return v


# --- the run --------------------------------------------------------------------------------


def _compile(kernel: ExternalKernel, target) -> dict | None:
    """What the child loads; CompileError with the compiler's message; None when the
    kernel cannot be run here (no GPU)."""
    if kernel.target == "cpu":
        from aicf.backend.c.external import build_kernel_library

        return {"library": str(build_kernel_library(kernel)), "symbol": kernel.symbol}
    from aicf.backend.cuda.external import compile_kernel
    from aicf.target import gpu_present

    loader = compile_kernel(kernel, target.sm_arch)
    return loader if loader is not None and gpu_present() else None


def _program_inputs(lowered: LoweredPattern, op: Operation) -> tuple[list, list]:
    infos = [memref_info(v) for v in operands(lowered, op)[0]]
    return [i[0] for i in infos], [i[1] for i in infos]


def run_gate(kernel: ExternalKernel, lowered: LoweredPattern, op: Operation, own: ModuleOp, target,
             config: GateConfig) -> Verdict:  # fmt: skip
    STATS["gate_runs"] += 1
    key = kernel.key
    try:
        loader = _compile(kernel, target)
    except CompileError as e:
        return Verdict(key, "rejected", "compile", f"it does not compile:\n{e}")
    if loader is None:
        return Verdict(key, "unchecked", "no-device", "it compiles, but there is no GPU here to run it on")
    shapes, dtypes = _program_inputs(lowered, op)
    cases, notes = make_cases(kernel, lowered, shapes, dtypes)
    if not cases or cases[0].name != "program shape":
        return Verdict(key, "rejected", "config", "the pattern cannot be evaluated at the program's shapes", notes=notes)
    launches = []
    for c in cases:
        arg_shapes = [a.shape for a in c.args]
        try:
            ws = evaluate(kernel.workspace, c.symbols, arg_shapes)
            launch = kernel.launch.resolve(c.symbols, arg_shapes) if kernel.launch else None
        except (KeyError, ZeroDivisionError, IndexError, TypeError, ValueError) as e:
            return Verdict(key, "rejected", "config", f"its workspace or launch expression fails for case "
                                                      f"{c.describe()}: {type(e).__name__}: {e}", notes=notes)
        if ws < 0 or (launch is not None and (min(launch[0]) < 0 or min(launch[1]) < 1 or launch[2] < 0)):
            return Verdict(key, "rejected", "config", f"negative workspace or launch sizes for case {c.describe()}",
                           notes=notes)
        launches.append((ws, launch))
    with tempfile.TemporaryDirectory(prefix="aicf-gate-") as tmp:
        jobdir = Path(tmp)
        initial = _write_job(jobdir, kernel, loader, lowered, op, own, cases, launches, config)
        events, rc, stderr, timed_out = _run_child(jobdir, len(cases), config)
        v = _judge(jobdir, kernel, lowered, cases, launches, initial, events, rc, stderr, timed_out, config)
    v.notes = notes + v.notes
    return v


def _write_job(jobdir: Path, kernel, loader, lowered, op, own, cases: list[Case], launches, config) -> list:
    initial = []
    jcases = []
    for k, (c, (ws, launch)) in enumerate(zip(cases, launches)):
        bufs = []
        args = []
        for i, (a, v) in enumerate(zip(c.args, c.values)):
            b = padded(a.role, a.dtype, a.shape, a.strides, a.span, v)
            np.save(jobdir / f"c{k}_a{i}.npy", b)
            bufs.append(b)
            args.append({**a.to_data(), "file": f"c{k}_a{i}.npy"})
        initial.append(bufs)
        jcases.append({"name": c.name, "args": args, "workspace": ws, "launch": launch})
    ins, outs = boundary(op)
    n_in = len(ins)
    job = {
        "target": kernel.target, "kernel": loader, "cases": jcases, "run_limit_s": config.time_limit_s,
        "bench": {"case": 0, "own_module": str(own), "max_s": config.bench_s, "min_reps": config.min_reps,
                  "max_reps": config.max_reps,
                  "own_inputs": [lowered.args.index(b) for b in range(n_in)],
                  "own_outputs": [lowered.args.index(b) for b in range(n_in, n_in + len(outs))]},
    }
    (jobdir / "job.json").write_text(json.dumps(job))
    if kernel.target == "cpu":  # build the own kernel here, where a failure is ours to report
        from aicf.backend.c.runtime import CpuModule

        CpuModule(own)
    return initial


def _run_child(jobdir: Path, ncases: int, config: GateConfig):
    # a backstop: the child's own time limit stops a kernel call long before this
    deadline = CHILD_STARTUP_S + config.time_limit_s * (ncases + 4) + 4 * config.bench_s
    # output through files, waiting for the child itself: a process the kernel started
    # (fork, system("... &")) holds a pipe open after the child exits, and reading to
    # its end waited for the backstop; then the child's session goes, leftovers with it
    with open(jobdir / "child.out", "w+b") as fout, open(jobdir / "child.err", "w+b") as ferr:
        proc = subprocess.Popen([sys.executable, "-m", "aicf.kernels.sandbox", str(jobdir)], stdout=fout,
                                stderr=ferr, start_new_session=True, cwd=jobdir)
        timed_out = False
        try:
            proc.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nothing left of the session
        proc.wait()
        out, err = (_read_capped(f) for f in (fout, ferr))
    events = []
    for line in out.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events, proc.returncode, err, timed_out


MAX_CHILD_OUTPUT = 16 << 20  # bytes of the child's stdout or stderr read back


def _read_capped(f) -> str:
    f.seek(0)
    return f.read(MAX_CHILD_OUTPUT).decode("utf-8", "replace")


def _signal_name(rc: int) -> str:
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


def _rounded(expected: np.ndarray, dtype: str) -> np.ndarray:
    """The float64 reference rounded to the result's type (an f32 result of 1e39 is inf)."""
    if dtype == "bf16":
        from aicf.reference import round_bf16

        return round_bf16(expected)
    if dtype in ("f32", "f16"):
        with np.errstate(over="ignore", invalid="ignore"):
            return expected.astype(np.float32 if dtype == "f32" else np.float16).astype(np.float64)
    return expected


def _compare(actual: np.ndarray, expected: np.ndarray, dtype: str, reduces: bool) -> tuple[str | None, dict]:
    from aicf.testing import assert_close

    exp = _rounded(expected, dtype)
    if dtype == "bf16":
        from aicf.reference import bf16_bits_to_f64

        act = bf16_bits_to_f64(actual)
    else:
        act = actual.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        both = np.isfinite(act) & np.isfinite(exp)
        err = float(np.max(np.abs(act[both] - exp[both]))) if both.any() else 0.0
    stats = {"max_abs_error": err, "elements": int(actual.size), "nan_expected": int(np.isnan(exp).sum())}
    try:
        assert_close(actual, exp, reduction=reduces, dtype=dtype if dtype in ("bf16",) else None)
    except AssertionError as e:
        return str(e), stats
    return None, stats


def _judge(jobdir: Path, kernel, lowered, cases: list[Case], launches, initial, events, rc, stderr, timed_out,
           config: GateConfig) -> Verdict:  # fmt: skip
    key = kernel.key
    done = {e["case"]: e for e in events if e.get("event") == "done"}
    started = [e["case"] for e in events if e.get("event") == "start"]
    proof: list[dict] = []
    for k, c in enumerate(cases):
        e = done.get(k)
        if e is None:
            break
        if "error" in e:
            return Verdict(key, "rejected", "crash", f"case {c.describe()}: the kernel faulted: {e['error']}",
                           cases=proof)
        for i, (a, before) in enumerate(zip(c.args, initial[k])):
            after = np.load(jobdir / f"r{k}_a{i}.npy")
            hurt = damage(before, after, a.role)
            if hurt:
                return Verdict(key, "rejected", "bounds", f"case {c.describe()}: kernel argument #{i} "
                                                          f"({'input' if a.role == 'in' else 'result'}, "
                                                          f"{a.dtype}{list(a.shape)}): {hurt}", cases=proof)
        ws_file = jobdir / f"r{k}_ws.npy"
        if ws_file.exists():
            ws = np.load(ws_file)
            if (ws[:GUARD_BYTES] != CANARY).any() or (ws[ws.size - GUARD_BYTES:] != CANARY).any():
                return Verdict(key, "rejected", "bounds", f"case {c.describe()}: it wrote outside its workspace "
                                                          f"({launches[k][0]} bytes)", cases=proof)
        if e.get("rc", 0) != 0:
            return Verdict(key, "rejected", "run", f"case {c.describe()}: it returned {e['rc']} (failure)",
                           cases=proof)
        results = []
        for i, a in enumerate(c.args):
            if a.role != "out":
                continue
            after = np.load(jobdir / f"r{k}_a{i}.npy")
            actual = element_view(after, a.dtype, a.shape, a.strides)
            bad, stats = _compare(actual, c.expected[i], a.dtype, lowered.reduces)  # type: ignore[arg-type]
            if bad:
                r = lowered.order[i] - lowered.num_inputs
                return Verdict(key, "rejected", "wrong", f"case {c.describe()}: result #{r} ({a.dtype}"
                                                         f"{list(a.shape)}) differs from the reference:\n{bad}",
                               cases=proof)
            results.append(stats)
        proof.append({"case": c.name, "inputs": [f"{a.dtype}{list(a.shape)} strides {list(a.strides)}"
                                                 for a in c.args if a.role == "in"], "results": results})
    if len(proof) < len(cases):
        k = started[-1] if started else None
        where = f"case {cases[k].describe()}" if k is not None else "before its first case"
        return _stopped(key, where, rc, stderr, timed_out, config, proof)
    bench = next((e for e in events if e.get("event") == "bench"), None)
    if bench is None:
        return _stopped(key, "while timing it against the compiler's own kernel", rc, stderr, timed_out, config, proof)
    ext, own = float(np.median(bench["ext_s"])), float(np.median(bench["own_s"]))
    timing = _timing(ext, own) + f", medians of {len(bench['ext_s'])} runs"
    if ext * config.min_speedup > own:
        return Verdict(key, "rejected", "slower", f"correct, but not faster: {timing}; the gate asks for "
                                                  f"{config.min_speedup:g}x", correct=True, ext_s=ext, own_s=own,
                       cases=proof)
    return Verdict(key, "admitted", "faster", timing, correct=True, ext_s=ext, own_s=own, cases=proof)


def _stopped(key: str, where: str, rc, stderr: str, timed_out: bool, config: GateConfig, proof) -> Verdict:
    if timed_out or rc == -signal.SIGALRM:
        return Verdict(key, "rejected", "timeout", f"{where}: it ran past the time limit of "
                                                   f"{config.time_limit_s:g} s and was stopped", cases=proof)
    if rc is not None and rc < 0:
        return Verdict(key, "rejected", "crash", f"{where}: it crashed the test process ({_signal_name(rc)})",
                       cases=proof)
    tail = "\n".join(stderr.strip().splitlines()[-8:])
    return Verdict(key, "rejected", "run", f"{where}: the test process failed (exit {rc}):\n{tail}", cases=proof)
