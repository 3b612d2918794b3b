"""The documentation in the repository stays true: the generated references match the
code, every environment variable the code reads is documented, and the code of the
tutorial and of the README runs as written (cpu target), from the repository root."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["aicf", "dialects", "passes", "lowering", "backend", "tools"]
# fenced blocks: ```python ... ``` and shell blocks (```sh, or unlabelled ones of
# aicf-opt/aicf-run commands)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(path: Path, languages: tuple[str, ...]) -> list[str]:
    return [body for lang, body in FENCE.findall(path.read_text()) if lang in languages]


def gen_reference():
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs/gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_references_are_current():
    stale = [str(p.relative_to(ROOT)) for p, text in gen_reference().pages().items()
             if not p.exists() or p.read_text() != text]  # fmt: skip
    assert not stale, f"run `python docs/gen_reference.py`: stale {stale}"


def test_operator_reference_covers_every_op():
    from aicf.context import aicf_dialects

    for dialect in aicf_dialects():
        page = (ROOT / "docs/ops" / f"{dialect.name}.md").read_text()
        for op in dialect.operations:
            assert f"### `{op.get_irdl_definition().name}`" in page


def test_api_reference_covers_the_public_api():
    import aicf

    page = (ROOT / "docs/api.md").read_text()
    for name in ("compile", "jit", "trace", "profiler", "TensorSpec", "Executable"):
        assert f"`aicf.{name}" in page, name
    assert "#### `Executable.explain(" in page and "#### `JitFunction.explain(" in page
    for name in dir(aicf.ops):
        if not name.startswith("_") and callable(getattr(aicf.ops, name)):
            assert f"| `{name}` |" in page, name


def test_every_environment_variable_is_documented():
    read = set()
    pattern = re.compile(r"""(?:environ(?:\.get)?\s*[\[(]|getenv\()\s*["'](AICF_\w+)""")
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*.py"):
            read |= set(pattern.findall(path.read_text()))
    table = re.findall(r"^\| `(AICF_\w+)` \|", (ROOT / "docs/environment.md").read_text(), re.M)
    assert read, "the scan found no variables: the pattern is out of date"
    assert read == set(table), (sorted(read - set(table)), sorted(set(table) - read))


def test_readme_points_only_inside_the_repository():
    text = (ROOT / "README.md").read_text()
    assert "../" not in text
    tops = tuple(f"{p.name}/" for p in ROOT.iterdir() if p.is_dir() and p.name != ".git")
    paths = {t.rstrip(".,:") for t in re.findall(r"`([\w./-]+)`", text) if t.startswith(tops)}
    assert paths, "no repository paths found in the README"
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, missing


def run_python_blocks(path: Path, tmp_path: Path) -> None:
    """The page's python blocks, in order, in one namespace, from the repository root,
    with a private cache (a fresh process: what a reader's first run sees)."""
    code = "\n\n".join(blocks(path, ("python",)))
    assert code
    script = tmp_path / f"{path.stem}_blocks.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env={**os.environ, "AICF_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def run_shell_blocks(path: Path) -> int:
    commands = [line for body in blocks(path, ("", "sh")) for line in body.splitlines()
                if line.startswith(("aicf-opt ", "aicf-run "))]  # fmt: skip
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "AICF_CACHE_DIR": tempfile.mkdtemp(prefix="aicf-docs-")}  # fmt: skip
    for command in commands:
        r = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True,
                           timeout=600, env=env)  # fmt: skip
        assert r.returncode == 0, f"{command}\n{r.stderr[-3000:]}"
        assert "Traceback" not in r.stderr, command
    return len(commands)


@pytest.mark.skipif(shutil.which("cc") is None, reason="the cpu target needs a C compiler")
@pytest.mark.parametrize("page", ["README.md", "docs/tutorial.md", "docs/external-kernels.md"])
def test_python_code_of_the_page_runs(page, tmp_path):
    run_python_blocks(ROOT / page, tmp_path)


@pytest.mark.skipif(shutil.which("cc") is None, reason="the cpu target needs a C compiler")
@pytest.mark.parametrize("page", ["README.md", "docs/tutorial.md"])
def test_commands_of_the_page_run(page):
    assert run_shell_blocks(ROOT / page) >= 3


def test_cache_layout_is_the_documented_one(tmp_path, monkeypatch):
    """One folder per backend under $AICF_CACHE_DIR, as docs/environment.md draws it
    (test_disk_cache.py checks that the cpu target's libraries land in `c/`)."""
    from aicf.backend import disk_cache

    monkeypatch.setenv("AICF_CACHE_DIR", str(tmp_path))
    page = (ROOT / "docs/environment.md").read_text()
    for backend, suffix in (("c", ".so"), ("cuda", ".cubin")):
        assert disk_cache.directory(backend) == tmp_path / backend
        assert f"{backend}/<key>{suffix}" in page and f"{backend}/<key>{suffix}.sha256" in page


def test_the_numpy_functions_the_readme_calls_missing_are_missing():
    """The README named np.take_along_axis among the functions still waiting for an
    operator (a CompileError) after it was implemented."""
    import numpy as np

    from aicf.frontend.numpy_api import FUNCTIONS, UFUNCS

    text = " ".join((ROOT / "README.md").read_text().split())
    waiting = re.search(r"waits for an operator \(([^)]*)\)", text)
    assert waiting, "the README's sentence on missing NumPy functions is gone"
    for name in re.findall(r"`np\.(\w+)`", waiting.group(1)):
        assert getattr(np, name) not in FUNCTIONS and name not in UFUNCS, f"np.{name} is implemented"
