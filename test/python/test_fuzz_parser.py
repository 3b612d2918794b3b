"""Parser fuzzing: the lit tests' and examples' .mlir files, mutated (spans deleted,
duplicated or moved, syntax tokens and extreme literals inserted, cut short), go
through aicf-opt in process with the pipeline of the file's RUN line. Each run must
end in success or in a diagnostic (exit status 1, a message on stderr), never in a
Python exception, a crash or a hang (a SIGALRM deadline per run)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import signal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aicf.tools.aicf_opt import main

from fuzz_support import PROFILE

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("test/lit", "examples") for p in (ROOT / d).rglob("*.mlir"))
TOKENS = ["{", "}", "(", ")", "<", ">", "[", "]", ":", ",", "=", "%", "@", "^bb0", '"', "x",
          "?", "*", "-1", "0", "1e39", "0x7fc00000", "18446744073709551616", "tensor<", "memref<",
          "dense<", "f16", "bf16", "i32", "i1", "index", "\n", "// -----\n", "#map", "->",
          "affine_map<(d0) -> (d0)>", "\\00", "\xff", "aicf_tensor.", "aicf_loop.nest", "func.func"]  # fmt: skip
DEADLINE_S = 20


def run_line_args(path: Path) -> list[str]:
    """aicf-opt's options from the file's first RUN line that runs it (no -t: the
    emitters run the C and CUDA compilers only in their own tests)."""
    for line in path.read_text().splitlines():
        m = re.match(r"//\s*RUN:\s*(?:not\s+)?aicf-opt\s+(.*)", line)
        if m:
            args = shlex.split(m.group(1).split("|")[0].split("2>&1")[0])
            out, skip = [], False
            for a in args:
                if skip:
                    skip = False
                    continue
                if a in ("-t", "-o", "<", ">", "2>"):
                    skip = True
                elif a != "%s" and not a.startswith(("<", ">", "2>")):  # the shell's redirections
                    out.append(a)
            return out
    return []


@st.composite
def mutants(draw):
    path = draw(st.sampled_from(SOURCES))
    text = path.read_text()
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "move", "truncate"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "move":
            k = draw(st.integers(0, n))
            span, rest = text[i:j], text[:i] + text[j:]
            k = min(k, len(rest))
            text = rest[:k] + span + rest[k:]
        else:
            text = text[:i]
    return path, text


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


@settings(settings.get_profile(PROFILE), max_examples=60 if PROFILE == "ci" else 2000)
@given(mutants())
def test_mutated_mlir_gives_success_or_a_diagnostic(tmp_path_factory, case):
    path, text = case
    f = tmp_path_factory.mktemp("fuzz") / "input.mlir"
    f.write_bytes(text.encode("utf-8", "surrogateescape"))
    args = [str(f), *run_line_args(path)]
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(DEADLINE_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except SystemExit as e:  # argparse on options of the RUN line
                rc = e.code
    except Hang:
        pytest.fail(f"aicf-opt {shlex.join(args[1:])} did not finish in {DEADLINE_S} s on:\n{text}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert rc in (0, 1), (rc, err.getvalue())
    # the traceback's header: a diagnostic quoting the input may show a mutated
    # "// CHECK-NOT: Traceback" line, which is no crash
    assert "Traceback (most recent call last)" not in err.getvalue() + out.getvalue()
    if rc == 1:
        assert err.getvalue().strip(), "a failure without a diagnostic"
