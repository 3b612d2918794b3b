"""The step functions of one emitted C function, one per distinct body.

Each loop nest, group, gather or copy of a function becomes a `static noinline` step
that the function calls in order (backend/c/emit.py: GCC's time grows faster than
linearly with one function's size). Steps that differ only in which arguments and
intermediates they touch, and in the numbering of their local names, are the same
function: a model's repeated layers (12 identical transformer blocks) or a long
chain of one pattern. Each step is written in a canonical form (the buffers it
touches renumbered from 0 in order, local names renumbered by first appearance) and
a body seen before is called again with its own buffers, so the C compiler builds
each distinct step once.

A step reads argument i as `bufs[i]` (`strides[i]` for run-time strides) and the
function's intermediate k as `mem[k]`; the call passes the arrays it needs in the
canonical order: `step((void *const[]){bufs[3], bufs[5]}, strides, (void *[]){mem[2]})`.
Steps only read `mem` (the function allocates and frees the intermediates).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_ARG = re.compile(r"\ba(\d+)(?:_s\d+)?\b")
_USED = re.compile(r"\b[am]\d+(?:_s\d+|_mem)?\b")
# the emitter's generated local names (emit.py: x loads, v values, l group locals,
# t reduction temporaries, m allocations, a arguments): renumbered per step
_LOCAL = re.compile(r"\b([xvla])(\d+)((?:_s\d+)?)\b|\bm(\d+)_mem\b|\bt(\d+)_(\d+)\b")
_DECL_ARG = re.compile(r"\b(a\d+(?:_s\d+)?) =")


def canonical_names(text: str) -> str:
    """`text` with each family of generated names renumbered by first appearance (a
    bijection per family, so no two names merge)."""
    seen: dict[tuple[str, str], str] = {}
    counts: dict[str, int] = {}

    def fresh(family: str) -> str:
        counts[family] = counts.get(family, -1) + 1
        return str(counts[family])

    def rename(m: re.Match) -> str:
        if m.group(1):
            family, num, suffix = m.group(1), m.group(2), m.group(3)
            key = (family, num)
            if key not in seen:
                seen[key] = fresh(family)
            return f"{family}{seen[key]}{suffix}"
        if m.group(4):
            key = ("m", m.group(4))
            if key not in seen:
                seen[key] = fresh("m")
            return f"m{seen[key]}_mem"
        key = ("t", m.group(5))
        if key not in seen:
            seen[key] = fresh("t")
        return f"t{seen[key]}_{m.group(6)}"

    return _LOCAL.sub(rename, text)


def _array(kind: str, name: str, ids: Sequence[int]) -> str:
    """The call's argument for `name` (bufs, strides, mem) holding `ids` in order."""
    if list(ids) == list(range(len(ids))):
        return name  # the function's own array already has them in place
    return f"({kind}[]){{{', '.join(f'{name}[{i}]' for i in ids)}}}"


class StepTable:
    """The distinct step functions of the C function `name`, in first-use order."""

    def __init__(self, name: str):
        self.name = name
        self.functions: list[str] = []
        self._by_body: dict[str, str] = {}

    def add(self, decls: Sequence[str], allocs: Mapping[str, int], own: Sequence[str],
            lines: Sequence[str]) -> str:
        """The call statement of a step whose statements are `lines`; `decls` declare
        the function's arguments (`a{i}`, `a{i}_s{k}`), `allocs` the intermediates the
        function allocated so far (name -> mem slot), `own` those the step allocates."""
        text = "\n".join(lines)
        used = set(_USED.findall(text))
        # the intermediates this step reads, in slot order (looked up from the names
        # it uses, not by a scan of all allocations: linear in the function's size)
        slots = sorted((allocs[n[:-4]], n[:-4]) for n in used
                       if n.endswith("_mem") and n[:-4] in allocs and n[:-4] not in own)
        arg_decls = [d for d in decls if _DECL_ARG.search(d)[1] in used]
        args = sorted({int(_ARG.search(d)[1]) for d in arg_decls})
        pos = {i: j for j, i in enumerate(args)}
        arg_decls = [re.sub(r"\b(bufs|strides)\[(\d+)\]", lambda m: f"{m[1]}[{pos[int(m[2])]}]", d)
                     for d in arg_decls]
        decls = [*arg_decls, *(f"  void *const {p}_mem = mem[{j}];" for j, (_, p) in enumerate(slots)),
                 *(f"  void *{p}_mem = NULL;" for p in own)]
        body = canonical_names(_function("STEP", decls, lines, own))
        step = self._by_body.get(body)
        if step is None:
            step = self._by_body[body] = f"{self.name}_step{len(self.functions)}"
            self.functions.append(body.replace("STEP(", f"{step}(", 1))
        strides = "strides" if "strides[" not in body else _array("const int64_t *const", "strides", args)
        return (f"if ({step}({_array('void *const', 'bufs', args)}, {strides}, "
                f"{_array('void *', 'mem', [k for k, _ in slots])})) goto fail;")


PART_STATEMENTS = 64
"""Statements of a function's own body (allocations, frees, step calls) per part:
GCC's alias walk over one function grows faster than linearly with its size, so a
long program's sequence of calls is split into parts of bounded size as well."""


def split_calls(name: str, body: Sequence[str]) -> tuple[list[str], list[str]]:
    """`body` (one statement a line, over `bufs`, `strides`, `mem`, jumping to `fail`
    when an allocation or a step fails) as it stays in the function, and the part
    functions it calls instead when it is longer than PART_STATEMENTS. A part
    allocates into and frees from the function's `mem`, which frees what is left
    when a part fails."""
    if len(body) <= PART_STATEMENTS:
        return list(body), []
    calls, parts = [], []
    for start in range(0, len(body), PART_STATEMENTS):
        part = f"{name}_part{len(parts)}"
        parts.append(_function(part, [], body[start:start + PART_STATEMENTS]))
        calls.append(f"if ({part}(bufs, strides, mem)) goto fail;")
    return calls, parts


def _function(name: str, decls: Sequence[str], lines: Sequence[str], own: Sequence[str] = ()) -> str:
    """A `static noinline` function of the steps' signature: `decls` (indented
    already), then `lines`; 0 on success, 1 after freeing `own` on failure."""
    return "\n".join([
        f"static int __attribute__((noinline)) {name}(void *const *bufs, "
        "const int64_t *const *strides, void **mem) {",
        "  (void)bufs; (void)strides; (void)mem;",
        *decls,
        *("  " + s for s in lines),
        "  return 0;",
        "fail:",
        *(f"  free({p}_mem);" for p in own),
        "  return 1;",
        "}",
    ]) + "\n"
