"""Math precision modes: which special functions (and division) may run approximate,
and when.

Bodies compute in f32 (f16 and bf16 values are widened, and every tensor op's result
is rounded back to its type: `arith.truncf`). A special function whose result is only
ever rounded to f16 or bf16 does not need f32's correctly rounded `sinf` or `tanhf`:
the rounding to 11 (8) significant bits throws most of that work away. DESIGN.md asks
for fp16/bf16 "at their precision"; torch.compile (Triton) spells such functions with
the approximate PTX instructions. So a schedule carries

    math = "precise"   every op as its f32 (or f64) libm function (the default)
    math = "approx"    ops whose every use rounds to f16/bf16, and whose approximation
                       is within the stored type's budget, run approximate

The planner (passes/loop/candidates.py) decides it and prices it (aicf/cost/ops.py);
the builders mark the ops (`fastmath<afn>`, MLIR's "approximate functions" flag); the
CUDA emitter prints a marked op from its table (backend/cuda/emit.py). f32 and f64
results are never approximated.

Budget: an approximation with relative error at most one ulp of the stored type at
its widest relative spacing (2^-10 for f16, 2^-7 for bf16), so the stored result is
within 1.5 ulp of the correctly rounded one; most entries are far below half an ulp.
`tanh.approx.f32` (2^-10.987, PTX ISA) is the one close to the budget, and the reason
it is one ulp and not half: strictly half an ulp (2^-11) would exclude the instruction
torch.compile uses for the same op. Measured on the GPU against NumPy float64 by
test/python/test_gpu_math_approx.py; the polynomials' bounds are checked on every f16
and on bf16 sweeps in NumPy by test/python/test_math_precision.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type
from xdsl.ir import Attribute, Operation, SSAValue

PRECISE, APPROX = "precise", "approx"
MODES = (PRECISE, APPROX)


@dataclass(frozen=True)
class Approximation:
    """The approximate form of one op: its relative error bound (log2, over the whole
    f32 range unless `domain` says otherwise) and what it costs, for the planner."""

    log2_rel_error: float
    instructions: int  # issued instructions (SASS, sm_90), the MUFU ones included
    mufu: int  # of which on the special-function unit (16 a clock per SM on sm_90)
    how: str
    # the bound holds for |x| below this; the op then qualifies only when its operand
    # is an f16 value widened (|x| <= 65504), which proves it without a run-time test
    max_input: float | None = None


APPROXIMATIONS: dict[str, Approximation] = {
    # k ~ rint(x 2/pi) by the 1.5*2^23 shifter (its low bits: the quadrant), Cody-Waite
    # reduction by pi/2 in three f32 parts to |r| <= 0.81 (k can be one off near the
    # half-way points, |x| 2^-25 away), degree-5 (sin) and degree-6 (cos) least-squares
    # polynomials on [-0.81, 0.81]: 2^-18.8 / 2^-24 there, 2^-16 with the reduction's
    # rounding, for |x| < 2^19: so for f16 arguments only (a run-time range test per
    # element put a branch around every element and cost the kernel its ILP; bf16
    # arguments keep sinf). Not sin.approx.f32 (MUFU.SIN): its absolute 2^-20.5 error is
    # many f16 ulps near the zeros of sin.
    # 17 SASS: the f16 chain kernel's 36.75 an element (cuobjdump, nvcc 13.0) less its
    # 7 HADD2 + 6.5 F2FP conversions, 5 arithmetic ops and tanh's MUFU
    "math.sin": Approximation(-16.0, 17, 0, "pi/2 reduction by a shifter + polynomials", 2.0**19),
    "math.cos": Approximation(-16.0, 17, 0, "pi/2 reduction by a shifter + polynomials", 2.0**19),
    # tanh.approx.f32, sm_75+: one MUFU.TANH
    "math.tanh": Approximation(-10.987, 1, 1, "tanh.approx.f32"),
    # ex2.approx.f32 of x*log2(e): the product's rounding dominates (2^-24 * |x log2 e|
    # absolute in the exponent; |x| < 89 where the result is finite in f32)
    "math.exp": Approximation(-17.0, 2, 1, "ex2.approx.f32(x * log2 e)"),
    "math.exp2": Approximation(-22.0, 1, 1, "ex2.approx.f32"),
    # div.full.f32: 2 f32 ulp over the full range (PTX ISA); MUFU.RCP and a few FMULs
    # with operand scaling, no slow path. The correctly rounded division takes one
    # (a call out of the loop) for a zero or tiny numerator: an f16 softmax whose
    # exponentials round to 0 ran 1.4x slower on such rows (bench/softmax_inputs_probe.py)
    "arith.divf": Approximation(-22.0, 4, 1, "div.full.f32"),
}


def stored_bits(t: Attribute) -> int | None:
    """Significand bits (without the implicit one) of a type that gets approximate
    math, None for the others."""
    if isinstance(t, Float16Type):
        return 10
    if isinstance(t, BFloat16Type):
        return 7
    return None


def may_approximate(op: Operation) -> bool:
    """An op whose approximation is within budget for every type its result is
    rounded to, and whose result is only ever rounded to f16 or bf16."""
    a = APPROXIMATIONS.get(op.name)
    if a is None or not op.results:
        return False
    # the approximations are f32 instructions: an f64 op rounded to f16 (a fused cast)
    # stays precise, where the emitter has no approximate form for it
    if not isinstance(op.results[0].type, Float32Type):
        return False
    if a.max_input is not None and not _bounded_below(op.operands[0], a.max_input):
        return False
    uses = list(op.results[0].uses)
    if not uses:
        return False
    for u in uses:
        if u.operation.name != "arith.truncf":
            return False
        bits = stored_bits(u.operation.results[0].type)
        if bits is None or a.log2_rel_error > -bits:
            return False
    return True


F16_MAX = 65504.0


def _bounded_below(v: SSAValue, limit: float) -> bool:
    """|v| < limit is certain: v is an f16 value widened."""
    owner = v.owner
    return (isinstance(owner, Operation) and owner.name == "arith.extf"
            and isinstance(owner.operands[0].type, Float16Type) and F16_MAX < limit)


def approximable(ops: Iterable[Operation]) -> list[Operation]:
    return [op for op in ops if may_approximate(op)]


def math_mode(ops: Iterable[Operation]) -> str:
    """The mode a body gets: approx when some op of it may be approximated."""
    return APPROX if approximable(ops) else PRECISE


AFN = FastMathFlag.APPROX_FUNC


def mark_approximate(ops: Iterable[Operation]) -> int:
    """Set MLIR's `afn` fast-math flag on the ops of a math = "approx" schedule that
    may run approximate; returns how many."""
    n = 0
    for op in approximable(ops):
        op.properties["fastmath"] = FastMathFlagsAttr([AFN])
        n += 1
    return n


def is_approximate(op: Operation) -> bool:
    fm = op.properties.get("fastmath")
    return isinstance(fm, FastMathFlagsAttr) and AFN in fm.data


# --- f32 matmul precision (torch.set_float32_matmul_precision's meaning) ----------------
#
# "highest": f32 matmuls compute in f32 (CUDA cores, or cuBLAS without TF32);
# "high": they may multiply in TF32 on the tensor cores (10-bit mantissa products, f32
# accumulation: relative error ~1e-3 instead of ~1e-6), several times faster.
# The planner reads the precision in force while it plans (aicf-plan's
# `matmul_precision` option, else the process default set here).

import contextvars  # noqa: E402

MATMUL_PRECISIONS = ("highest", "high")
_default_matmul_precision = "highest"
_planning: contextvars.ContextVar[str | None] = contextvars.ContextVar("aicf_matmul_precision", default=None)


def set_float32_matmul_precision(precision: str) -> None:
    """The process default for f32 matmuls: "highest" (f32) or "high" (TF32 allowed)."""
    global _default_matmul_precision
    if precision not in MATMUL_PRECISIONS:
        raise ValueError(f"matmul precision must be one of {', '.join(MATMUL_PRECISIONS)}, got {precision!r}")
    _default_matmul_precision = precision


def get_float32_matmul_precision() -> str:
    return _planning.get() or _default_matmul_precision


def allow_tf32() -> bool:
    return get_float32_matmul_precision() == "high"


class planning_precision:
    """`with planning_precision("high"): ...` plans with that precision ("" or None:
    the process default)."""

    def __init__(self, precision: str | None):
        if precision and precision not in MATMUL_PRECISIONS:
            raise ValueError(f"matmul precision must be one of {', '.join(MATMUL_PRECISIONS)}, got {precision!r}")
        self.precision = precision or None

    def __enter__(self):
        self.token = _planning.set(self.precision)
        return self

    def __exit__(self, *exc):
        _planning.reset(self.token)
