"""The external kernels this process knows: registered by hand (`register`), read from
files (`load`), and returned by a proposer (`add_proposal`).

File format (`*.kernels.json`; `aicf.compile("foo.mlir")` reads `foo.kernels.json`
beside it if the caller owns it and no one else may write it, `aicf.compile(...,
kernels=PATH)` or `aicf-plan{kernels=PATH}` any):

    {"kernels": [{
        "name": "softmax_rows", "target": "cpu",
        "pattern_file": "softmax.mlir",          # or "pattern": "<MLIR text>"
        "source_file": "softmax_rows.c",         # or "source": "<C or CUDA text>"
        "entry": "softmax_rows",
        "guard": {"shapes": [["n", "c"]], "dtypes": ["f32"], "layout": "contiguous",
                  "constraints": {"c": {"min": 1, "multiple_of": 4}}},
        "launch": {"grid": ["n"], "block": [256], "smem": 0},   # cuda only
        "workspace": 0,                          # bytes, an expression over the symbols
        "arg_order": [0, 1]                      # pattern inputs, then results
    }]}

Relative `*_file` paths are read from the file's folder. A kernel with the name of
one already registered replaces it. Every registration checks its pattern at once
(it must lower to one nest or group for its target), so a mistake shows where it
is made, not in a later compile.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from aicf.errors import CompileError

from .kernel import OPTIONAL_FIELDS, ExternalKernel, Guard, Launch

_REGISTERED: dict[str, ExternalKernel] = {}
_PROPOSED: dict[str, ExternalKernel] = {}
_LOADED: dict[str, tuple[str, list[ExternalKernel]]] = {}  # file -> (its text, its kernels)
GENERATION = [0]  # changes whenever the set changes (compile caches key on it)


def _bump() -> None:
    GENERATION[0] += 1


def add(kernel: ExternalKernel) -> ExternalKernel:
    from .pattern import lower_pattern

    lower_pattern(kernel)  # a broken pattern fails here, with its reason
    _REGISTERED[kernel.name] = kernel
    _bump()
    return kernel


def register(*, name: str, pattern: str, source: str, entry: str, target: str = "cpu",
             guard: Mapping | Guard | None = None, launch: Mapping | Launch | None = None,
             workspace: int | str = 0, arg_order: Sequence[int] | None = None) -> ExternalKernel:
    """Register an external kernel for `target` ("cpu": C source; "cuda": CUDA source
    with its `launch`): it computes `pattern` (an aicf_tensor function; `?` extents
    allowed) under `guard` (shapes with symbols, dtypes, layout, constraints), takes
    a `workspace` of that many bytes (an expression) and its arguments in `arg_order`
    (indices into the pattern's inputs then results). The calling convention is
    aicf/kernels/abi.py's (C: `int entry(const aicf_tensor *args, int64_t nargs,
    void *workspace)`). The kernel then competes in every later compile for that
    target, through the gate (aicf/kernels/gate.py); CompileError now if its pattern
    does not lower to one loop nest or group."""
    data = {"name": name, "target": target, "pattern": pattern, "source": source, "entry": entry,
            "guard": guard.to_data() if isinstance(guard, Guard) else guard,
            "launch": launch.to_data() if isinstance(launch, Launch) else launch,
            "workspace": workspace, "arg_order": list(arg_order) if arg_order is not None else None}
    return add(ExternalKernel.from_data(data))


def unregister(name: str) -> None:
    """Forget the kernel registered (or loaded from a file) under `name`."""
    if _REGISTERED.pop(name, None) is not None:
        _bump()


def clear() -> None:
    """Forget every registered, loaded and proposed kernel."""
    _REGISTERED.clear()
    _PROPOSED.clear()
    _LOADED.clear()
    _bump()


MAX_FILE_BYTES = 16 << 20


def read_file(path: Path) -> str:
    """A kernels, pattern or source file's text: a regular file (a FIFO or a device
    such as /dev/zero would block or never end) of at most MAX_FILE_BYTES. Raises
    OSError with the reason."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file")
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(0, f"larger than {MAX_FILE_BYTES >> 20} MiB")
    return data.decode("utf-8", errors="replace")


def load(path: str | Path) -> list[ExternalKernel]:
    """Register the kernels of a `*.kernels.json` file (once per path and content)."""
    path = Path(path)
    try:
        text = read_file(path)
    except OSError as e:
        raise CompileError(f"cannot read the kernels file {path}: {e.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise CompileError(f"{path}: not JSON: {e}") from None
    done = _LOADED.get(str(path.resolve()))
    if done is not None and done[0] == text and all(_REGISTERED.get(k.name) == k for k in done[1]):
        return list(done[1])
    if not isinstance(data, Mapping) or not isinstance(data.get("kernels"), list):
        raise CompileError(f"{path}: expected {{\"kernels\": [...]}}")
    out = []
    for i, entry in enumerate(data["kernels"]):
        if not isinstance(entry, Mapping):
            raise CompileError(f"{path}: kernel #{i} is not an object")
        entry = dict(entry)
        name = f"'{entry['name']}'" if isinstance(entry.get("name"), str) else f"#{i}"
        known = {"name", "target", "entry", "pattern", "pattern_file", "source", "source_file", *OPTIONAL_FIELDS}
        unknown = set(entry) - known
        if unknown:
            raise CompileError(f"{path}: kernel {name}: unknown field(s) {', '.join(sorted(unknown))} "
                               f"(known: {', '.join(sorted(known))})")
        for field, file_field in (("pattern", "pattern_file"), ("source", "source_file")):
            if file_field in entry:
                if field in entry:
                    raise CompileError(f"{path}: kernel {name} gives both {field} and {file_field}")
                if not isinstance(entry[file_field], str) or not entry[file_field]:
                    raise CompileError(f"{path}: kernel {name}: {file_field} must be a path (a string), "
                                       f"got {entry[file_field]!r}")
                f = path.parent / entry.pop(file_field)
                try:
                    entry[field] = read_file(f)
                except OSError as e:
                    raise CompileError(f"{path}: kernel {name}: cannot read {file_field} {f} (relative paths are "
                                       f"read from the kernels file's folder): {e.strerror}") from None
        try:
            out.append(add(ExternalKernel.from_data(entry, origin=f"file {path}")))
        except CompileError as e:
            raise CompileError(f"{path}: {e}") from None
    _LOADED[str(path.resolve())] = (text, out)
    return out


def add_proposal(kernel: ExternalKernel) -> None:
    if kernel.key not in _PROPOSED:
        _PROPOSED[kernel.key] = kernel
        _bump()


def available(target: str) -> list[ExternalKernel]:
    """Every kernel for `target` ("cpu" or "cuda"): registered first, then proposed."""
    return [k for k in (*_REGISTERED.values(), *_PROPOSED.values()) if k.target == target]


def registered() -> list[ExternalKernel]:
    return list(_REGISTERED.values())
