"""The one op-cost table: what an element of each op costs, in instructions.

Scalar ops (arith/math, what loop-level bodies hold) are counted in SASS on sm_90;
tensor-level ops cost what their loop-level expansion (lowering/tensor_to_loop/
scalar.py) costs, so fusion (tensor level) and the schedules (loop level) price the
same work the same way.
"""

from __future__ import annotations

import functools

from aicf.math_precision import APPROXIMATIONS

# SASS instructions per scalar op on sm_90, fast path (counted in `cuobjdump -sass` of the
# issue-4 chain kernel, nvcc 13.0 -arch=sm_90): sinf is 28 with its range reduction
# (3-FFMA Cody-Waite, the |x| >= 105615 test and the branch around the Payne-Hanek path,
# which normal inputs never take) and the quadrant polynomial; tanhf is 14 (two MUFU:
# ex2, rcp). Ops not listed cost 1 (an FFMA/FMUL/FADD/compare).
OP_INSTRUCTIONS: dict[str, int] = {
    "math.sin": 28, "math.cos": 28, "math.tan": 40, "math.tanh": 14, "math.exp": 8,
    "math.exp2": 4, "math.expm1": 20, "math.log": 14, "math.log2": 10, "math.log1p": 20,
    "math.sqrt": 8, "math.rsqrt": 6, "math.erf": 16, "math.atan": 20, "math.atan2": 30,
    "math.powf": 40, "arith.divf": 10, "arith.remf": 30, "arith.divsi": 20, "arith.divui": 20,
    "arith.remsi": 20, "arith.remui": 20,
    # libm's other functions, not counted in SASS: by their compositions of the above
    # (asin/acos: a sqrt and a polynomial; sinh/cosh: two exps; the inverse hyperbolics:
    # a log and a sqrt; cbrt: a log2, an exp2 and a Newton step)
    "math.log10": 14, "math.asin": 24, "math.acos": 24, "math.sinh": 20, "math.cosh": 20,
    "math.asinh": 30, "math.acosh": 30, "math.atanh": 24, "math.cbrt": 24,
    "math.copysign": 2,
    "aicf_arith.remf": 30,
}


# Of those, the ones issued to the special-function unit (MUFU: ex2, lg2, rcp, rsq, sin,
# tanh; and the rounding conversions F2I/FRND that share its rate), 16 a clock per SM on
# sm_90 against 128 FFMA: a body with several per element is bound by them, not by issue.
OP_MUFU: dict[str, int] = {
    "math.sin": 1, "math.cos": 1, "math.tan": 2, "math.tanh": 2, "math.exp": 1, "math.exp2": 1,
    "math.expm1": 1, "math.log": 1, "math.log2": 1, "math.log1p": 1, "math.sqrt": 1,
    "math.rsqrt": 1, "math.erf": 1, "math.atan": 1, "math.atan2": 1, "math.powf": 2, "arith.divf": 1,
    "math.log10": 1, "math.asin": 1, "math.acos": 1, "math.sinh": 1, "math.cosh": 1,
    "math.asinh": 2, "math.acosh": 2, "math.atanh": 1, "math.cbrt": 2, "math.floor": 1,
    "math.ceil": 1, "math.trunc": 1, "math.roundeven": 1,
}


def scalar_cost(name: str, approximate: bool = False) -> int:
    """Instructions of one scalar op (ops not listed: 1, an FFMA/FMUL/FADD/compare);
    `approximate`: its math = "approx" form (aicf/math_precision.py) where it has one."""
    a = APPROXIMATIONS.get(name) if approximate else None
    return a.instructions if a is not None else OP_INSTRUCTIONS.get(name, 1)


def scalar_mufu(name: str, approximate: bool = False) -> int:
    """Of scalar_cost's instructions, those on the special-function unit."""
    a = APPROXIMATIONS.get(name) if approximate else None
    return a.mufu if a is not None else OP_MUFU.get(name, 0)


# Tensor ops by their scalar expansion (lowering/tensor_to_loop/scalar.py).
_TENSOR_EXPANSION: dict[str, tuple[str, ...]] = {
    "aicf_tensor.div": ("arith.divf",),
    "aicf_tensor.sqrt": ("math.sqrt",),
    "aicf_tensor.rsqrt": ("math.rsqrt",),
    "aicf_tensor.exp": ("math.exp",),
    "aicf_tensor.log": ("math.log",),
    "aicf_tensor.sin": ("math.sin",),
    "aicf_tensor.cos": ("math.cos",),
    "aicf_tensor.tanh": ("math.tanh",),
    "aicf_tensor.pow": ("math.powf",),
    "aicf_tensor.erf": ("math.erf",),
    **{f"aicf_tensor.{n}": (f"math.{n}",) for n in (
        "log1p", "expm1", "log2", "log10", "exp2", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "asinh", "acosh", "atanh", "cbrt", "floor", "ceil", "trunc", "atan2", "copysign")},
    "aicf_tensor.fmod": ("aicf_arith.remf",),
    "aicf_tensor.round": ("math.roundeven",),
    # 1 / (1 + exp(-x))
    "aicf_tensor.sigmoid": ("arith.negf", "math.exp", "arith.addf", "arith.divf"),
    # 0.5 x (1 + erf(x / sqrt 2))
    "aicf_tensor.gelu": ("arith.mulf", "math.erf", "arith.addf", "arith.mulf", "arith.mulf"),
}


@functools.lru_cache(maxsize=None)  # the tables are constants; aicf-fuse asks per member per candidate
def tensor_op_cost(name: str) -> int:
    """Instructions per element of a tensor-level op."""
    return sum(scalar_cost(s) for s in _TENSOR_EXPANSION.get(name, ("arith.addf",)))
