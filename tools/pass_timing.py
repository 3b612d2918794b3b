"""aicf-opt --time-passes: wall time of parsing, each pass, verification and output,
summed over the chunks of --split-input-file and printed as mlir-opt prints it."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import IO

_RULE = "===" + "-" * 73 + "==="


class PassTimer:
    def __init__(self) -> None:
        # Rows in first-seen order; a pass that appears twice in the pipeline is two
        # rows (keyed by its position), as in mlir-opt.
        self._rows: dict[object, tuple[str, float]] = {}

    def add(self, key: object, label: str, seconds: float) -> None:
        self._rows[key] = (label, self._rows.get(key, (label, 0.0))[1] + seconds)

    @contextmanager
    def timing(self, key: object, label: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(key, label, time.perf_counter() - start)

    def report(self, out: IO[str]) -> None:
        total = sum(s for _, s in self._rows.values())
        lines = [
            _RULE,
            "... Execution time report ...".center(len(_RULE)).rstrip(),
            _RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for label, seconds in [*self._rows.values(), ("Total", total)]:
            share = 100.0 * seconds / total if total else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {label}")
        out.write("\n".join(lines) + "\n")
