"""Scalar ops that MLIR 16 lacks or defines differently from aicf, rewritten into ops
it has, with aicf's semantics (those of the cpu target, backend/c):

- `arith.maximumf`/`minimumf` (NaN-propagating; MLIR 16 has only `maxf`/`minf`,
  renamed since) and `arith.maxnumf`/`minnumf` (NaN-ignoring, C's fmax/fmin):
  compares and selects;
- `arith.divsi`, `remsi`, `floordivsi`, `ceildivsi`: x / 0 and x % 0 are 0, MIN / -1
  wraps (NumPy's), where LLVM's division traps or is undefined; a divisor that is a
  constant other than 0 and -1 needs no guard;
- `arith.divui`, `remui`: x / 0 and x % 0 are 0 (LLVM's udiv traps: SIGFPE);
- `arith.shli`, `shrsi`, `shrui` by the width or more (or a negative count): 0, or the
  sign's fill for shrsi (NumPy's; LLVM's result is poison, x86 masks the count);
- `arith.fptosi`, `fptoui`: truncation that saturates, NaN to 0 (LLVM's result out
  of range is poison: 1e10 to i32 was INT_MIN, also through aicf_tensor.cast);
- `math.ipowi`: square-and-multiply over the exponent's bits, wrapping (NumPy's); a
  negative exponent gives the integer part of 1 / x ** |n| (MLIR 16 cannot lower
  ipowi to LLVM);
- math ops MLIR 16 does not have (`math.sinh`, `acos`, ...) are an error at the op.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, FloatAttr, Float64Type, IndexType, IntegerAttr, IntegerType, f32, f64, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from aicf.diagnostics import op_error
from aicf.lowering.tensor_to_loop.scalar import convert

NOT_IN_MLIR_16 = frozenset({"math.acos", "math.acosh", "math.asin", "math.asinh",
                            "math.atanh", "math.cosh", "math.sinh", "math.erfc"})  # fmt: skip
"""math ops xDSL knows that mlir-opt-16 does not parse."""


def _int(b: Builder, value: int, t) -> SSAValue:
    return b.insert(arith.ConstantOp(IntegerAttr(value, t), t)).result


def nan_propagating(b: Builder, a: SSAValue, c: SSAValue, is_max: bool) -> SSAValue:
    """max(a, c) (or min) that is NaN if either is: the cpu target's AICF_FMAX(a, c),
    `a > c || a != a ? a : c`."""
    better = b.insert(arith.CmpfOp(a, c, "ogt" if is_max else "olt")).result
    a_nan = b.insert(arith.CmpfOp(a, a, "uno")).result
    pick_a = b.insert(arith.OrIOp(better, a_nan)).result
    return b.insert(arith.SelectOp(pick_a, a, c)).result


def nan_ignoring(b: Builder, a: SSAValue, c: SSAValue, is_max: bool) -> SSAValue:
    """C's fmax(a, c) (or fmin): the other operand when one is NaN."""
    better = b.insert(arith.CmpfOp(a, c, "ogt" if is_max else "olt")).result
    c_nan = b.insert(arith.CmpfOp(c, c, "uno")).result
    pick_a = b.insert(arith.OrIOp(better, c_nan)).result
    return b.insert(arith.SelectOp(pick_a, a, c)).result


class FloatMinMax(RewritePattern):
    """arith.maximumf/minimumf/maxnumf/minnumf -> cmpf + select."""

    _KINDS = {
        "arith.maximumf": (nan_propagating, True), "arith.minimumf": (nan_propagating, False),
        "arith.maxnumf": (nan_ignoring, True), "arith.minnumf": (nan_ignoring, False),
    }  # fmt: skip

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        kind = self._KINDS.get(op.name)
        if kind is None:
            return
        fn, is_max = kind
        rewriter.replace(op, [], [fn(rewriter, op.operands[0], op.operands[1], is_max)])


def _is_safe_divisor(v: SSAValue) -> bool:
    """A constant divisor other than 0 and -1: nothing to guard."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data not in (0, -1)
    return False


class NonTrappingDivision(RewritePattern):
    """Integer divisions by 0 give 0 and by -1 negate (wrapping), as on the cpu target;
    the division itself runs on a divisor replaced by 1 there."""

    _OPS = {"arith.divsi": arith.DivSIOp, "arith.remsi": arith.RemSIOp,
            "arith.floordivsi": arith.FloorDivSIOp, "arith.ceildivsi": arith.CeilDivSIOp}  # fmt: skip

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = self._OPS.get(op.name)
        if cls is None or _is_safe_divisor(op.operands[1]):
            return
        a, d = op.operands
        t = a.type
        b = rewriter
        zero, one, minus_one = _int(b, 0, t), _int(b, 1, t), _int(b, -1, t)
        is_zero = b.insert(arith.CmpiOp(d, zero, "eq")).result
        is_minus_one = b.insert(arith.CmpiOp(d, minus_one, "eq")).result
        special = b.insert(arith.OrIOp(is_zero, is_minus_one)).result
        safe = b.insert(arith.SelectOp(special, one, d)).result
        general = b.insert(cls(a, safe)).result
        if op.name == "arith.remsi":  # x % 0 and x % -1 are 0
            by_special = zero
        else:  # x / 0 is 0; x / -1 is -x, wrapping
            negated = b.insert(arith.SubiOp(zero, a)).result
            by_special = b.insert(arith.SelectOp(is_zero, zero, negated)).result
        rewriter.replace(op, [], [b.insert(arith.SelectOp(special, by_special, general)).result])


class NonTrappingUnsignedDivision(RewritePattern):
    """arith.divui / remui by 0 give 0, as on the cpu target; the division runs on a
    divisor replaced by 1 there."""

    _OPS = {"arith.divui": arith.DivUIOp, "arith.remui": arith.RemUIOp}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = self._OPS.get(op.name)
        if cls is None or _is_nonzero_constant(op.operands[1]):
            return
        a, d = op.operands
        b = rewriter
        zero, one = _int(b, 0, a.type), _int(b, 1, a.type)
        is_zero = b.insert(arith.CmpiOp(d, zero, "eq")).result
        safe = b.insert(arith.SelectOp(is_zero, one, d)).result
        general = b.insert(cls(a, safe)).result
        rewriter.replace(op, [], [b.insert(arith.SelectOp(is_zero, zero, general)).result])


def _is_nonzero_constant(v: SSAValue) -> bool:
    owner = v.owner
    return (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)
            and owner.value.value.data != 0)  # fmt: skip


def _width(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else 64


class ShiftInRange(RewritePattern):
    """A shift by the width or more (a negative count is a huge unsigned one) gives
    NumPy's answer, as on the cpu target (backend/cstyle.py shift_in_range): 0, or the
    sign's fill for shrsi. A constant count in range needs no guard."""

    _OPS = {"arith.shli": arith.ShLIOp, "arith.shrsi": arith.ShRSIOp, "arith.shrui": arith.ShRUIOp}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = self._OPS.get(op.name)
        if cls is None:
            return
        x, count = op.operands
        t, width = x.type, _width(x.type)
        owner = count.owner
        if width == 1 or (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)
                          and 0 <= owner.value.value.data < width):
            return
        b = rewriter
        zero = _int(b, 0, t)
        in_range = b.insert(arith.CmpiOp(count, _int(b, width, t), "ult")).result
        safe = b.insert(arith.SelectOp(in_range, count, zero)).result
        shifted = b.insert(cls(x, safe))
        past = zero
        if op.name == "arith.shrsi":
            negative = b.insert(arith.CmpiOp(x, zero, "slt")).result
            past = b.insert(arith.SelectOp(negative, _int(b, -1, t), zero)).result
        rewriter.replace(op, [], [b.insert(arith.SelectOp(in_range, shifted.results[0], past)).result])


class SaturatingFloatToInt(RewritePattern):
    """arith.fptosi / fptoui truncate toward zero and saturate, NaN to 0, as the cpu
    target does (backend/cstyle.py _float_to_int) and aicf_tensor.cast defines: the
    conversion runs on a value clamped into range. The bounds are powers of two,
    exact in any float type (or its infinity, past f16's range)."""

    _OPS = {"arith.fptosi": arith.FPToSIOp, "arith.fptoui": arith.FPToUIOp}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = self._OPS.get(op.name)
        if cls is None:
            return
        (x,) = op.operands
        t, ft = op.results[0].type, x.type
        if not isinstance(t, IntegerType):
            return
        bits, signed = t.width.data, op.name == "arith.fptosi"
        b = rewriter

        def fconst(v: float) -> SSAValue:
            if isinstance(ft, Float16Type) and abs(v) > 65504.0:  # past f16: its infinity
                v = float("inf") if v > 0 else float("-inf")
            return b.insert(arith.ConstantOp(FloatAttr(v, ft), ft)).result

        if bits == 1:  # i1's range: [-1, 0] signed (true is -1), [0, 1] unsigned
            pred, bound = ("ole", -1.0) if signed else ("oge", 1.0)
            rewriter.replace(op, [], [b.insert(arith.CmpfOp(x, fconst(bound), pred)).result])
            return
        lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)
        top = _int(b, hi - 1, t)
        bottom = _int(b, lo, t)
        nan = b.insert(arith.CmpfOp(x, x, "uno")).result
        above = b.insert(arith.CmpfOp(x, fconst(float(hi)), "oge")).result
        # a bound past f16's range is -inf, which x < -inf would miss
        below = b.insert(arith.CmpfOp(x, fconst(float(lo)), "olt" if lo > -65504 else "ole")).result
        outside = b.insert(arith.OrIOp(nan, b.insert(arith.OrIOp(above, below)).result)).result
        safe = b.insert(arith.SelectOp(outside, fconst(0.0), x)).result
        inside = b.insert(cls(safe, t))
        clamped = b.insert(arith.SelectOp(above, top, b.insert(arith.SelectOp(below, bottom, inside.results[0])).result)).result
        rewriter.replace(op, [], [b.insert(arith.SelectOp(nan, _int(b, 0, t), clamped)).result])


def _odd_bits(b: Builder, rounded: SSAValue, exact_above: SSAValue, inexact: SSAValue, bits_type) -> SSAValue:
    """The bits of `rounded` (a float rounded to nearest) made round-to-odd: when
    inexact, one step toward the exact value if it went past it, then the last bit
    set (the stickiness of what was dropped)."""
    bits = b.insert(arith.BitcastOp(rounded, bits_type)).result
    toward = b.insert(arith.SelectOp(exact_above, b.insert(arith.SubiOp(bits, _int(b, 1, bits_type))).result, bits)).result
    odd = b.insert(arith.OrIOp(toward, _int(b, 1, bits_type))).result
    return b.insert(arith.BitcastOp(b.insert(arith.SelectOp(inexact, odd, bits)).result, rounded.type)).result


def f64_to_bf16(b: Builder, d: SSAValue, bf16: Attribute) -> SSAValue:
    """`d` (f64) rounded once to bf16, as the cpu target's aicf_f64_to_bf16: to f32 by
    round-to-odd, then to bf16."""
    f = b.insert(arith.TruncFOp(d, f32)).result
    back = b.insert(arith.ExtFOp(f, d.type)).result
    inexact = b.insert(arith.CmpfOp(back, d, "one")).result  # false for NaN
    away = b.insert(arith.CmpfOp(b.insert(math.AbsFOp(back)).result,
                                 b.insert(math.AbsFOp(d)).result, "ogt")).result  # fmt: skip
    return b.insert(arith.TruncFOp(_odd_bits(b, f, away, inexact, i32), bf16)).result


def _i64_to_f64_odd(b: Builder, x: SSAValue, signed: bool) -> SSAValue:
    """An i64 (signed or unsigned) as f64 rounded to odd: its halves are exact in f64,
    their sum rounds to nearest, and TwoSum's exact error says which way and whether."""
    t = x.type
    high = b.insert((arith.ShRSIOp if signed else arith.ShRUIOp)(x, _int(b, 32, t))).result
    low = b.insert(arith.AndIOp(x, _int(b, 0xFFFFFFFF, t))).result
    a = b.insert(arith.MulfOp(b.insert((arith.SIToFPOp if signed else arith.UIToFPOp)(high, f64)).result,
                              b.insert(arith.ConstantOp(FloatAttr(2.0**32, f64), f64)).result)).result  # fmt: skip
    c = b.insert(arith.SIToFPOp(low, f64)).result  # in [0, 2^32)
    s = b.insert(arith.AddfOp(a, c)).result
    cc = b.insert(arith.SubfOp(s, a)).result
    error = b.insert(arith.AddfOp(b.insert(arith.SubfOp(a, b.insert(arith.SubfOp(s, cc)).result)).result,
                                  b.insert(arith.SubfOp(c, cc)).result)).result  # fmt: skip
    zero = b.insert(arith.ConstantOp(FloatAttr(0.0, f64), f64)).result
    inexact = b.insert(arith.CmpfOp(error, zero, "one")).result
    # s went past the exact sum s + error when the error points back toward zero
    positive = b.insert(arith.CmpfOp(s, zero, "ogt")).result
    below = b.insert(arith.CmpfOp(error, zero, "olt")).result
    away = b.insert(arith.CmpiOp(positive, below, "eq")).result
    return _odd_bits(b, s, away, inexact, i64)


class OneRoundingToBF16(RewritePattern):
    """Conversions to bf16 round once, as on the cpu target: arith.truncf from f64
    (aicf_f64_to_bf16) and integers wider than bf16's 8 bits of precision can hold
    exactly in f32 (aicf_i64_to_f32_odd). Lowered by MLIR 16 they went through f32,
    rounding twice: 1 + 2^-8 + 2^-40 was 1, not 1 + 2^-7, and the integer
    2^30 + 2^22 + 1 was 2^30, not 2^30 + 2^23 (also through aicf_tensor.cast)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.TruncFOp | arith.SIToFPOp | arith.UIToFPOp):
            return
        x, to = op.operands[0], op.results[0].type
        if not isinstance(to, BFloat16Type):
            return
        b = rewriter
        if isinstance(op, arith.TruncFOp):
            if not isinstance(x.type, Float64Type):
                return
            d = x
        elif not isinstance(x.type, IntegerType) or x.type.width.data <= 24:
            return  # exact in f32: one rounding already
        elif x.type.width.data <= 32:  # exact in f64
            d = b.insert(type(op)(x, f64)).result
        else:
            d = _i64_to_f64_odd(b, x, isinstance(op, arith.SIToFPOp))
        rewriter.replace(op, [], [f64_to_bf16(b, d, to)])


class HalfMathInF32(RewritePattern):
    """A math op on f16 or bf16 computes in f32 and rounds once, as on the cpu target
    (backend/cstyle.py: halves are storage types). MLIR 16 expands some in the half
    type itself: f16 math.log1p of a small x was log(1 + x) in f16, 0 (a relative
    error of 1), expm1 likewise, and rsqrt rounded twice."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.dialect_name() != "math" or len(op.results) != 1:
            return
        t = op.results[0].type
        if not isinstance(t, Float16Type | BFloat16Type):
            return
        b = rewriter
        operands = [b.insert(arith.ExtFOp(v, f32)).result if v.type == t else v for v in op.operands]
        wide = b.insert(type(op).create(operands=operands, result_types=[f32],
                                        properties=dict(op.properties), attributes=dict(op.attributes)))  # fmt: skip
        rewriter.replace(op, [], [b.insert(arith.TruncFOp(wide.results[0], t)).result])


class IntPower(RewritePattern):
    """math.ipowi -> a loop over the exponent's bits (square and multiply)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.IPowIOp, rewriter: PatternRewriter, /) -> None:
        x, n = op.operands
        t = x.type
        assert isinstance(t, IntegerType)
        b = rewriter
        zero, one, minus_one = _int(b, 0, t), _int(b, 1, t), _int(b, -1, t)
        index = IndexType()
        lo, hi, step = (b.insert(arith.ConstantOp(IntegerAttr(v, index), index)).result
                        for v in (0, t.width.data, 1))  # fmt: skip
        block = Block(arg_types=[index, t, t, t])
        _, acc, base, rest = block.args
        inner = Builder(InsertPoint.at_end(block))
        odd = inner.insert(arith.CmpiOp(inner.insert(arith.AndIOp(rest, one)).result, zero, "ne")).result
        times = inner.insert(arith.MuliOp(acc, base)).result
        inner.insert(scf.YieldOp(
            inner.insert(arith.SelectOp(odd, times, acc)).result,
            inner.insert(arith.MuliOp(base, base)).result,
            inner.insert(arith.ShRUIOp(rest, one)).result,
        ))  # fmt: skip
        loop = b.insert(scf.ForOp(lo, hi, step, [one, x, n], Region(block)))
        # n < 0: 1 / x ** |n| truncated: 1 for x = 1, +-1 for x = -1, else 0
        n_odd = b.insert(arith.CmpiOp(b.insert(arith.AndIOp(n, one)).result, zero, "ne")).result
        sign = b.insert(arith.SelectOp(n_odd, minus_one, one)).result
        x_is_one = b.insert(arith.CmpiOp(x, one, "eq")).result
        x_is_minus_one = b.insert(arith.CmpiOp(x, minus_one, "eq")).result
        inverse = b.insert(arith.SelectOp(
            x_is_one, one, b.insert(arith.SelectOp(x_is_minus_one, sign, zero)).result
        )).result  # fmt: skip
        negative = b.insert(arith.CmpiOp(n, zero, "slt")).result
        rewriter.replace(op, [], [b.insert(arith.SelectOp(negative, inverse, loop.results[0])).result])


class UnknownToMlir16(RewritePattern):
    """math ops that mlir-opt-16 would not parse: an error at the op, here."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name in NOT_IN_MLIR_16:
            raise op_error(op, "has no counterpart in MLIR 16 (mlir-opt-16 would not parse it)")


SCALAR_PATTERNS = (FloatMinMax(), NonTrappingDivision(), NonTrappingUnsignedDivision(), ShiftInRange(),
                   SaturatingFloatToInt(), OneRoundingToBF16(), HalfMathInF32(), IntPower(), UnknownToMlir16())



def store_conversion(b: Builder, v: SSAValue, to: Attribute) -> SSAValue:
    """`v` converted to the element type it is stored as, as the cpu target stores it:
    NumPy's astype, an f64 to bf16 rounded once (OneRoundingToBF16, as C's
    `aicf_f64_to_bf16(v)`)."""
    return convert(b, v, to)
