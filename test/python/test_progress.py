"""The progress line for long work: on a terminal only, after AFTER_S seconds, erased
at the end, silenced by AICF_PROGRESS=0."""

from __future__ import annotations

import io
import sys
import time

import pytest

from aicf import progress as P


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    """A terminal as stderr (set when used: pytest puts its own stderr back between a
    test's setup and its call)."""
    term = Terminal()
    monkeypatch.setattr(P, "AFTER_S", 0.05)
    monkeypatch.setattr(P, "REDRAW_S", 0.01)
    monkeypatch.delenv("AICF_PROGRESS", raising=False)

    def use():
        monkeypatch.setattr(sys, "stderr", term)
        return term

    return use


def test_long_work_on_a_terminal_shows_a_line_then_erases_it(terminal):
    terminal = terminal()
    with P.progress("tuning", total=3) as p:
        p.advance()
        time.sleep(0.3)
    out = terminal.getvalue()
    assert "\raicf: tuning 1/3 (0 s)" in out
    width = len("aicf: tuning 1/3 (0 s)")
    assert out.endswith("\r" + " " * width + "\r")


def test_nested_work_shows_the_innermost_line(terminal):
    terminal = terminal()
    with P.progress("compiling @f for cuda"):
        with P.progress("tuning nests and groups", total=2):
            time.sleep(0.3)
    assert "aicf: tuning nests and groups 0/2" in terminal.getvalue()


def test_quick_work_shows_nothing(terminal, monkeypatch):
    monkeypatch.setattr(P, "AFTER_S", 5.0)
    terminal = terminal()
    with P.progress("compiling @f for cpu"):
        pass
    assert terminal.getvalue() == ""


def test_silenced_by_the_environment(terminal, monkeypatch):
    monkeypatch.setenv("AICF_PROGRESS", "0")
    terminal = terminal()
    with P.progress("compiling @f for cpu"):
        time.sleep(0.2)
    assert terminal.getvalue() == ""


def test_nothing_when_stderr_is_not_a_terminal(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    monkeypatch.setattr(P, "AFTER_S", 0.0)
    with P.progress("compiling @f for cpu") as p:
        time.sleep(0.1)
    assert pipe.getvalue() == "" and p._thread is None
