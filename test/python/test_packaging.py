"""pyproject's package list covers every source folder (a non-editable install would
silently drop a sub-package that is missing from it)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    package_dir = cfg["package-dir"]
    found = set()
    for pkg, folder in package_dir.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([pkg, *rel.parts]) if rel.parts else pkg)
    assert found - listed == set(), "add these to [tool.setuptools] packages"


def test_version_has_one_source():
    """pyproject reads the version from aicf.__version__; the installed metadata (what
    pip and `aicf-opt --version` report) is the same string."""
    from importlib.metadata import version

    import aicf

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "aicf.__version__"}
    assert version("aicf") == aicf.__version__
    assert f"## {aicf.__version__} " in (ROOT / "CHANGELOG.md").read_text()


def test_licence_and_typing_marker_are_shipped():
    from importlib.metadata import metadata

    meta = metadata("aicf")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text().splitlines()[1]
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in cfg["package-data"]["aicf"]
    assert (ROOT / "aicf" / "py.typed").is_file()


def test_xdsl_pin_is_explained():
    text = (ROOT / "pyproject.toml").read_text()
    pin = text.index('"xdsl==')
    comment = text[text.rindex("dependencies = [", 0, pin) : pin]
    assert "# Pinned exactly" in comment


def test_editable_install_prints_no_warning(tmp_path):
    """`pip install -e .` (into a scratch environment) prints no Python warning of the
    build backend (setup.py: setuptools' InformationOnly about our package-dir layout).
    pip -v shows the backend's warnings whatever pip's version; recent pips show them
    without -v too."""
    import re
    import subprocess
    import sys

    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
                        "-v", "--no-deps", "-e", str(ROOT)], capture_output=True, text=True, timeout=600)  # fmt: skip
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    shown = re.findall(r"^.*\.py:\d+: \w+: .*$", out, re.M)  # file:line: Category: message
    assert not shown, "\n".join(shown)
