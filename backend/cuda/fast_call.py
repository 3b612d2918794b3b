"""The call of a one-kernel program whose outputs it allocates (`y = f(x)`), as one
Python function generated for the program's plan.

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


def own_outputs_call(direct, specs: list, nin: int, program, record: bool, cp):
    """`fn(arrays, stream) -> outputs | None` for `direct`, the _DirectLaunch of a
    single-launch plan (one kernel over the inputs and outputs); None for a program
    without outputs. `cp`: CuPy (its errors and current stream)."""
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
    lines = ["def fast(arrays, stream):",
             f"    if len(arrays) != {nin} or prof._ACTIVE or program.debug:",
             "        return None"]
    names = [f"a{i}" for i in range(nin)]
    # CuPy's `flags` builds an object a call; the flag it reads is an attribute of the
    # array (`flags.c_contiguous` where a CuPy does not have it)
    contiguous = "_c_contiguous" if hasattr(direct.ndarray, "_c_contiguous") else "flags.c_contiguous"
    if nin:
        lines.append(f"    {', '.join(names)}, = arrays")
    for i, (dt, shape, al) in enumerate(specs[:nin]):
        ns[f"dt{i}"], ns[f"sh{i}"] = np.dtype(dt), tuple(shape)
        lines += [f"    if type(a{i}) is not ndarray or a{i}.dtype != dt{i} or a{i}.shape != sh{i} "
                  f"or not a{i}.{contiguous}:",
                  "        return None",
                  f"    p{i} = a{i}.data.ptr"]
        if al > 1:
            lines += [f"    if p{i} % {al}:", "        return None"]
    lines += [f"    if not getattr(local, 'ok', False) or get_device() != {direct.device}:",
              "        return None",
              "    if stream is None:",
              "        stream = get_stream()"]
    nout = len(direct.outs)
    for j, n in enumerate(direct.nbytes):
        lines.append(f"    m{j} = alloc({n})")
    lines.append("    with lock:")
    for c, s in enumerate(slots):
        if s < nin:
            lines.append(f"        cells[{c}] = p{s}")
        elif s < nin + nout:
            lines.append(f"        cells[{c}] = m{s - nin}.ptr")
    lines += ["        try:",
              f"            launch({fptr}, {grid[0]}, {grid[1]}, {grid[2]}, {block[0]}, {block[1]}, {block[2]}, "
              f"{smem}, stream.ptr, {params_ptr}, 0)",
              "        except errors as e:",
              "            raise program._launch_error(name, grid, block, smem, e) from None"]
    if record:
        lines.append("    program._record(stream)")
    outs = []
    for j, (shape, dt) in enumerate(direct.outs):
        ns[f"osh{j}"], ns[f"odt{j}"] = tuple(shape), np.dtype(dt)
        outs.append(f"ndarray(osh{j}, odt{j}, memptr=m{j})")
    lines.append(f"    return {outs[0]}" if nout == 1 else f"    return ({', '.join(outs)},)")
    exec(compile("\n".join(lines), f"<aicf fast call of {direct.names[0]}>", "exec"), ns)
    return ns["fast"]

