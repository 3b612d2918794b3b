"""One C-style printer for scalar `arith` and `math` ops, with a table per target.

The cpu target (C99 + OpenMP, backend/c/emit.py) and the cuda target (CUDA C,
backend/cuda/emit.py) print the same scalar IR: a nest body at the loop level, the
arithmetic inside a kernel at the GPU level. `ScalarPrinter` holds the one printing of
each op, found by the op's class (`SCALAR_PRINTERS`); what differs between the targets
is data in a `Language` (type names, literal spellings, helper names, the
approximate-math spellings), as in tinygrad's renderer/cstyle.py. The printers decide
nothing: they spell what the IR says.

Semantics every target shares, written once here:
- f16 and bf16 are storage types: arithmetic on them computes in f32 and rounds the
  result once to the op's type (`ScalarPrinter.f` / `define_float`);
- float predicates follow IEEE (`cmpf_expr`: ordered ones are false on NaN);
- integer division and remainder never trap (`int_helpers`: x / 0 = 0, MIN / -1 wraps,
  NumPy's answers), unsigned ops go through the unsigned type of the same width, and
  |INT_MIN| wraps to INT_MIN; signed add, sub, mul and shl wrap (through the
  unsigned type: C leaves signed overflow undefined).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mth
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from aicf.dialects.scalar import RemFOp
from aicf.diagnostics import op_error
from aicf.dtypes import f32_to_bf16_bits
from aicf.math_precision import is_approximate

CMPF_NAMES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)  # fmt: skip
"""arith.cmpf predicates, in the order of their integer encoding."""

CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
         "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}  # fmt: skip

_ORDERED = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<="}
# an unordered predicate is the negation of the ordered opposite: NaN makes C's
# ordered comparison false, so the negation is true, as "unordered or ..." requires
_UNORDERED_AS_NOT = {"ugt": "<=", "uge": "<", "ult": ">=", "ule": ">"}


def cmpf_expr(predicate: int, a: str, b: str, true: str = "1", false: str = "0") -> str:
    """A C expression for `arith.cmpf <predicate> a, b` with IEEE semantics: ordered
    predicates are false and unordered ones true when either operand is NaN."""
    key = CMPF_NAMES[predicate]
    if key == "false":
        return false
    if key == "true":
        return true
    if key in _ORDERED:
        return f"({a} {_ORDERED[key]} {b})"
    if key in _UNORDERED_AS_NOT:
        return f"!({a} {_UNORDERED_AS_NOT[key]} {b})"
    if key == "one":
        return f"({a} < {b} || {a} > {b})"
    if key == "ueq":
        return f"!({a} < {b} || {a} > {b})"
    if key == "une":
        return f"({a} != {b})"
    if key == "ord":
        return f"({a} == {a} && {b} == {b})"
    assert key == "uno"
    return f"({a} != {a} || {b} != {b})"


def int_helpers(qualifier: str) -> str:
    """C functions for arith.divsi/remsi/floordivsi/ceildivsi that never trap (SIGFPE on
    the CPU): x / 0 and x % 0 are 0 (NumPy's x // 0 and x % 0), MIN / -1 wraps to MIN and
    MIN % -1 is 0 (NumPy's, which warns of the overflow). And math.ipowi: x ** n wraps
    (NumPy's); a negative n gives the integer part of 1 / x ** |n| (1 for x = 1, +-1 for
    x = -1, else 0, also for x = 0; NumPy raises). `qualifier` makes them C or CUDA."""
    # an integer rounded to odd into float (the bits past 24 dropped, the last one set
    # if any was nonzero): rounding that float to bf16 or f16 is then the integer's only
    # rounding ((float)x rounds once and the narrowing again: 2^30 + 2^22 + 1 went to
    # 2^30, not 2^30 + 2^23)
    out = [
        # math.fpowi: |x| ** n in double, the sign from n's parity (a float of n loses
        # it: (float)(2^31 - 1) is 2^31, and (-1) ** (2^31 - 1) was 1)
        f"{qualifier} double aicf_fpowi(double x, long long n) {{\n"
        "  double r = pow(fabs(x), (double)n);\n"
        "  return (n & 1) ? copysign(r, x) : r; }\n"
        f"{qualifier} float aicf_u64_to_f32_odd(unsigned long long m) {{\n"
        "  float scale = 1.0f;\n"
        "  for (; m >> 24; scale *= 2.0f) m = (m >> 1) | (m & 1u);\n"
        "  return (float)m * scale; }\n"
        f"{qualifier} float aicf_i64_to_f32_odd(long long x) {{\n"
        "  float f = aicf_u64_to_f32_odd(x < 0 ? 0u - (unsigned long long)x : (unsigned long long)x);\n"
        "  return x < 0 ? -f : f; }\n"
    ]
    for bits, t, u in ((32, "int", "unsigned"), (64, "long long", "unsigned long long")):
        out.append(
            f"{qualifier} {t} aicf_divsi{bits}({t} a, {t} b) {{\n"
            f"  return b == 0 ? 0 : b == -1 ? ({t})(0u - ({u})a) : a / b; }}\n"
            f"{qualifier} {t} aicf_remsi{bits}({t} a, {t} b) {{\n"
            f"  return (b == 0 || b == -1) ? 0 : a % b; }}\n"
            f"{qualifier} {t} aicf_ipowi{bits}({t} b, {t} e) {{\n"
            f"  if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;\n"
            f"  {u} r = 1u, x = ({u})b;\n"
            f"  for (; e; e >>= 1) {{ if (e & 1) r *= x; x *= x; }}\n"
            f"  return ({t})r; }}\n"
            f"{qualifier} {t} aicf_floordivsi{bits}({t} a, {t} b) {{\n"
            f"  if (b == 0 || b == -1) return aicf_divsi{bits}(a, b);\n"
            f"  {t} q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }}\n"
            f"{qualifier} {t} aicf_ceildivsi{bits}({t} a, {t} b) {{\n"
            f"  if (b == 0 || b == -1) return aicf_divsi{bits}(a, b);\n"
            f"  {t} q = a / b; return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q; }}\n"
        )
    return "".join(out)


def int_helper_call(op_name: str, width: int, a: str, b: str) -> str:
    """The call for `arith.divsi`/`remsi`/`floordivsi`/`ceildivsi` or `math.ipowi` on
    `width`-bit operands (narrower ones are promoted to int, as C does, and their result
    narrowed by the caller)."""
    kind = op_name.split(".")[1]
    return f"aicf_{kind}{64 if width > 32 else 32}({a}, {b})"


def half_bits(x: float, t: Attribute) -> int:
    """The 16-bit pattern of `x` as an f16 or bf16 (rounded to nearest even; a NaN
    stays a quiet NaN)."""
    if isinstance(t, Float16Type):
        return int(np.array([x], dtype=np.float16).view(np.uint16)[0])
    return int(f32_to_bf16_bits(x))


def exact_value(x: float, t: Attribute) -> float:
    """`x` exactly as a value of the float type `t` holds it (f64 for the others)."""
    if isinstance(t, Float16Type | BFloat16Type):
        bits = half_bits(x, t)
        if isinstance(t, Float16Type):
            return float(np.array([bits], dtype=np.uint16).view(np.float16)[0])
        return float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0])
    if isinstance(t, Float32Type):
        return float(np.float32(x))
    return float(x)


HALF_TYPES = (Float16Type, BFloat16Type)


@dataclass(frozen=True)
class Language:
    """What one C-family target spells differently. Formats take the operand text."""

    name: str
    true: str
    false: str
    scalar_type: Callable[[Attribute, str], str]  # (type, index type) -> C type
    float_literal: Callable[[float, Attribute], str]
    int_literal: Callable[[int, str], str]  # (value, C type) -> literal
    unsigned: Callable[[str], str]  # C type -> the unsigned type of its width
    widen: dict[type, str]  # half type -> format converting its value to float
    narrow: dict[type, str]  # half type -> format rounding a float to it
    maximumf: str  # NaN-propagating max / min helpers (numpy.maximum's meaning)
    minimumf: str
    imax: str
    imin: str
    rsqrt: tuple[str, str]  # formats on f32 and on f64
    native_halves: tuple[type, ...] = ()  # half types the target converts to and from itself
    approx_f32: dict[str, str] = field(default_factory=dict)  # op name -> format
    inline_f32: dict[str, str] = field(default_factory=dict)  # libm name -> our inline one
    # half type -> format rounding a double to it once (through float it rounds twice)
    narrow_f64: dict[type, str] = field(default_factory=dict)


LIBM = {
    mth.SinOp: "sin", mth.CosOp: "cos", mth.TanOp: "tan", mth.ExpOp: "exp",
    mth.Exp2Op: "exp2", mth.ExpM1Op: "expm1", mth.LogOp: "log", mth.Log2Op: "log2",
    mth.Log10Op: "log10", mth.Log1pOp: "log1p", mth.TanhOp: "tanh", mth.SqrtOp: "sqrt",
    mth.AbsFOp: "fabs", mth.ErfOp: "erf", mth.FloorOp: "floor", mth.CeilOp: "ceil",
    mth.RoundOp: "round", mth.RoundEvenOp: "nearbyint", mth.TruncOp: "trunc",
    mth.AtanOp: "atan", mth.SinhOp: "sinh", mth.CoshOp: "cosh", mth.AsinOp: "asin",
    mth.AcosOp: "acos", mth.CbrtOp: "cbrt", mth.AsinhOp: "asinh", mth.AcoshOp: "acosh",
    mth.AtanhOp: "atanh", mth.PowFOp: "pow", mth.Atan2Op: "atan2", mth.CopySignOp: "copysign",
    mth.FmaOp: "fma", arith.MaxnumfOp: "fmax", arith.MinnumfOp: "fmin", RemFOp: "fmod",
}  # fmt: skip
"""Ops printed as a libm call (the `f` variant on f32; f16/bf16 through f32)."""

_FBIN = {arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/"}
_IBIN = {
    arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.AndIOp: "&",
    arith.OrIOp: "|", arith.XOrIOp: "^", arith.ShLIOp: "<<", arith.ShRSIOp: ">>",
}  # fmt: skip
_UBIN = {arith.DivUIOp: "/", arith.RemUIOp: "%", arith.ShRUIOp: ">>"}
_INT_HELPER = (arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp, mth.IPowIOp)
_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp)
_UCASTS = (arith.ExtUIOp,)

def dispatch_table() -> tuple[dict[type[Operation], Callable], Callable]:
    """A printer table keyed by op class, and the decorator that fills it
    (`@prints(arith.AddfOp, ...)` over a function of the printer and the op)."""
    table: dict[type[Operation], Callable] = {}

    def prints(*classes: type[Operation]):
        def register(fn):
            for c in classes:
                table[c] = fn
            return fn

        return register

    return table, prints


SCALAR_PRINTERS, prints = dispatch_table()


class ScalarPrinter:
    """The scalar-op half of a C-family printer. A target's printer subclasses it,
    sets `lang`, and says how values are named (`n`) and defined (`define`)."""

    lang: Language
    index_type: str = "int"

    # -- what each printer provides ------------------------------------------------------
    def n(self, v: SSAValue) -> str:
        raise NotImplementedError

    def define(self, v: SSAValue, expr: str) -> None:
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------
    def ctype(self, t: Attribute) -> str:
        return self.lang.scalar_type(t, self.index_type)

    def print_scalar(self, op: Operation) -> bool:
        """Print `op` if it is a scalar arith/math op; False if it is not one."""
        printer = SCALAR_PRINTERS.get(type(op))
        if printer is None:
            return False
        printer(self, op)
        return True

    def unsigned_of(self, t: Attribute) -> str:
        return self.lang.unsigned(self.ctype(t))

    def f(self, v: SSAValue) -> str:
        """A float operand for arithmetic: f16/bf16 values widened to f32."""
        if isinstance(v.type, HALF_TYPES):
            return self.convert_float(self.n(v), v.type, Float32Type())
        return self.n(v)

    def define_float(self, v: SSAValue, expr: str) -> None:
        """Define a float result from an f32 expression of its operands (`f`), rounded
        once to the result's type when that is f16/bf16."""
        if isinstance(v.type, HALF_TYPES):
            expr = self.convert_float(f"({expr})", Float32Type(), v.type)
        self.define(v, expr)

    def convert_float(self, x: str, src: Attribute, dst: Attribute) -> str:
        if src == dst:
            return x
        native = self.lang.native_halves
        if isinstance(dst, native) and not (isinstance(src, HALF_TYPES) and not isinstance(src, native)):
            return f"({self.ctype(dst)}){x}"  # one rounding, also from f64
        if isinstance(src, HALF_TYPES):
            x, src = self.lang.widen[type(src)].format(x), Float32Type()
            if dst == src:
                return x
        if isinstance(dst, HALF_TYPES):
            if isinstance(src, Float64Type) and type(dst) in self.lang.narrow_f64:
                return self.lang.narrow_f64[type(dst)].format(x)
            return self.lang.narrow[type(dst)].format(f"(float){x}")
        return f"({self.ctype(dst)}){x}"

    def libm(self, name: str, op: Operation) -> str:
        t = op.results[0].type
        if isinstance(t, Float64Type):
            return name
        if not isinstance(t, Float32Type | Float16Type | BFloat16Type):
            raise op_error(op, f"has no {self.lang.name} spelling on {t}")
        f = name + "f"
        return self.lang.inline_f32.get(f, f)


# --- the printing of each op family -------------------------------------------------------


@prints(arith.ConstantOp)
def _constant(p: ScalarPrinter, op: arith.ConstantOp) -> None:
    v, t = op.value, op.result.type
    if isinstance(v, FloatAttr):
        p.define(op.result, p.lang.float_literal(v.value.data, t))
    elif isinstance(v, IntegerAttr):
        val = v.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            p.define(op.result, p.lang.true if val else p.lang.false)
        else:
            p.define(op.result, p.lang.int_literal(val, p.ctype(t)))
    else:
        raise op_error(op, "only scalar constants are supported here")


@prints(*_FBIN)
def _float_binary(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    # `afn` permits an approximation, it does not ask for one: an add, sub or mul (none
    # has one), a division on a target without one (C) or not on f32 print exactly, as
    # they did before division had an approximate form (a user's `fastmath<fast>`)
    spelling = p.lang.approx_f32.get(op.name) if is_approximate(op) else None
    if spelling is not None and isinstance(op.results[0].type, Float32Type):
        p.define(op.results[0], spelling.format(p.n(a), p.n(b)))
        return
    p.define_float(op.results[0], f"{p.f(a)} {_FBIN[type(op)]} {p.f(b)}")


def _approx_spelling(p: ScalarPrinter, op: Operation) -> str:
    """The target's math = "approx" form of an op marked `afn` (f32 only)."""
    spelling = p.lang.approx_f32.get(op.name)
    if spelling is None or not isinstance(op.results[0].type, Float32Type):
        raise op_error(op, f"has no approximate {p.lang.name} form on {op.results[0].type} (math = "
                           f"\"approx\" covers {', '.join(sorted(p.lang.approx_f32)) or 'nothing'} on f32)")
    return spelling


_WRAPPING = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp)


def is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def signed_value(p: ScalarPrinter, v: SSAValue) -> str:
    """`v` as the signed integer arith reads it: an i1's true is -1 (C's bool is 1)."""
    return f"(-(int){p.n(v)})" if is_i1(v.type) else p.n(v)


_SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)


def int_width(p: ScalarPrinter, t: Attribute) -> int:
    """The bits of an integer or index type (the target's index width)."""
    return t.width.data if isinstance(t, IntegerType) else 32 if p.ctype(t) == "int" else 64


def shift_in_range(p: ScalarPrinter, op: Operation, expr: str) -> str:
    """A shift's `expr` for counts in [0, width), NumPy's answer past them (C leaves a
    shift by the width or more undefined: x86 masks the count, so 1 << 40 was 256 in a
    scalar loop and 0 in a vectorised one): 0, or the sign's fill for shrsi."""
    a, b = op.operands
    t = a.type
    if not isinstance(op, _SHIFTS) or is_i1(t):
        return expr
    count = b.owner
    if (isinstance(count, arith.ConstantOp) and isinstance(count.value, IntegerAttr)
            and 0 <= count.value.value.data < int_width(p, t)):
        return expr  # a constant count in range (the swizzles' shifts)
    past = f"({p.n(a)} < 0 ? ({p.ctype(t)})-1 : ({p.ctype(t)})0)" if isinstance(op, arith.ShRSIOp) else f"({p.ctype(t)})0"
    return f"(({p.unsigned_of(t)}){p.n(b)} < {int_width(p, t)}u ? {expr} : {past})"


@prints(*_IBIN)
def _int_binary(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    t = a.type
    if isinstance(op, _WRAPPING) and isinstance(t, IntegerType) and t.width.data > 1:
        # signed overflow is undefined in C and CUDA: the compiler may assume it away
        # (`x + 1 > x` folds to true), so wrap through the unsigned type, as NumPy does
        ut = p.unsigned_of(t)
        expr = f"({p.ctype(t)})(({ut}){p.n(a)} {_IBIN[type(op)]} ({ut}){p.n(b)})"
        p.define(op.results[0], shift_in_range(p, op, expr))
        return
    if isinstance(op, arith.AddiOp) and is_i1(t):  # modulo 2; C's bool saturates 1 + 1 to 1
        p.define(op.results[0], f"{p.n(a)} ^ {p.n(b)}")
        return
    p.define(op.results[0], shift_in_range(p, op, f"{p.n(a)} {_IBIN[type(op)]} {p.n(b)}"))


@prints(*_UBIN)
def _unsigned_binary(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    ut = p.unsigned_of(a.type)
    expr = f"({ut}){p.n(a)} {_UBIN[type(op)]} ({ut}){p.n(b)}"
    if isinstance(op, arith.DivUIOp | arith.RemUIOp):  # x / 0 and x % 0 are 0, as the signed helpers (no SIGFPE)
        expr = f"({ut}){p.n(b)} == 0 ? 0 : {expr}"
    p.define(op.results[0], shift_in_range(p, op, f"({p.ctype(a.type)})({expr})"))


@prints(*_INT_HELPER)
def _int_helper(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    # index: the target's index width (a 32-bit kernel's `int`, else 64 bits)
    width = int_width(p, a.type)
    p.define(op.results[0], f"({p.ctype(a.type)}){int_helper_call(op.name, width, p.n(a), p.n(b))}")


@prints(arith.MinUIOp, arith.MaxUIOp)
def _unsigned_minmax(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    ut = p.unsigned_of(a.type)
    f = p.lang.imin if isinstance(op, arith.MinUIOp) else p.lang.imax
    p.define(op.results[0], f"({p.ctype(a.type)}){f}(({ut}){p.n(a)}, ({ut}){p.n(b)})")


@prints(arith.MinSIOp, arith.MaxSIOp)
def _signed_minmax(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    if is_i1(a.type):  # true is -1: the signed max of two i1 is their and, the min their or
        p.define(op.results[0], f"{p.n(a)} {'|' if isinstance(op, arith.MinSIOp) else '&'} {p.n(b)}")
        return
    f = p.lang.imin if isinstance(op, arith.MinSIOp) else p.lang.imax
    p.define(op.results[0], f"{f}({p.n(a)}, {p.n(b)})")


@prints(arith.MaximumfOp, arith.MinimumfOp)
def _float_minmax(p: ScalarPrinter, op: Operation) -> None:
    a, b = op.operands
    f = p.lang.maximumf if isinstance(op, arith.MaximumfOp) else p.lang.minimumf
    p.define_float(op.results[0], f"{f}({p.f(a)}, {p.f(b)})")


@prints(mth.AbsIOp)
def _abs_int(p: ScalarPrinter, op: Operation) -> None:
    # through the unsigned type: |INT_MIN| wraps to INT_MIN (NumPy's answer), not UB
    x, ct = p.n(op.operands[0]), p.ctype(op.results[0].type)
    ut = p.unsigned_of(op.results[0].type)
    p.define(op.results[0], f"({x} < 0 ? ({ct})(({ut})0 - ({ut}){x}) : {x})")


@prints(arith.NegfOp)
def _negf(p: ScalarPrinter, op: Operation) -> None:
    p.define_float(op.results[0], f"-{p.f(op.operands[0])}")


@prints(arith.CmpfOp)
def _cmpf(p: ScalarPrinter, op: arith.CmpfOp) -> None:
    a, b = p.f(op.lhs), p.f(op.rhs)
    p.define(op.result, cmpf_expr(op.predicate.value.data, a, b, p.lang.true, p.lang.false))


@prints(arith.CmpiOp)
def _cmpi(p: ScalarPrinter, op: arith.CmpiOp) -> None:
    key = CMPI_NAMES[op.predicate.value.data]
    a, b = p.n(op.lhs), p.n(op.rhs)
    if key.startswith("s"):
        a, b = signed_value(p, op.lhs), signed_value(p, op.rhs)
    if key.startswith("u"):
        ut = p.unsigned_of(op.lhs.type)
        a, b = f"({ut}){a}", f"({ut}){b}"
    p.define(op.result, f"{a} {_CMPI[key]} {b}")


@prints(arith.SelectOp)
def _select(p: ScalarPrinter, op: arith.SelectOp) -> None:
    p.define(op.result, f"{p.n(op.cond)} ? {p.n(op.lhs)} : {p.n(op.rhs)}")


@prints(arith.ExtFOp, arith.TruncFOp)
def _float_cast(p: ScalarPrinter, op: arith.ExtFOp | arith.TruncFOp) -> None:
    src = op.input.owner
    if (isinstance(op, arith.ExtFOp) and isinstance(src, arith.ConstantOp)
            and isinstance(src.value, FloatAttr) and not isinstance(op.result.type, HALF_TYPES)):
        # a widened constant: its value is exact in the wider type (no conversion at
        # run time, which a compiler cannot fold through the half conversions' asm)
        x = exact_value(src.value.value.data, src.value.type)
        p.define(op.result, p.lang.float_literal(x, op.result.type))
        return
    p.define(op.result, p.convert_float(p.n(op.input), op.input.type, op.result.type))


@prints(arith.SIToFPOp, arith.UIToFPOp)
def _int_to_float(p: ScalarPrinter, op: Operation) -> None:
    x, src, to = p.n(op.operands[0]), op.operands[0].type, op.results[0].type
    if isinstance(op, arith.SIToFPOp):
        x = signed_value(p, op.operands[0])
    if isinstance(op, arith.UIToFPOp):
        x = f"({p.unsigned_of(src)}){x}"
    if isinstance(to, HALF_TYPES):
        odd = "aicf_u64_to_f32_odd" if isinstance(op, arith.UIToFPOp) else "aicf_i64_to_f32_odd"
        p.define(op.results[0], p.convert_float(f"{odd}({x})", Float32Type(), to))
    else:
        p.define(op.results[0], f"({p.ctype(to)}){x}")


@prints(arith.FPToSIOp, arith.FPToUIOp)
def _float_to_int(p: ScalarPrinter, op: Operation) -> None:
    """Truncation toward zero, saturating: NaN is 0, values past the type's range its
    bound (C leaves these undefined; PTX's cvt.rzi saturates so, as XLA and Rust
    define it). The bounds are powers of two, exact in any float type."""
    to = op.results[0].type
    ct = p.ctype(to)
    if is_i1(to):
        # truncated and saturated into i1's range, [0, 1] unsigned and [-1, 0] signed
        # (true is -1); NaN is false. C's (bool)x is x != 0: 0.5 was true
        x = p.f(op.operands[0])
        p.define(op.results[0], f"{x} >= 1.0" if isinstance(op, arith.FPToUIOp) else f"{x} <= -1.0")
        return
    if not isinstance(to, IntegerType):
        p.define(op.results[0], f"({ct}){p.f(op.operands[0])}")
        return
    bits = to.width.data
    lit = "" if isinstance(op.operands[0].type, Float64Type) else "f"
    x = p.f(op.operands[0])
    if isinstance(op, arith.FPToUIOp):
        # in range through the unsigned type: (int32_t)x is undefined past 2^31
        ut = p.unsigned_of(to)
        hi, top, low, bottom = f"{float(2 ** bits)!r}{lit}", f"({ct})({ut}){2 ** bits - 1}u", f"0.0{lit}", f"({ct})0"
        inside = f"({ct})({ut}){x}"
    else:
        hi, top = f"{float(2 ** (bits - 1))!r}{lit}", f"({ct}){2 ** (bits - 1) - 1}"
        low, bottom = f"-{float(2 ** (bits - 1))!r}{lit}", f"({ct})(-{2 ** (bits - 1) - 1} - 1)"
        inside = f"({ct}){x}"
    p.define(op.results[0], f"({x} != {x} ? ({ct})0 : {x} >= {hi} ? {top} : {x} < {low} ? {bottom} : {inside})")


@prints(*_CASTS)
def _int_cast(p: ScalarPrinter, op: Operation) -> None:
    x, to = op.operands[0], op.results[0].type
    if is_i1(to) and not is_i1(x.type):  # the low bit (a C bool is x != 0)
        p.define(op.results[0], f"({p.ctype(to)})({p.n(x)} & 1)")
        return
    p.define(op.results[0], f"({p.ctype(to)}){signed_value(p, x) if isinstance(op, arith.ExtSIOp | arith.IndexCastOp) else p.n(x)}")


@prints(*_UCASTS)
def _int_zero_extend(p: ScalarPrinter, op: Operation) -> None:
    x, src = p.n(op.operands[0]), op.operands[0].type
    p.define(op.results[0], f"({p.ctype(op.results[0].type)})({p.unsigned_of(src)}){x}")


@prints(*LIBM, mth.RsqrtOp, mth.FPowIOp)
def _libm_call(p: ScalarPrinter, op: Operation) -> None:
    r = op.results[0]
    if is_approximate(op):
        p.define(r, _approx_spelling(p, op).format(p.n(op.operands[0])))
        return
    if isinstance(op, mth.RsqrtOp):
        p.libm("sqrt", op)  # checks the type
        spelling = p.lang.rsqrt[isinstance(r.type, Float64Type)]
        p.define_float(r, spelling.format(p.f(op.operands[0])))
        return
    if isinstance(op, mth.FPowIOp):  # the prelude's helper, in double (see int_helpers)
        p.libm("pow", op)  # checks the type
        x, n = op.operands
        call = f"aicf_fpowi({p.f(x)}, (long long){signed_value(p, n)})"
        p.define_float(r, call if isinstance(r.type, Float64Type) else f"(float){call}")
        return
    f = p.libm(LIBM[type(op)], op)
    args = [p.f(x) for x in op.operands]
    p.define_float(r, f"{f}(" + ", ".join(args) + ")")
