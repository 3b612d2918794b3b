"""External C kernels on the cpu target: building them, and the call the C emitter
prints for a nest or group scheduled `cpu.external`.

An external kernel is its own translation unit: aicf's ABI header, its entry renamed
to a symbol unique to its source (aicf/kernels/abi.py), its source. It is built into
an object file with the cpu target's flags (backend/c/build.py, cached like any
build), which the program's shared library links; the gate links the same object
alone into a library to test it. The emitter reads the schedule only: `key` names
the kernel (aicf/kernels/store.py), `args` the boundary buffers it takes
(dialects/boundary.py), `workspace` its scratch bytes. A kernel that takes
contiguous operands only, in a strided variant of the program, runs as its
`fallback` schedule instead (the compiler's own code for the op).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from xdsl.ir import Operation

from aicf.backend.c.build import build_object, link_shared_library
from aicf.diagnostics import op_error
from aicf.dialects.boundary import boundary
from aicf.dialects.schedule import SCHEDULE_ATTR, Schedule

KIND = "cpu.external"
COMPILE_TIMEOUT_S = 120.0  # an external source must not hang the compile


def translation_unit(kernel) -> str:
    from aicf.kernels.abi import c_source

    return c_source(kernel.source, kernel.entry, kernel.symbol)


def build_kernel_object(kernel) -> Path:
    """The kernel's object file; CompileError with the compiler's message, or saying
    that the source does not define its entry."""
    obj = build_object(translation_unit(kernel), f"the external kernel '{kernel.name}'", COMPILE_TIMEOUT_S)
    _check_entry(kernel, obj)
    return obj


def _check_entry(kernel, obj: Path) -> None:
    """A source without its entry compiles, and fails only when loaded (an undefined
    symbol named after the renamed entry, which the user never wrote): say so here.
    Skipped where there is no `nm`."""
    import shutil
    import subprocess

    from aicf.errors import CompileError
    from aicf.kernels.abi import C_SIGNATURE

    nm = shutil.which("nm")
    if nm is None:
        return
    try:
        out = subprocess.run([nm, "-g", "--defined-only", str(obj)], capture_output=True, text=True,
                             timeout=COMPILE_TIMEOUT_S, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return
    if kernel.symbol not in out.split():
        raise CompileError(f"the external kernel '{kernel.name}' does not define its entry '{kernel.entry}': "
                           f"its source must define `{C_SIGNATURE.replace('ENTRY', kernel.entry)}` "
                           "(not static)")


def build_kernel_library(kernel) -> Path:
    """The kernel alone as a shared library (the gate's child process loads it)."""
    return link_shared_library((build_kernel_object(kernel),), COMPILE_TIMEOUT_S)


def _kernel(op: Operation, key: str):
    from aicf.kernels import store

    k = store.get(key)
    if k is None:
        raise op_error(op, f"is scheduled as the external kernel '{key}', which this process does not know "
                           "(register it, or let the gate admit it: aicf/kernels/)")
    return k


def emit_call(op: Operation, s: Schedule, bufs: dict, identity: Callable, emit_fallback: Callable,
              used: dict[str, Path]) -> list[str]:  # fmt: skip
    """C for the op as one call of its kernel. `bufs` maps values to the emitter's
    Buffers, `identity(shape)` gives dense strides, `emit_fallback()` the op's C
    under its fallback schedule; `used` collects symbol -> object file to link."""
    ins, outs = boundary(op)
    operands = [bufs[v] for v in ins + outs]
    args = list(s["args"])
    if sorted(args) != list(range(len(operands))):
        raise op_error(op, f"its cpu.external schedule passes boundary buffers {args}, but the op has "
                           f"{len(operands)} (dialects/boundary.py)")
    if s["layout"] == "contiguous" and any(b.strides != identity(b.shape) for b in operands):
        fallback = s.get("fallback")
        if fallback is None:
            raise op_error(op, "takes a strided operand here, but its contiguous-only external kernel has no "
                               "fallback schedule")
        saved = op.attributes[SCHEDULE_ATTR]
        op.attributes[SCHEDULE_ATTR] = fallback.to_attr()
        try:
            return [f"/* external kernel {s['key']}: strided operands, its fallback runs */", *emit_fallback()]
        finally:
            op.attributes[SCHEDULE_ATTR] = saved
    kernel = _kernel(op, s["key"])
    used[kernel.symbol] = build_kernel_object(kernel)
    lines = [f"/* external kernel {s['key']} */", "{"]
    inits = []
    for k, b in enumerate(args):
        buf = operands[b]
        r = max(len(buf.shape), 1)
        dims = ", ".join(map(str, buf.shape)) or "0"
        strides = ", ".join(buf.strides) or "0"
        lines.append(f"  static const int64_t xk_sh{k}[{r}] = {{{dims}}};")
        lines.append(f"  const int64_t xk_st{k}[{r}] = {{{strides}}};")
        inits.append(f"{{(void *)({buf.ptr}), {len(buf.shape)}, xk_sh{k}, xk_st{k}}}")
    n = len(args)
    lines.append(f"  aicf_tensor xk_args[{max(n, 1)}] = {{{', '.join(inits) or '{0}'}}};")
    ws = s["workspace"]
    lines.append("  void *xk_ws = NULL;")
    if ws:
        lines.append(f"  xk_ws = aicf_alloc({ws});")
        lines.append("  if (!xk_ws) goto fail;")
    lines += [f"  const int xk_rc = {kernel.symbol}(xk_args, {n}, xk_ws);",
              "  free(xk_ws);", "  if (xk_rc) goto fail;", "}"]
    return lines


def declarations(used: dict[str, Path]) -> str:
    """The ABI header and a prototype per kernel, for the program's unit."""
    from aicf.kernels.abi import C_HEADER

    protos = "".join(f"int {sym}(const aicf_tensor *args, int64_t nargs, void *workspace);\n" for sym in sorted(used))
    return C_HEADER + protos


def link_inputs(used: dict[str, Path]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(link flags, identities for the build cache's key) of the kernels' objects."""
    objs = tuple(str(used[s]) for s in sorted(used))
    return objs, tuple(f"external {s}" for s in sorted(used))
