"""Nests that a library runs: the builders of `aicf_gpu.library_call`.

A nest whose `aicf.schedule` names a library kind (`gpu.cublas_gemm`,
`gpu.cub_reduce`; written by the planner from the guards in aicf/cost/library.py,
or by hand) becomes one host op in its place:

    aicf_loop.nest ... {aicf.schedule = {kind = "gpu.cublas_gemm", m = 64 : i64, ...}}
->
    aicf_gpu.library_call "cublas.gemm" ins(%a, %b : ...) outs(%c : ...) params = {m = 64 : i64, ...}

The builder decides nothing: it copies the parameters and lets the op's verifier
check them against the operands, reporting a bad schedule at the nest.
"""

from __future__ import annotations

import math

from collections.abc import Mapping

from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, MemRefType, StringAttr, i64
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from aicf.diagnostics import op_error
from aicf.dialects import gpu
from aicf.dialects.loop import NestOp

from .context import LoweringContext

SCHEDULE_ATTR = "aicf.schedule"
CUBLAS_GEMM = "gpu.cublas_gemm"
CUB_REDUCE = "gpu.cub_reduce"


def to_attr(v) -> Attribute:
    """A schedule parameter as an attribute: int -> i64, str -> string, list -> array<i64>."""
    if isinstance(v, Attribute):
        return v
    if isinstance(v, bool | int):
        return IntegerAttr(int(v), i64)
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, list | tuple):
        return DenseArrayBase.from_list(i64, [int(x) for x in v])
    raise TypeError(f"library call parameter {v!r} is not an int, a string or a list of ints")


def replace_with_call(op, routine: str, ins, outs, params: Mapping, what: str) -> None:
    """Put one `aicf_gpu.library_call` of `routine` in `op`'s place (a host op of its
    own, outside the kernels aicf-lower-to-gpu builds); a call the verifier refuses is
    an error at `op`: "cannot be run as WHAT: why"."""
    call = gpu.LibraryCallOp(routine, list(ins), list(outs), {k: to_attr(v) for k, v in params.items()})
    try:
        call.verify()
    except VerifyException as e:
        raise op_error(op, f"cannot be run as {what}: {e}") from None
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(call, op)
    op.detach()
    op.erase()


def _call(nest: NestOp, routine: str, params: Mapping, lc: LoweringContext, extra_outs=()) -> None:
    attrs = {k: to_attr(v) for k, v in params.items() if k != "kind"}
    op = gpu.LibraryCallOp(routine, list(nest.inputs), [*nest.outputs, *extra_outs], attrs)
    try:
        op.verify()
    except VerifyException as e:
        raise op_error(nest, f"cannot be run as {routine}: {e}") from None
    lc.host(op)


def _int(params: Mapping, k: str) -> int:
    v = params.get(k)
    return v.value.data if isinstance(v, IntegerAttr) else -1  # a missing one fails below


def _check_domain(nest: NestOp, routine: str, params: Mapping) -> None:
    """The call must cover the nest's iteration domain exactly: every output point
    once, the whole reduction (a schedule written for another nest is refused here,
    not computed wrong)."""
    par = math.prod(e for e, i in zip(nest.extents, nest.iterators) if i.value == "parallel")
    red = math.prod(e for e, i in zip(nest.extents, nest.iterators) if i.value == "reduction")
    if routine == "cublas.gemm":
        loops = params.get("loops")
        calls = math.prod(loops.get_values()) if loops is not None and hasattr(loops, "get_values") else 1
        covers = _int(params, "m") * _int(params, "n") * _int(params, "batch") * calls
        k = _int(params, "k")
        if covers != par or k != red:
            raise op_error(nest, f"cannot be run as {routine}: m*n*batch*loops = {covers} and k = {k} "
                                 f"do not cover the nest's {par} output points and {red}-point reduction")
    else:
        rows, cols = _int(params, "rows"), _int(params, "cols")
        combiner = nest.combiner_kinds[0].value if nest.combiner_kinds else "none"
        op = params.get("op")
        want = {"add": "sum", "max": "max"}.get(combiner)
        if rows != par or cols != red or not isinstance(op, StringAttr) or op.data != want:
            raise op_error(nest, f"cannot be run as {routine}: the schedule's op/rows/cols do not match "
                                 f"the nest ({combiner} of {par} rows of {red})")


def build_cublas_gemm(nest: NestOp, params: Mapping, lc: LoweringContext) -> None:
    """`nest` as one `cublas.gemm` call with `params` (see gpu.LibraryCallOp)."""
    _check_domain(nest, "cublas.gemm", params)
    pad = _int(params, "pad_c") if "pad_c" in params else 0
    scratch = []
    if pad > 0:  # the padded C the call writes before copying it into place
        c = nest.outputs[0].type
        scratch = [lc.workspace(MemRefType(c.get_element_type(), [_int(params, "m"), pad]))]
    _call(nest, "cublas.gemm", params, lc, scratch)


def build_cub_reduce(nest: NestOp, params: Mapping, lc: LoweringContext) -> None:
    """`nest` as one `cub.reduce` call (CuPy's sum/max over trailing axes)."""
    _check_domain(nest, "cub.reduce", params)
    _call(nest, "cub.reduce", params, lc)


BUILDERS = {CUBLAS_GEMM: build_cublas_gemm, CUB_REDUCE: build_cub_reduce}


def build_library_call(nest: NestOp, lc: LoweringContext) -> bool:
    """Build the library call the nest's schedule names; False when it names none."""
    sched = nest.attributes.get(SCHEDULE_ATTR)
    if not isinstance(sched, DictionaryAttr):
        return False
    kind = sched.data.get("kind")
    build = BUILDERS.get(kind.data) if isinstance(kind, StringAttr) else None
    if build is None:
        return False
    build(nest, dict(sched.data), lc)
    return True
