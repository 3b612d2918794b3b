"""The xDSL context every aicf tool and API call works in: our dialects and the
upstream ones we build on (builtin, func, arith, math, memref, scf)."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.dialects.vector import Vector
from xdsl.ir import Dialect


def aicf_dialects() -> list[Dialect]:
    """Our own dialects, one per level."""
    from aicf.dialects.loop import AICFLoop
    from aicf.dialects.scalar import AICFArith
    from aicf.dialects.tensor import AICFTensor

    from aicf.dialects.gpu import AICFGpu

    return [AICFTensor, AICFLoop, AICFGpu, AICFArith]


def upstream_dialects() -> list[Dialect]:
    return [Builtin, Func, Arith, Math, MemRef, Scf, Vector]


def make_context() -> Context:
    ctx = Context()
    for d in (*upstream_dialects(), *aicf_dialects()):
        ctx.load_dialect(d)
    return ctx
