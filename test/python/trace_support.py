"""What the front-end tests share: finding the line of a tagged statement, so that a
test can assert that an error names the user's line; loading a module of examples/.

    x = np.split(t, 2)  # SPLIT-LINE
    ...
    assert f"{__file__}:{line_of(__file__, 'SPLIT-LINE')}: error:" in message
"""


def line_of(path: str, marker: str) -> int:
    """The line number in `path` of the statement tagged `# <marker>`."""
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if text.rstrip().endswith(f"# {marker}") and "line_of(" not in text:
                return i
    raise AssertionError(marker)


def load_example(name: str):
    """examples/<name>.py as a module (examples/ is no package: its scripts are run
    as they are)."""
    import importlib.util
    import pathlib
    import sys

    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"examples_{name}", path)
    assert spec is not None and spec.loader is not None
    if spec.name in sys.modules:
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
