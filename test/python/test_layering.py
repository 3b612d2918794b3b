"""Deciding apart from doing: the lowerings and emitters read schedule attributes and
never import the cost package (issue 7), so every decision is the planner's and shows
in the IR."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_lowerings_and_emitters_import_no_cost_code():
    offenders = []
    for folder in ("lowering", "backend"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            bad = sorted(n for n in _imports(path) if n == "aicf.cost" or n.startswith("aicf.cost."))
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    assert not offenders, "cost code imported where decisions are only read:\n" + "\n".join(offenders)


def test_no_schedule_comes_from_the_environment():
    for folder in ("aicf", "lowering", "backend", "passes"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            assert "_OVERRIDE" not in text, f"{path.relative_to(ROOT)} reads a schedule override"
