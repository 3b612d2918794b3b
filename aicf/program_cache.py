"""The compiled-program cache: a process that compiles a program it (or another
process) compiled before skips the passes, the emitter and the build.

`aicf.compile` looks the program up first, under a key of its canonical text (the
MLIR text given, or the printed ModuleOp), the target and its description (GPU
name, or the host CPU and its cores), every compile option, and the compiler itself
(a hash of aicf's own source files and the versions of xDSL and NumPy, so any
change to the compiler misses). An entry (`programs/<key>.json` in the disk cache,
backend/disk_cache.py: private, digest-checked, size-bounded) holds what the
executable needs: the entry's argument specs, the pipeline run, the emitted source
(its build is in the `c` or `cuda` cache), and the IR as text: the loop-level module
(`exe.module`), parsed only when something asks for it (explain, a strided variant;
for cuda the GPU-level module is lowered from it again then), and for cuda the host
function alone with each kernel's launch facts, which is all a run needs (parsing
or printing a GPT-2's 20k GPU ops would take seconds).

Programs with dynamic extents are cached per specialisation (each is a static
program). Set AICF_PROGRAM_CACHE=0 to turn the lookup and the stores off.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

FORMAT = 1


def enabled() -> bool:
    return os.environ.get("AICF_PROGRAM_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


@functools.cache
def compiler_id() -> str:
    """aicf's source (every .py file of its packages), and the versions of what it
    computes with: a cached program is reused only by the compiler that made it."""
    import numpy
    import xdsl

    import aicf
    import aicf.backend
    import aicf.dialects
    import aicf.lowering
    import aicf.passes

    h = hashlib.sha256()
    roots = [Path(aicf.__file__).parent, *(Path(p) for m in (aicf.backend, aicf.dialects, aicf.lowering,
                                                               aicf.passes) for p in m.__path__)]
    for root in sorted(set(roots)):
        for f in sorted(root.rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    for v in (aicf.__version__, getattr(xdsl, "__version__", "?"), numpy.__version__):
        h.update(str(v).encode())
    return h.hexdigest()[:32]


def program_key(text: str, target: str, options: Sequence[object]) -> str:
    """The key of `text` compiled for `target` (its description included in
    `options`) with `options`."""
    h = hashlib.sha256()
    for part in (f"aicf-program-{FORMAT}", compiler_id(), target, repr(tuple(options)), text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def target_description(target: str) -> str:
    """What the compiled program depends on of the machine: the GPU description (its
    name, e.g. the H100's), or the host CPU's (cores, caches) that the cpu planner
    prices with."""
    from aicf.target import resolve_target

    return repr(resolve_target("cpu" if target == "cpu" else "gpu"))


def lookup(key: str) -> dict | None:
    if not enabled():
        return None
    from aicf.backend import disk_cache

    record = disk_cache.lookup_json("programs", key, ".json")  # logs the miss or hit
    if record is None or record.get("format") != FORMAT:
        return None
    return record


def _spec_fits(spec: list) -> bool:
    """Whether an argument spec's dtype and shape are those of its memref type."""
    import numpy as np
    from xdsl.parser import Parser

    from aicf.context import make_context
    from aicf.dtypes import numpy_dtype

    try:
        t = Parser(make_context(), spec[3]).parse_type()
        return list(t.get_shape()) == spec[2] and np.dtype(spec[1]) == numpy_dtype(t.get_element_type())
    except Exception:  # noqa: BLE001 - any text that is no memref type does not fit
        return False


def _declared_outputs(record: dict) -> int | None:
    """How many trailing arguments the entry's loop-level function declares as outputs
    (its `aicf.num_outputs`), read from the text without parsing it; None when the
    function is not found. Checks the record's input count on the cpu target (the
    cuda host plan records its own), which nothing else does once a program may have
    no outputs (every spec is then an input)."""
    import re

    text, entry = record.get("loop_module"), record.get("entry")
    if not isinstance(text, str) or not isinstance(entry, str):
        return None
    for line in text.splitlines():
        head = line.strip()
        if head.startswith((f"func.func @{entry}(", f'func.func @"{entry}"(')):
            found = re.search(r"aicf\.num_outputs = (\d+) : i64", head)
            return int(found.group(1)) if found else 0
    return None


def record_problem(record: dict, target: str) -> str | None:
    """What makes `record` no entry of a program for `target`, or None: the fields and
    their types, and the argument specs against the entry's signature where the record
    says it (the cuda host plan)."""

    def is_list(v, n=None, of=None):
        return isinstance(v, list) and (n is None or len(v) == n) and (of is None or all(isinstance(x, of) for x in v))

    if record.get("target") != target or not isinstance(record.get("entry"), str):
        return "target or entry"
    specs, nin = record.get("specs"), record.get("num_inputs")
    if not is_list(specs, of=list) or not all(is_list(s, 4) and isinstance(s[0], str) and isinstance(s[1], str)
                                              and is_list(s[2], of=int) and isinstance(s[3], str) for s in specs):
        return "argument specs"
    if not isinstance(nin, int) or not 0 <= nin <= len(specs):
        return "input count"
    if not all(_spec_fits(s) for s in specs):  # the dtype and shape the executable uses, against the type
        return "argument specs against their types"
    if not is_list(record.get("pipeline"), of=str) or not isinstance(record.get("loop_module"), str):
        return "pipeline or module"
    if target == "cpu":
        c = record.get("cpu")
        if not isinstance(c, dict) or not isinstance(c.get("source"), str) or not is_list(c.get("flags"), of=str) \
                or not is_list(c.get("linked"), of=str):
            return "C source"
        import re

        from aicf.backend.c.emit import c_func_name

        took = re.search(rf"/\* aicf: {re.escape(c_func_name(record['entry']))} takes (\d+) buffers: (.*) \*/",
                         c["source"])
        if took is None or int(took.group(1)) != len(specs) or took.group(2) != ", ".join(s[3] for s in specs):
            return "argument specs against the C function"
        if _declared_outputs(record) != len(specs) - nin:
            return "input count against the entry's outputs"
    else:
        c = record.get("cuda")
        plan = c.get("host_plan") if isinstance(c, dict) else None
        if not isinstance(plan, dict) or not is_list(plan.get("args"), of=str) or plan.get("entry") != record["entry"]:
            return "host plan"
        if plan["args"] != [s[3] for s in specs] or plan.get("num_outputs") != len(specs) - nin:
            return "argument specs against the host function"
        if not all(isinstance(c.get(k), str) for k in ("source", "host_module", "globals_module")) \
                or not is_list(c.get("kernels"), of=dict) or not is_list(plan.get("steps"), of=list):
            return "CUDA source or kernels"
    return None


def store(key: str, record: dict) -> None:
    if not enabled():
        return
    from aicf.backend import disk_cache

    disk_cache.store("programs", key, ".json", json.dumps({"format": FORMAT, **record}).encode())


class LazyModule:
    """A module kept as text (or as the way to make it: `load`) until something needs
    its ops."""

    def __init__(self, text: str = "", name: str = "<cached program>", verify: bool = True,
                 load: Callable[[], ModuleOp] | None = None):
        self.text = text
        self.name = name
        self.verify = verify
        self.load = load
        self._module: ModuleOp | None = None

    def get(self) -> ModuleOp:
        if self._module is None and self.load is not None:
            self._module = self.load()
        if self._module is None:
            from aicf.context import make_context
            from aicf.diagnostics import LocatedParser, parse_module

            if self.verify:
                self._module = parse_module(make_context(), self.text, self.name)
            else:  # our own output, checked when it was written: parse only
                self._module = LocatedParser(make_context(), self.text, self.name).parse_module()
        return self._module


def module_of(m: ModuleOp | LazyModule) -> ModuleOp:
    return m.get() if isinstance(m, LazyModule) else m
