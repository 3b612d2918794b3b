"""A progress line for long work (compiling, tuning), on a terminal only.

    with progress("compiling @f for cpu"):
        ...
    with progress("tuning @f", total=len(schedules)) as p:
        for s in schedules:
            ...
            p.advance()

The line goes to stderr, and only when stderr is a terminal (never into a log, a pipe
or a test's captured output), and only once the work has taken `AFTER_S` seconds, so
quick work shows nothing. A background thread redraws it in place (elapsed seconds,
done/total when known) and it is erased when the work ends. `AICF_PROGRESS=0` turns
it off. Nested work (tuning inside a compile) shows the innermost line, timed from
the outermost's start; work in other threads meanwhile shows none.
"""

from __future__ import annotations

import os
import sys
import threading
import time

AFTER_S = 2.0
"""Work shorter than this shows no line."""

REDRAW_S = 0.25

_OFF = ("0", "false", "off", "no")
_stack: list["Progress"] = []
"""The shown work, outermost first (all of one thread: `_owner`)."""
_owner: int | None = None


def enabled() -> bool:
    if os.environ.get("AICF_PROGRESS", "1").strip().lower() in _OFF:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


class Progress:
    """What `progress()` returns: `advance()` counts done parts of the work."""

    def __init__(self, what: str, total: int | None = None):
        self.what = what
        self.total = total
        self.done = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0

    def advance(self, n: int = 1) -> None:
        self.done += n

    def line(self, elapsed: float) -> str:
        count = f" {self.done}/{self.total}" if self.total else ""
        return f"aicf: {self.what}{count} ({elapsed:.0f} s)"

    def _run(self, start: float) -> None:
        """The outermost work's thread: draws the innermost line until the end."""
        if self._stop.wait(AFTER_S):
            return
        while not self._stop.is_set():
            text = (_stack[-1] if _stack else self).line(time.monotonic() - start)
            sys.stderr.write("\r" + text.ljust(self._width))
            sys.stderr.flush()
            self._width = len(text)
            self._stop.wait(REDRAW_S)

    def __enter__(self) -> Progress:
        global _owner
        me = threading.get_ident()
        if _stack and _owner == me:
            _stack.append(self)
        elif not _stack and enabled():
            _owner = me
            _stack.append(self)
            self._thread = threading.Thread(target=self._run, args=(time.monotonic(),), daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self in _stack:
            _stack.remove(self)
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()


def progress(what: str, total: int | None = None) -> Progress:
    """A context manager showing `what` while the work inside it runs (see the module
    docstring)."""
    return Progress(what, total)
