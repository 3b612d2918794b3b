"""`aicf-opt --verify-diagnostics` with MLIR's meaning: the input says which
diagnostics it expects, where, and the run fails on any difference.

    %0 = aicf_tensor.add %x, %b : ...  // expected-error {{not broadcast-compatible}}
    // expected-error @+1 {{axis -3 is out of range}}
    // expected-warning @below {{...}}   (also @above, @-N, @unknown; -note, -remark)

An annotation names a severity and a substring of the message, at the line of the
annotation itself unless an @ designator moves it (@+N / @-N lines, @above / @below
one line, @unknown for a diagnostic without a location). Every diagnostic a chunk
produces must match an expectation at its line, and every expectation must be met;
with --split-input-file each chunk is checked on its own, with file line numbers.

aicf's diagnostics are text in MLIR's form (`file:line:col: error: message`, from
aicf.diagnostics and aicf.errors), so they are read back from what aicf-opt would
print; one without a location (`error: message`) is matched by `@unknown`. An input
without annotations must produce no diagnostic at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANNOTATION = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)\s*"
    r"(?:@(?P<at>above|below|unknown|[+-]\d{1,9}))?\s*\{\{(?P<text>.*?)\}\}"
)
DIAGNOSTIC = re.compile(
    r"(?:^|\s)(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|remark): (?P<msg>[^\n]*)"
)


@dataclass
class Expected:
    severity: str
    line: int | None  # None: @unknown
    text: str
    at: int  # the annotation's own line, for messages
    met: bool = False


@dataclass
class Diagnostic:
    severity: str
    line: int | None
    message: str


# anything that starts like an annotation: one that ANNOTATION does not read whole
# (an unclosed `{{`, a misspelt designator, MLIR's `-re` form) would otherwise expect
# nothing, and a test of an error that never comes would pass
LOOKS_LIKE = re.compile(r"expected-(?:error|warning|note|remark)\S*")


class MalformedAnnotation(ValueError):
    pass


def expectations(text: str, first_line: int) -> list[Expected]:
    """The annotations of a chunk whose first line is file line `first_line` (1-based).
    Raises MalformedAnnotation, naming the line, for one it cannot read."""
    out = []
    for i, line in enumerate(text.splitlines()):
        here = first_line + i
        starts = {m.start() for m in ANNOTATION.finditer(line)}
        for m in LOOKS_LIKE.finditer(line):
            if m.start() not in starts:
                what = m.group(0)
                hint = (" (regular expressions are not supported: match a substring with "
                        f"{what.split('-re')[0]})") if "-re" in what else ""
                raise MalformedAnnotation(f"line {here}: cannot read the annotation {line[m.start():].strip()!r}: "
                                          f"expected `expected-<severity> [@above|@below|@unknown|@+N|@-N] "
                                          f"{{{{text}}}}`{hint}")
        for m in ANNOTATION.finditer(line):
            at = m.group("at")
            if at == "unknown":
                target = None
            elif at == "above":
                target = here - 1
            elif at == "below":
                target = here + 1
            elif at:
                target = here + int(at)
            else:
                target = here
            out.append(Expected(m.group("sev"), target, m.group("text"), here))
    return out


def diagnostics(printed: str) -> list[Diagnostic]:
    """The diagnostics in what aicf-opt prints for a failure; one without a location
    (a bare `error: ...`) has line None."""
    found = [
        Diagnostic(m.group("sev"), int(m.group("line")), m.group("msg").strip())
        for m in DIAGNOSTIC.finditer(printed)
    ]
    if not found and printed.strip():
        first = printed.strip().splitlines()[0]
        found.append(Diagnostic("error", None, re.sub(r"^error: ", "", first)))
    return found


def check(expected: list[Expected], found: list[Diagnostic], file: str) -> list[str]:
    """Messages for each diagnostic nobody expected and each expectation not met."""
    problems = []
    for d in found:
        match = next(
            (e for e in expected
             if not e.met and e.severity == d.severity and e.line == d.line and e.text in d.message),
            None,
        )  # fmt: skip
        if match is None:
            where = f"{file}:{d.line}" if d.line is not None else f"{file} (no location)"
            problems.append(f"{where}: unexpected {d.severity}: {d.message}")
        else:
            match.met = True
    for e in expected:
        if not e.met:
            where = f"line {e.line}" if e.line is not None else "an unknown location"
            problems.append(
                f"{file}:{e.at}: expected {e.severity} at {where} was not produced: {{{{{e.text}}}}}"
            )
    return problems
