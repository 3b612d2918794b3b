"""C expression syntax shared by the C and CUDA C emitters.

Both print scalar `arith` ops as C expressions; what needs care (NaN semantics of the
float predicates) is written once here.
"""

from __future__ import annotations

CMPF_NAMES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)  # fmt: skip
"""arith.cmpf predicates, in the order of their integer encoding."""

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
    """C functions for arith.divsi/remsi that never trap (SIGFPE on the CPU): x / 0 and
    x % 0 are 0 (NumPy's x // 0 and x % 0), MIN / -1 wraps to MIN and MIN % -1 is 0
    (NumPy's, which warns of the overflow). And math.ipowi: x ** n wraps (NumPy's);
    a negative n gives the integer part of 1 / x ** |n| (1 for x = 1, +-1 for x = -1,
    else 0, also for x = 0; NumPy raises). `qualifier` makes them C or CUDA."""
    out = []
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
        )
    return "".join(out)


def int_helper_call(op_name: str, width: int, a: str, b: str) -> str:
    """The call for `arith.divsi`/`remsi` or `math.ipowi` on `width`-bit operands (narrower
    ones are promoted to int, as C does, and their result narrowed by the caller)."""
    kind = op_name.split(".")[1]
    return f"aicf_{kind}{64 if width > 32 else 32}({a}, {b})"
