"""Scalar bodies of the nests: dtype conversions and one function per tensor op that
computes one element in `arith`/`math`.

f16/bf16 values are computed in f32 (`compute_type`), so a body reads, extends,
computes and truncates explicitly; the backends never have to guess a precision.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    f32,
    i1,
)
from xdsl.ir import Attribute, SSAValue

from aicf.dialects.scalar import RemFOp

_HALF = (Float16Type, BFloat16Type)


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def compute_type(t: Attribute) -> Attribute:
    """The type a body computes in for elements of type `t`."""
    return f32 if isinstance(t, _HALF) else t


def constant(b: Builder, value: float | int, t: Attribute) -> SSAValue:
    if is_float(t):
        attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
    else:
        attr = IntegerAttr(int(value), t)  # type: ignore[arg-type]
    return b.insert(arith.ConstantOp(attr, t)).result


def convert(b: Builder, v: SSAValue, to: Attribute) -> SSAValue:
    """Convert a scalar to `to` as NumPy's astype does (round to nearest even; float to
    int truncates toward zero). Half types go through f32 so that backends only see
    f32<->half conversions."""
    src = v.type
    if src == to:
        return v
    if is_float(src) and is_float(to):
        if isinstance(src, _HALF) and isinstance(to, _HALF):  # f16 <-> bf16
            v = b.insert(arith.ExtFOp(v, f32)).result
            src = f32
        if to.bitwidth > src.bitwidth:  # type: ignore[attr-defined]
            return b.insert(arith.ExtFOp(v, to)).result
        return b.insert(arith.TruncFOp(v, to)).result
    if to == i1:  # NumPy's astype(bool): nonzero is true
        s = compute_type(src)
        return compare(b, "aicf_tensor.ne", convert(b, v, s), constant(b, 0, s))
    if is_float(to):  # int -> float
        cls = arith.UIToFPOp if src == i1 else arith.SIToFPOp  # true is 1, not -1
        # straight to f16/bf16 (the printers round once): through f32 an integer past
        # 2^24 rounds twice (2^30 + 2^22 + 1 became 2^30 in bf16, not 2^30 + 2^23)
        return b.insert(cls(v, to)).result  # type: ignore[arg-type]
    assert isinstance(to, IntegerType)
    if is_float(src):  # float -> int
        return b.insert(arith.FPToSIOp(convert(b, v, compute_type(src)), to)).result
    assert isinstance(src, IntegerType)
    if to.width.data > src.width.data:
        cls = arith.ExtUIOp if src == i1 else arith.ExtSIOp
        return b.insert(cls(v, to)).result
    return b.insert(arith.TruncIOp(v, to)).result


# --- unary ops: x has the compute type ---------------------------------------------------

UnaryBody = Callable[[Builder, SSAValue], SSAValue]


def _math(cls) -> UnaryBody:
    return lambda b, x: b.insert(cls(x)).result


def _neg(b: Builder, x: SSAValue) -> SSAValue:
    if is_float(x.type):
        return b.insert(arith.NegfOp(x)).result
    return b.insert(arith.SubiOp(constant(b, 0, x.type), x)).result


def _abs(b: Builder, x: SSAValue) -> SSAValue:
    cls = math.AbsFOp if is_float(x.type) else math.AbsIOp
    return b.insert(cls(x)).result


def _relu(b: Builder, x: SSAValue) -> SSAValue:
    cls = arith.MaximumfOp if is_float(x.type) else arith.MaxSIOp
    return b.insert(cls(x, constant(b, 0, x.type))).result


def _gelu(b: Builder, x: SSAValue) -> SSAValue:
    """The exact form 0.5 * x * (1 + erf(x / sqrt(2)))."""
    t = x.type
    scaled = b.insert(arith.MulfOp(x, constant(b, 0.70710678118654752, t))).result
    erf = b.insert(math.ErfOp(scaled)).result
    one_plus = b.insert(arith.AddfOp(constant(b, 1.0, t), erf)).result
    half_x = b.insert(arith.MulfOp(constant(b, 0.5, t), x)).result
    return b.insert(arith.MulfOp(half_x, one_plus)).result


def _gelu_tanh(b: Builder, x: SSAValue) -> SSAValue:
    """The tanh form 0.5 * x * (1 + tanh(z)), z = sqrt(2/pi) * (x + 0.044715 * x^3),
    computed as x * sigmoid(2z) = x / (1 + exp(-2z)), the same function: 1 + tanh(z)
    cancels for negative z (tanh(-7.5) is -1 + 6e-7, within a few f32 ulps of -1), so
    the direct form is off by ~10% where GELU is tiny; this one is not."""
    t = x.type
    x3 = b.insert(arith.MulfOp(b.insert(arith.MulfOp(x, x)).result, x)).result
    inner = b.insert(arith.AddfOp(x, b.insert(arith.MulfOp(constant(b, 0.044715, t), x3)).result)).result
    # -2z = -2 sqrt(2/pi) (x + 0.044715 x^3)
    neg2z = b.insert(arith.MulfOp(constant(b, -1.5957691216057307, t), inner)).result
    e = b.insert(math.ExpOp(neg2z)).result
    denom = b.insert(arith.AddfOp(constant(b, 1.0, t), e)).result
    return b.insert(arith.DivfOp(x, denom)).result


def _sigmoid(b: Builder, x: SSAValue) -> SSAValue:
    """1 / (1 + exp(-x))."""
    t = x.type
    e = b.insert(math.ExpOp(b.insert(arith.NegfOp(x)).result)).result
    denom = b.insert(arith.AddfOp(constant(b, 1.0, t), e)).result
    return b.insert(arith.DivfOp(constant(b, 1.0, t), denom)).result


UNARY: dict[str, UnaryBody] = {
    "aicf_tensor.neg": _neg,
    "aicf_tensor.exp": _math(math.ExpOp),
    "aicf_tensor.log": _math(math.LogOp),
    "aicf_tensor.sin": _math(math.SinOp),
    "aicf_tensor.cos": _math(math.CosOp),
    "aicf_tensor.tanh": _math(math.TanhOp),
    "aicf_tensor.sqrt": _math(math.SqrtOp),
    "aicf_tensor.rsqrt": _math(math.RsqrtOp),
    "aicf_tensor.abs": _abs,
    "aicf_tensor.relu": _relu,
    "aicf_tensor.gelu": _gelu,
    "aicf_tensor.sigmoid": _sigmoid,
    "aicf_tensor.erf": _math(math.ErfOp),
    "aicf_tensor.log1p": _math(math.Log1pOp),
    "aicf_tensor.expm1": _math(math.ExpM1Op),
    "aicf_tensor.log2": _math(math.Log2Op),
    "aicf_tensor.log10": _math(math.Log10Op),
    "aicf_tensor.exp2": _math(math.Exp2Op),
    "aicf_tensor.tan": _math(math.TanOp),
    "aicf_tensor.asin": _math(math.AsinOp),
    "aicf_tensor.acos": _math(math.AcosOp),
    "aicf_tensor.atan": _math(math.AtanOp),
    "aicf_tensor.sinh": _math(math.SinhOp),
    "aicf_tensor.cosh": _math(math.CoshOp),
    "aicf_tensor.asinh": _math(math.AsinhOp),
    "aicf_tensor.acosh": _math(math.AcoshOp),
    "aicf_tensor.atanh": _math(math.AtanhOp),
    "aicf_tensor.cbrt": _math(math.CbrtOp),
    "aicf_tensor.floor": _math(math.FloorOp),
    "aicf_tensor.ceil": _math(math.CeilOp),
    "aicf_tensor.trunc": _math(math.TruncOp),
    "aicf_tensor.round": _math(math.RoundEvenOp),
}

# --- binary ops: (float op, integer op) ---------------------------------------------------

BINARY: dict[str, tuple[type, type | None]] = {
    "aicf_tensor.add": (arith.AddfOp, arith.AddiOp),
    "aicf_tensor.sub": (arith.SubfOp, arith.SubiOp),
    "aicf_tensor.mul": (arith.MulfOp, arith.MuliOp),
    "aicf_tensor.div": (arith.DivfOp, arith.DivSIOp),
    # maximumf/minimumf propagate NaN, as numpy.maximum/minimum do
    "aicf_tensor.max": (arith.MaximumfOp, arith.MaxSIOp),
    "aicf_tensor.min": (arith.MinimumfOp, arith.MinSIOp),
    "aicf_tensor.pow": (math.PowFOp, math.IPowIOp),
    # floats only (their verifiers)
    "aicf_tensor.atan2": (math.Atan2Op, None),
    "aicf_tensor.copysign": (math.CopySignOp, None),
    "aicf_tensor.fmod": (RemFOp, None),
}


def binary(b: Builder, name: str, x: SSAValue, y: SSAValue) -> SSAValue:
    fop, iop = BINARY[name]
    return b.insert((fop if is_float(x.type) else iop)(x, y)).result


# --- comparisons: (cmpf predicate, cmpi predicate) ------------------------------------------
# Ordered float predicates except `ne`, which is unordered: NaN != x is true in NumPy.

COMPARE: dict[str, tuple[str, str]] = {
    "aicf_tensor.eq": ("oeq", "eq"),
    "aicf_tensor.ne": ("une", "ne"),
    "aicf_tensor.lt": ("olt", "slt"),
    "aicf_tensor.le": ("ole", "sle"),
    "aicf_tensor.gt": ("ogt", "sgt"),
    "aicf_tensor.ge": ("oge", "sge"),
}


def compare(b: Builder, name: str, x: SSAValue, y: SSAValue) -> SSAValue:
    fpred, ipred = COMPARE[name]
    if is_float(x.type):
        return b.insert(arith.CmpfOp(x, y, fpred)).result
    if x.type == i1:  # bools compare as 0 and 1, unsigned
        ipred = ipred.replace("s", "u", 1) if ipred[0] == "s" else ipred
    return b.insert(arith.CmpiOp(x, y, ipred)).result


def elementwise(b: Builder, op, args: list[SSAValue] | tuple[SSAValue, ...]) -> SSAValue:
    """One element of an elementwise tensor op (unary, binary, comparison, select or
    cast) from its operands'
    elements: operands are converted to the compute type, the op is applied and the
    result rounded to the op's element type. The unfused and the fused lowering both
    build bodies with this, so fused results round exactly as unfused ones."""
    from aicf.dialects import tensor as t

    elt = t.element_type(op.results[0].type)
    if isinstance(op, t.CastOp):
        return convert(b, args[0], elt)
    if isinstance(op, t.CompareOp):
        ct = compute_type(op.operand_element_type())
        return compare(b, op.name, *(convert(b, a, ct) for a in args))
    ct = compute_type(elt)
    if isinstance(op, t.SelectOp):
        x, y = (convert(b, a, ct) for a in args[1:])
        return convert(b, b.insert(arith.SelectOp(args[0], x, y)).result, elt)
    xs = [convert(b, a, ct) for a in args]
    if isinstance(op, t.GeluOp) and op.form == "tanh":
        r = _gelu_tanh(b, xs[0])
    elif isinstance(op, t.UnaryOp):
        r = UNARY[op.name](b, xs[0])
    else:
        r = binary(b, op.name, xs[0], xs[1])
    return convert(b, r, elt)
