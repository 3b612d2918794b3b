"""The call of a one-kernel program (`y = f(x)`, or `f(x, y)` with its outputs given),
as one Python function generated for the program's plan.

At ~10 us of host time a call, where the driver's launch alone takes ~5 us on the
H100's host (bench/call_path.py), every Python layer, loop and tuple of the general
direct launch shows: the plan's argument checks, readiness, output blocks, parameter
cells and arrays are written out here, unrolled, with the plan's constants bound as
names (the way dataclasses and namedtuple generate their methods). The function
returns None for anything it does not take (another arity, a wrong array, a thread or
device the direct launch is not ready on, the profiler on, debug mode), and the
program's general call takes over, so it changes no result and no error.
"""

from __future__ import annotations

import numpy as np

from aicf import profiling as _profiler


def specs_nbytes(spec) -> int:
    dt, shape, _ = spec
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize


def own_outputs_call(direct, specs: list, nin: int, program, record: bool, cp):
    """`fn(arrays, stream) -> outputs | None` for `direct`, the _DirectLaunch of a
    single-launch plan (one kernel over the inputs and outputs), called with the inputs
    (the outputs allocated) or with inputs and outputs; None for a program without
    outputs. `cp`: CuPy (its errors and current stream)."""
    if not direct.outs:
        return None
    # a single-launch plan (program.py `_make_plan`): no intermediates, no constants
    assert len(direct.launches) == 1 and not direct.intermediates
    fptr, grid, block, smem, slots, cells, _, params_ptr = direct.launches[0]
    ns: dict = {
        "ndarray": direct.ndarray, "alloc": direct.alloc, "launch": direct.launch, "lock": direct.lock,
        "local": direct.local, "get_device": direct.get_device, "cells": cells, "prof": _profiler,
        "program": program, "name": direct.names[0], "grid": grid, "block": block, "smem": smem,
        "errors": (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError),
        "get_stream": cp.cuda.get_current_stream,
    }
    nout = len(direct.outs)
    nall = nin + nout
    lines = ["def fast(arrays, stream):",
             "    n = len(arrays)",
             f"    if (n != {nin} and n != {nall}) or prof._ACTIVE or program.debug:",
             "        return None"]
    # CuPy's `flags` builds an object a call; the flag it reads is an attribute of the
    # array (`flags.c_contiguous` where a CuPy does not have it)
    contiguous = "_c_contiguous" if hasattr(direct.ndarray, "_c_contiguous") else "flags.c_contiguous"

    def check(var: str, ptr: str, i: int, indent: str) -> list[str]:
        dt, shape, al = specs[i]
        ns[f"dt{i}"], ns[f"sh{i}"] = np.dtype(dt), tuple(shape)
        out = [f"{indent}{var} = arrays[{i}]",
               f"{indent}if type({var}) is not ndarray or {var}.dtype != dt{i} or {var}.shape != sh{i} "
               f"or not {var}.{contiguous}:",
               f"{indent}    return None",
               f"{indent}{ptr} = {var}.data.ptr"]
        if al > 1:
            out += [f"{indent}if {ptr} % {al}:", f"{indent}    return None"]
        return out

    for i in range(nin):
        lines += check(f"a{i}", f"p{i}", i, "    ")
    lines += [f"    if not getattr(local, 'ok', False) or get_device() != {direct.device}:",
              "        return None",
              "    if stream is None:",
              "        stream = get_stream()"]
    # outputs given (`f(x, out)`): checked as the inputs are; one that overlaps an input
    # or another output goes to the general call, which says so
    lines.append(f"    if n == {nall}:")
    for j in range(nout):
        lines += check(f"b{j}", f"q{j}", nin + j, "        ")
    for j, nb in enumerate(direct.nbytes):
        others = [(f"p{i}", specs_nbytes(specs[i])) for i in range(nin)] + [(f"q{k}", direct.nbytes[k]) for k in range(j)]
        for ptr, onb in others:
            lines += [f"        if q{j} < {ptr} + {onb} and {ptr} < q{j} + {nb}:", "            return None"]
    lines.append("    else:")
    for j, nb in enumerate(direct.nbytes):
        lines += [f"        m{j} = alloc({nb})", f"        q{j} = m{j}.ptr"]
    lines.append("    with lock:")
    for c, s in enumerate(slots):
        if s < nin:
            lines.append(f"        cells[{c}] = p{s}")
        elif s < nall:
            lines.append(f"        cells[{c}] = q{s - nin}")
    lines += ["        try:",
              f"            launch({fptr}, {grid[0]}, {grid[1]}, {grid[2]}, {block[0]}, {block[1]}, {block[2]}, "
              f"{smem}, stream.ptr, {params_ptr}, 0)",
              "        except errors as e:",
              "            raise program._launch_error(name, grid, block, smem, e) from None"]
    if record:
        lines.append("    program._record(stream)")
    given = [f"b{j}" for j in range(nout)]
    lines.append(f"    if n == {nall}:")
    lines.append(f"        return {given[0]}" if nout == 1 else f"        return ({', '.join(given)},)")
    outs = []
    for j, (shape, dt) in enumerate(direct.outs):
        ns[f"osh{j}"], ns[f"odt{j}"] = tuple(shape), np.dtype(dt)
        outs.append(f"ndarray(osh{j}, odt{j}, memptr=m{j})")
    lines.append(f"    return {outs[0]}" if nout == 1 else f"    return ({', '.join(outs)},)")
    exec(compile("\n".join(lines), f"<aicf fast call of {direct.names[0]}>", "exec"), ns)
    return ns["fast"]

