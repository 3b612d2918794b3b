"""aicf's pytest plugin (registered as `aicf` in the `pytest11` entry points, so it
is active wherever aicf is installed; `pytest -p no:aicf` turns it off).

- `target`: a fixture parametrised over "cpu" and "cuda"; the cuda case carries the
  `gpu` marker and skips where CuPy sees no GPU. A test taking `target` runs once per
  target: `test_f[cpu]`, `test_f[cuda]`.
- `gpu` marker: a test that needs an NVIDIA GPU with CuPy; skipped without one.
  `pytest -m gpu` runs just these (on the GPU machine), `-m "not gpu"` leaves them out.
- `assert_close` (a fixture too, for tests that prefer fixtures to imports):
  aicf.testing.assert_close.

The module imports nothing heavy: CuPy is tried only when a collected test needs a GPU.
"""

from __future__ import annotations

import functools

import pytest

TARGETS = ("cpu", "cuda")
NO_GPU = "needs an NVIDIA GPU with CuPy"


@functools.cache
def have_gpu() -> bool:
    try:
        import cupy  # type: ignore[import-not-found]

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"gpu: {NO_GPU} (skipped without one)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if gpu_items and not have_gpu():
        for item in gpu_items:
            item.add_marker(pytest.mark.skip(reason=NO_GPU))


@pytest.fixture(params=[pytest.param(t, marks=[pytest.mark.gpu] if t == "cuda" else [])
                        for t in TARGETS])  # fmt: skip
def target(request: pytest.FixtureRequest) -> str:
    """The aicf target a test runs on ("cpu", "cuda")."""
    return request.param


@pytest.fixture
def assert_close():
    from aicf.testing import assert_close

    return assert_close
