"""The profiled build of a cpu-target module: every step call of a function is timed.

backend/c/emit.py prints each nest, group, gather or copy of a function as a step
function that the function calls in order, one call a line (identical steps are one
function, called with their own buffers; a long sequence of calls sits in part
functions, in order: backend/c/steps.py):

    if (aicf_NAME_step3(bufs, strides, mem)) goto fail;
    if (aicf_NAME_step3((void *const[]){bufs[4]}, strides, (void *[]){mem[2]})) goto fail;

The profiled source wraps the k-th such call (in source order, which is the order
the function runs them) in two `clock_gettime(CLOCK_MONOTONIC)` reads stored in
`int64_t aicf_NAME_profile[2 * steps]` (start and end of step k in
nanoseconds, Python's time.monotonic_ns clock), which the runtime reads after the
call. Only profiled runs use this build (`with aicf.profiler():`), so the timing costs
nothing otherwise. A source whose step calls cannot all be found is an error, never
a profile with steps missing. Concurrent calls of one profiled function share its
timing array: profile one call at a time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from aicf.dialects.loop import AttentionOp, GatherOp, GroupOp, NestOp
from aicf.errors import AicfError

_CLOCK = """
#include <time.h>
static inline int64_t aicf_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
"""


def step_ops(func: FuncOp) -> list[Operation]:
    """The ops the emitter makes a step of, in the order the function calls them."""
    return [op for op in func.body.block.ops
            if isinstance(op, NestOp | GroupOp | GatherOp | AttentionOp) or op.name == "memref.copy"]  # fmt: skip


def timing_symbol(c_name: str) -> str:
    return f"{c_name}_profile"


def instrument(source: str, c_name: str, steps: int) -> str:
    """`source` with the step calls of the C function `c_name` timed (see the module
    docstring); AicfError if they are not the `steps` calls expected."""
    call = re.compile(
        rf"^(?P<pad>[ \t]*)(?P<call>if \({re.escape(c_name)}_step\d+\(.*\)\) goto fail;)$",
        re.M,
    )
    table = timing_symbol(c_name)
    found = [0]

    def timed(m: re.Match) -> str:
        k = found[0]
        found[0] += 1
        return (f"{m['pad']}{table}[{2 * k}] = aicf_now_ns(); {m['call']} "
                f"{table}[{2 * k + 1}] = aicf_now_ns();")  # fmt: skip

    body = call.sub(timed, source)
    if found[0] != steps:
        raise AicfError(
            f"the profiler found {found[0]} step calls of {c_name} in the emitted C, "
            f"expected {steps}: backend/c/emit.py's step calls changed form"
        )
    entry = re.search(rf"^int {re.escape(c_name)}\(", body, re.M)
    if entry is None:
        raise AicfError(f"the profiler cannot find the definition of {c_name} in the emitted C")
    decl = f"{_CLOCK}int64_t {table}[{max(2 * steps, 1)}];\n"
    return body[: entry.start()] + decl + body[entry.start():]


def step_times(table: Sequence[int], steps: int) -> list[tuple[int, int]]:
    """(start, end) in ns of each step from the timing array."""
    return [(table[2 * k], table[2 * k + 1]) for k in range(steps)]
