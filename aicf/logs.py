"""aicf's logs: the `aicf` logger hierarchy, and `AICF_LOG` to turn parts of it on.

Components (each the logger `aicf.<name>`):
    compile   what aicf.compile and aicf.jit did and how long each phase took
    passes    each pass run by aicf.compile and its time (+passes: the IR after each)
    fusion    each group aicf-fuse formed, with its cost fused and unfused
    attention each attention aicf-recognize-attention formed, and each near miss with
              why it was not matched
    plan      the schedule taken for each loop nest and group
    cache     disk-cache hits, misses, stores and evictions; compiled-program and jit
              specialisation hits (+cache) and misses

`AICF_LOG`, in the spirit of PyTorch's TORCH_LOGS, is a comma-separated list of
components: `name` logs it at INFO, `+name` at DEBUG, `-name` only its warnings;
`all` stands for every component. Examples: `AICF_LOG=fusion,cache`,
`AICF_LOG=+plan`, `AICF_LOG=all,-passes`. Records go to stderr as
`[aicf.<name>] message`. `aicf.logs.set_logs("fusion,+plan")` does the same from
Python; the loggers are ordinary `logging` loggers, so an application can instead
attach its own handlers to `aicf`.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

COMPONENTS = ("compile", "passes", "fusion", "attention", "plan", "cache")
ROOT = "aicf"

_handler: logging.Handler | None = None


def getLogger(component: str) -> logging.Logger:  # noqa: N802 (logging's spelling)
    """The logger of one of COMPONENTS."""
    assert component in COMPONENTS, component
    return logging.getLogger(f"{ROOT}.{component}")


def parse(spec: str) -> dict[str, int]:
    """The level of each component that `spec` (AICF_LOG's syntax) names; a
    ValueError naming an unknown component."""
    levels: dict[str, int] = {}
    for item in spec.replace(" ", "").split(","):
        if not item:
            continue
        level = {"+": logging.DEBUG, "-": logging.WARNING}.get(item[0], logging.INFO)
        name = item.lstrip("+-")
        names = COMPONENTS if name in ("all", ROOT) else (name,)
        if name not in COMPONENTS and names is not COMPONENTS:
            raise ValueError(f"unknown aicf log component '{name}' in '{spec}' "
                             f"(known: {', '.join(COMPONENTS)}, all)")  # fmt: skip
        for n in names:
            levels[n] = level
    return levels


def set_logs(spec: str = "") -> None:
    """Log the components `spec` names (AICF_LOG's syntax) to stderr; "" turns aicf's
    own handler off and the levels back to logging's defaults."""
    global _handler
    levels = parse(spec)
    root = logging.getLogger(ROOT)
    for name in COMPONENTS:
        logging.getLogger(f"{ROOT}.{name}").setLevel(levels.get(name, logging.NOTSET))
    if _handler is not None:
        root.removeHandler(_handler)
        root.propagate = True
        _handler = None
    if levels:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
        root.addHandler(_handler)
        root.propagate = False  # once, not again through an application's root handler


def configure_from_env() -> None:
    """Apply $AICF_LOG (at `import aicf`); an unknown component is a warning, not an
    error, so a typo in the environment does not stop the program."""
    spec = os.environ.get("AICF_LOG", "")
    if not spec:
        return
    try:
        set_logs(spec)
    except ValueError as e:
        warnings.warn(f"AICF_LOG: {e}", RuntimeWarning, stacklevel=2)
