"""The `aicf_tensor` dialect: tensor programs with value semantics and NumPy rules.

Operands and results are builtin `tensor<...>` types of f16, bf16, f32, f64, i32, i64
or i1 (comparison results and masks; i1 is bool storage, one byte per element).
Results may be written unranked (`tensor<*xf32>`) in input files; `aicf-infer-shapes`
fills them in. Every op verifies what can be checked from ranked operand types
(broadcasting, axes, permutations, contraction sizes) using the shared rules in
`shape_rules`, so the verifier, the shape inference and the front end agree.

Example:

    func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
      %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
      %1 = aicf_tensor.sin %0 : (tensor<*xf32>) -> tensor<*xf32>
      %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<*xf32>) -> tensor<4xf32>
      func.return %2 : tensor<4xf32>
    }
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from aicf.dialects import shape_rules as rules

AnyTensor = TensorType | UnrankedTensorType


class TensorCanonicalization(HasCanonicalizationPatternsTrait):
    """Constant folding and the op's canonicalization patterns, which live in
    passes/tensor/canonicalize.py (imported late: the dialect must not import passes)."""

    def get_patterns(self, op):
        from aicf.passes.tensor.canonicalize import patterns_for

        return patterns_for(op)

    @classmethod
    def get_canonicalization_patterns(cls):
        return ()

# --- element types ---------------------------------------------------------------------

_DTYPE_NAMES: dict[type[Attribute], str] = {
    Float16Type: "f16",
    BFloat16Type: "bf16",
    Float32Type: "f32",
    Float64Type: "f64",
}


def dtype_name(t: Attribute) -> str:
    """MLIR's spelling of a scalar type (`f32`, `i32`, ...)."""
    if isinstance(t, IntegerType):
        if t.signedness.data != Signedness.SIGNLESS:
            # ui32 read as i32 passed the verifiers and failed in lowering ('arith.trunci'
            # Destination bit-width must be smaller) or ran as i32
            raise VerifyException(f"unsupported element type {t}: aicf's integers are signless (i32, not "
                                  "si32 or ui32)")
        return f"i{t.width.data}"
    name = _DTYPE_NAMES.get(type(t))
    if name is None:
        raise VerifyException(f"unsupported element type {t}")
    return name


@functools.cache  # types are immutable values: one per name (verifiers ask for every op)
def dtype_from_name(name: str) -> Attribute:
    for cls, n in _DTYPE_NAMES.items():
        if n == name:
            return cls()
    if name.startswith("i"):
        return IntegerType(int(name[1:]))
    raise ValueError(f"unknown element type {name!r}")


SUPPORTED_DTYPES = ("f16", "bf16", "f32", "f64", "i32", "i64", "i1")


F32_MAX = 3.4028234663852886e38


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


# --- helpers over tensor types -------------------------------------------------------------


def ranked_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type, or None for an unranked one."""
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return None


def element_type(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType | UnrankedTensorType)
    return t.get_element_type()


def make_tensor(elt: Attribute, shape: Sequence[int] | None) -> Attribute:
    if shape is None:
        return UnrankedTensorType(elt)
    return TensorType(elt, list(shape))



def attach_attributes(op: Operation, attrs: dict[str, Attribute]) -> Operation:
    """Give `op` the attribute dictionary `{...}` of its custom syntax. An entry named
    like one of the op's properties that the syntax left unset sets that property, as
    MLIR and xDSL's generic and declarative parsers read it (`{causal}` is `causal`;
    kept as a discardable attribute, which no pass reads, it was silently dropped: a
    non-causal attention, ddof 0, no keepdims); the others stay discardable attributes.
    One that the syntax set too stays an attribute, which verify_module refuses."""
    props = type(op).get_irdl_definition().properties  # type: ignore[attr-defined]
    for name, value in attrs.items():
        if name in props and name not in op.properties:
            op.properties[name] = value
        else:
            op.attributes[name] = value
    return op


def float_text(v: float) -> str:
    """`v` as an MLIR float literal that parses back to the same double (Python's
    shortest round-trip digits, with the `.` MLIR's lexer needs)."""
    text = repr(float(v))
    if "e" in text and "." not in text:
        text = text.replace("e", ".0e")
    return text


class ListPropsFormat:
    """Custom assembly for ops with integer-list properties and unit flags, MLIR style:

        %r = aicf_tensor.reduce_sum %x axes = [-1] keepdims : (tensor<4x8xf32>) -> tensor<4x1xf32>

    `LIST_PROPS` are printed `name = [..]` (stored as array<i64>), `FLAG_PROPS` as a bare
    keyword (a UnitAttr); then the attribute dict and the functional type.
    """

    LIST_PROPS: ClassVar[tuple[str, ...]] = ()
    FLAG_PROPS: ClassVar[tuple[str, ...]] = ()
    INT_PROPS: ClassVar[tuple[str, ...]] = ()
    """Printed `name = N` (stored as an i64 IntegerAttr)."""
    FLOAT_PROPS: ClassVar[tuple[str, ...]] = ()
    """Printed `name = 0.125`, first (stored as an f64 FloatAttr, printed exactly)."""

    @classmethod
    def parse(cls, parser: Parser):
        unresolved = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        props: dict[str, Attribute] = {}
        while True:
            if name := parser.parse_optional_keyword_in(cls.LIST_PROPS):
                parser.parse_punctuation("=")
                values = parser.parse_comma_separated_list(
                    Parser.Delimiter.SQUARE, lambda: parser.parse_integer(False)
                )
                props[name] = DenseArrayBase.from_list(i64, values)
            elif name := parser.parse_optional_keyword_in(cls.FLAG_PROPS):
                props[name] = UnitAttr()
            elif name := parser.parse_optional_keyword_in(cls.INT_PROPS):
                parser.parse_punctuation("=")
                props[name] = IntegerAttr(parser.parse_integer(), i64)
            elif name := parser.parse_optional_keyword_in(cls.FLOAT_PROPS):
                parser.parse_punctuation("=")
                props[name] = FloatAttr(float(parser.parse_number()), f64)
            else:
                break
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(unresolved):
            parser.raise_error(
                f"expected {len(unresolved)} operand types, got {len(ftype.inputs)}",
                pos,
                parser.pos,
            )
        operands = [
            parser.resolve_operand(u, t) for u, t in zip(unresolved, ftype.inputs.data)
        ]
        op = cls.create(  # type: ignore[attr-defined]
            operands=operands,
            result_types=list(ftype.outputs.data),
            properties=props,
        )
        return attach_attributes(op, attrs)

    def print(self, printer: Printer) -> None:
        op: IRDLOperation = self  # type: ignore[assignment]
        printer.print_string(" ")
        printer.print_list(op.operands, printer.print_ssa_value)
        for name in self.FLOAT_PROPS:
            attr = op.properties.get(name)
            if isinstance(attr, FloatAttr):
                printer.print_string(f" {name} = {float_text(attr.value.data)}")
        for name in self.LIST_PROPS:
            attr = op.properties.get(name)
            if isinstance(attr, DenseArrayBase):
                printer.print_string(f" {name} = [")
                printer.print_list(attr.get_values(), lambda v: printer.print_string(str(v)))
                printer.print_string("]")
        for name in self.INT_PROPS:
            attr = op.properties.get(name)
            if isinstance(attr, IntegerAttr):
                printer.print_string(f" {name} = {attr.value.data}")
        for name in self.FLAG_PROPS:
            if name in op.properties:
                printer.print_string(f" {name}")
        printer.print_op_attributes(op.attributes)
        printer.print_string(" : ")
        printer.print_operation_type(op)


class TensorOp(IRDLOperation, abc.ABC):
    """Common verification: the element type is supported; when every operand is
    ranked, the declared result (if ranked) must agree with the inferred one."""

    def infer_shape(self, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
        """Result shape from the operands' shapes (all ranked). Raises ShapeError."""
        raise NotImplementedError

    def infer_element_type(self) -> Attribute:
        return element_type(self.operands[0].type)

    def inferred_type(self) -> Attribute:
        """The result type the rules give, unranked if an operand is unranked."""
        return make_tensor(*self._inferred_parts())

    def _inferred_parts(self) -> tuple[Attribute, tuple[int, ...] | None]:
        """inferred_type's element type and shape (None: unranked), without building
        the type (the verifier asks for every op after every pass)."""
        shapes = [ranked_shape(o.type) for o in self.operands]
        elt = self.infer_element_type()
        if any(s is None for s in shapes):
            return elt, None
        try:
            shape = self.infer_shape(shapes)  # type: ignore[arg-type]
        except rules.ShapeError as e:
            raise VerifyException(f"'{self.name}': {e}") from None
        return elt, tuple(shape)

    def verify_(self) -> None:
        for name in getattr(self, "INT_PROPS", ()):
            # The custom syntax stores i64; the generic one takes any IntegerAttr, and
            # `axis = true` (an i1, held as -1) was read as the last axis.
            attr = self.properties.get(name)
            if isinstance(attr, IntegerAttr) and attr.type != i64:
                raise VerifyException(
                    f"'{self.name}': property {name} must be an i64 integer, got {attr}"
                )
        for v in (*self.operands, *self.results):
            if (dtype := dtype_name(element_type(v.type))) not in SUPPORTED_DTYPES:
                raise VerifyException(
                    f"'{self.name}': unsupported element type {dtype} (expected one "
                    f"of {', '.join(SUPPORTED_DTYPES)})"
                )
            shape = ranked_shape(v.type)
            if shape is not None:
                try:
                    rules.check_extents(shape)
                except rules.ShapeError as e:
                    raise VerifyException(f"'{self.name}': {e}") from None
        if type(self).inferred_type is TensorOp.inferred_type:
            ielt, ishape = self._inferred_parts()
        else:
            inferred = self.inferred_type()
            ielt, ishape = element_type(inferred), ranked_shape(inferred)
        declared = self.results[0].type
        if element_type(declared) != ielt:
            raise VerifyException(
                f"'{self.name}': result element type {element_type(declared)} "
                f"does not match the inferred {ielt}"
            )
        dshape = ranked_shape(declared)
        if ishape is not None and dshape is not None:
            if not rules.compatible(ishape, dshape):
                raise VerifyException(
                    f"'{self.name}': declared result shape {rules.fmt(dshape)} does "
                    f"not match the inferred shape {rules.fmt(ishape)}"
                )


# --- elementwise -----------------------------------------------------------------------------


class UnaryOp(TensorOp, abc.ABC):
    """An elementwise op of one operand; the result has the operand's shape and type."""

    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), TensorCanonicalization())
    assembly_format = "$input attr-dict `:` functional-type($input, $result)"

    FLOAT_ONLY: ClassVar[bool] = True

    def __init__(self, input: SSAValue | Operation, result_type: Attribute | None = None):
        input = SSAValue.get(input)
        super().__init__(operands=[input], result_types=[result_type or input.type])

    def infer_shape(self, shapes):
        return shapes[0]

    def verify_(self) -> None:
        if self.FLOAT_ONLY and not is_float(element_type(self.input.type)):
            raise VerifyException(
                f"'{self.name}': operand must be a float tensor, got {self.input.type}"
            )
        super().verify_()


def refuse_i1(op, why: str) -> None:
    """A verifier error for a unary op on an i1 (bool) input."""
    if element_type(op.input.type) == IntegerType(1):
        raise VerifyException(f"'{op.name}': {why}")


@irdl_op_definition
class NegOp(UnaryOp):
    """Elementwise negation. `%y = aicf_tensor.neg %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.neg"
    FLOAT_ONLY: ClassVar[bool] = False

    def verify_(self) -> None:
        refuse_i1(self, "negation of i1 (bool) is not defined (NumPy and torch raise too); "
                        "use a comparison with false")
        super().verify_()


@irdl_op_definition
class ExpOp(UnaryOp):
    """Elementwise e^x. `%y = aicf_tensor.exp %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.exp"


@irdl_op_definition
class LogOp(UnaryOp):
    """Elementwise natural log. `%y = aicf_tensor.log %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.log"


@irdl_op_definition
class SinOp(UnaryOp):
    """Elementwise sine. `%y = aicf_tensor.sin %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.sin"


@irdl_op_definition
class CosOp(UnaryOp):
    """Elementwise cosine. `%y = aicf_tensor.cos %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.cos"


@irdl_op_definition
class TanhOp(UnaryOp):
    """Elementwise tanh. `%y = aicf_tensor.tanh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.tanh"


@irdl_op_definition
class SqrtOp(UnaryOp):
    """Elementwise square root. `%y = aicf_tensor.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.sqrt"


@irdl_op_definition
class RsqrtOp(UnaryOp):
    """Elementwise 1/sqrt(x). `%y = aicf_tensor.rsqrt %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.rsqrt"


@irdl_op_definition
class AbsOp(UnaryOp):
    """Elementwise |x|. `%y = aicf_tensor.abs %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.abs"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class ReluOp(UnaryOp):
    """Elementwise max(x, 0). `%y = aicf_tensor.relu %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.relu"
    FLOAT_ONLY: ClassVar[bool] = False

    def verify_(self) -> None:
        # max(x, 0) is refused on i1 (aicf_tensor.max); relu lowered to arith.maxsi,
        # which reads true as -1: every output false, where folding gave x
        refuse_i1(self, "arithmetic on i1 (bool) tensors is not defined; "
                        "cast them to an integer or float type first")
        super().verify_()


@irdl_op_definition
class GeluOp(UnaryOp):
    """Elementwise GELU. Without `approximate` the exact erf form
    x * 0.5 * (1 + erf(x / sqrt(2))); with `approximate = "tanh"` the tanh form
    0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), as torch's `approximate=`.

    `%y = aicf_tensor.gelu %x approximate = "tanh" : (tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "aicf_tensor.gelu"
    approximate = opt_prop_def(StringAttr)
    assembly_format = (
        "$input (`approximate` `=` $approximate^)? attr-dict `:` "
        "functional-type($input, $result)"
    )
    APPROXIMATIONS: ClassVar[tuple[str, ...]] = ("none", "tanh")

    def __init__(
        self,
        input: SSAValue | Operation,
        result_type: Attribute | None = None,
        approximate: str = "none",
    ):
        super().__init__(input, result_type)
        if approximate != "none":
            self.approximate = StringAttr(approximate)

    @property
    def form(self) -> str:
        return "none" if self.approximate is None else self.approximate.data

    def verify_(self) -> None:
        if self.form not in self.APPROXIMATIONS:
            raise VerifyException(
                f"'{self.name}': approximate must be one of "
                f"{', '.join(repr(a) for a in self.APPROXIMATIONS)}, got {self.form!r}"
            )
        super().verify_()


@irdl_op_definition
class ErfOp(UnaryOp):
    """Elementwise error function. `%y = aicf_tensor.erf %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.erf"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """Elementwise 1 / (1 + e^-x). `%y = aicf_tensor.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.sigmoid"


@irdl_op_definition
class Log1pOp(UnaryOp):
    """Elementwise ln(1 + x), accurate where x is tiny. `%y = aicf_tensor.log1p %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.log1p"


@irdl_op_definition
class Expm1Op(UnaryOp):
    """Elementwise e^x - 1, accurate where x is tiny. `%y = aicf_tensor.expm1 %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.expm1"


@irdl_op_definition
class Log2Op(UnaryOp):
    """Elementwise base-2 logarithm. `%y = aicf_tensor.log2 %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.log2"


@irdl_op_definition
class Log10Op(UnaryOp):
    """Elementwise base-10 logarithm. `%y = aicf_tensor.log10 %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.log10"


@irdl_op_definition
class Exp2Op(UnaryOp):
    """Elementwise 2^x. `%y = aicf_tensor.exp2 %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.exp2"


@irdl_op_definition
class TanOp(UnaryOp):
    """Elementwise tangent. `%y = aicf_tensor.tan %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.tan"


@irdl_op_definition
class AsinOp(UnaryOp):
    """Elementwise arcsine. `%y = aicf_tensor.asin %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.asin"


@irdl_op_definition
class AcosOp(UnaryOp):
    """Elementwise arccosine. `%y = aicf_tensor.acos %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.acos"


@irdl_op_definition
class AtanOp(UnaryOp):
    """Elementwise arctangent. `%y = aicf_tensor.atan %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.atan"


@irdl_op_definition
class SinhOp(UnaryOp):
    """Elementwise hyperbolic sine. `%y = aicf_tensor.sinh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.sinh"


@irdl_op_definition
class CoshOp(UnaryOp):
    """Elementwise hyperbolic cosine. `%y = aicf_tensor.cosh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.cosh"


@irdl_op_definition
class AsinhOp(UnaryOp):
    """Elementwise inverse hyperbolic sine. `%y = aicf_tensor.asinh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.asinh"


@irdl_op_definition
class AcoshOp(UnaryOp):
    """Elementwise inverse hyperbolic cosine. `%y = aicf_tensor.acosh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.acosh"


@irdl_op_definition
class AtanhOp(UnaryOp):
    """Elementwise inverse hyperbolic tangent. `%y = aicf_tensor.atanh %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.atanh"


@irdl_op_definition
class CbrtOp(UnaryOp):
    """Elementwise cube root. `%y = aicf_tensor.cbrt %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.cbrt"


@irdl_op_definition
class FloorOp(UnaryOp):
    """Elementwise largest integer value not above x (a float). `%y = aicf_tensor.floor %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.floor"


@irdl_op_definition
class CeilOp(UnaryOp):
    """Elementwise smallest integer value not below x (a float). `%y = aicf_tensor.ceil %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.ceil"


@irdl_op_definition
class TruncOp(UnaryOp):
    """Elementwise x rounded toward zero (a float). `%y = aicf_tensor.trunc %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.trunc"


@irdl_op_definition
class RoundOp(UnaryOp):
    """Elementwise x rounded to the nearest integer value, ties to even (numpy.rint, torch.round). `%y = aicf_tensor.round %x : (tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.round"


class BinaryOp(TensorOp, abc.ABC):
    """An elementwise op of two operands with NumPy broadcasting. Mixed element types
    promote by `shape_rules.promote_dtypes`."""

    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), TensorCanonicalization())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, $result)"

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        if result_type is None:
            result_type = UnrankedTensorType(
                dtype_from_name(
                    rules.promote_dtypes(
                        dtype_name(element_type(lhs.type)),
                        dtype_name(element_type(rhs.type)),
                    )
                )
            )
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def infer_element_type(self) -> Attribute:
        return dtype_from_name(
            rules.promote_dtypes(
                dtype_name(element_type(self.lhs.type)),
                dtype_name(element_type(self.rhs.type)),
            )
        )

    def infer_shape(self, shapes):
        return rules.broadcast_shapes(*shapes)

    def verify_(self) -> None:
        if not isinstance(self, CompareOp) and self.infer_element_type() == IntegerType(1):
            raise VerifyException(
                f"'{self.name}': arithmetic on i1 (bool) tensors is not defined; "
                "cast them to an integer or float type first"
            )
        super().verify_()


@irdl_op_definition
class AddOp(BinaryOp):
    """`%z = aicf_tensor.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>`"""

    name = "aicf_tensor.add"


@irdl_op_definition
class SubOp(BinaryOp):
    """`%z = aicf_tensor.sub %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    """`%z = aicf_tensor.mul %x, %y : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """Division: of floats true division; of integers the quotient truncated toward zero
    (C's), with x / 0 = 0 (the front ends make NumPy's `/` of integers a float division
    and `//` a floor division).
    `%z = aicf_tensor.div %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.div"


@irdl_op_definition
class MaxOp(BinaryOp):
    """Elementwise maximum, NaN-propagating like numpy.maximum. Of two zeros of
    opposite signs, f16 and bf16 give either (f32 and f64: the second, as NumPy).

    `%z = aicf_tensor.max %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "aicf_tensor.max"


@irdl_op_definition
class MinOp(BinaryOp):
    """Elementwise minimum, NaN-propagating like numpy.minimum. Of two zeros of
    opposite signs, f16 and bf16 give either (f32 and f64: the second, as NumPy).

    `%z = aicf_tensor.min %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`
    """

    name = "aicf_tensor.min"


@irdl_op_definition
class PowOp(BinaryOp):
    """x ** y. Integers wrap; to a negative exponent they give 1 / x ** -y truncated:
    1 for x = 1, 1 or -1 for x = -1, 0 otherwise (0 included; NumPy raises on such
    values, which a compiled program cannot).
    `%z = aicf_tensor.pow %x, %y : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.pow"


class FloatBinaryOp(BinaryOp, abc.ABC):
    """A binary op of floats only (a libm function of two arguments)."""

    def verify_(self) -> None:
        if not is_float(self.infer_element_type()):
            raise VerifyException(
                f"'{self.name}': operands must promote to a float type, got "
                f"{self.lhs.type} and {self.rhs.type}"
            )
        super().verify_()


@irdl_op_definition
class Atan2Op(FloatBinaryOp):
    """The angle of the point (rhs, lhs): arctan(lhs / rhs) in the right quadrant, as
    numpy.arctan2(y, x). `%a = aicf_tensor.atan2 %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.atan2"


@irdl_op_definition
class CopysignOp(FloatBinaryOp):
    """|lhs| with the sign bit of rhs (NaN and -0 included), as numpy.copysign.
    `%z = aicf_tensor.copysign %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.copysign"


@irdl_op_definition
class FmodOp(FloatBinaryOp):
    """The exact remainder of lhs / rhs truncated, with the sign of lhs (C's fmod,
    numpy.fmod, torch.fmod); fmod(x, 0) is NaN. The front ends build float floor
    division and remainder on it, as NumPy does.
    `%r = aicf_tensor.fmod %x, %y : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.fmod"


class CompareOp(BinaryOp, abc.ABC):
    """An elementwise comparison with NumPy broadcasting; the result is i1. The operands
    are compared in their promoted type's compute type (f16 and bf16 in f32, so an
    integer is not rounded to a half first); a NaN compares unequal to everything (`ne`
    is true, the others false), as in NumPy. One op per predicate, like NumPy's ufuncs.

    `%m = aicf_tensor.lt %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>`
    """

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
    ):
        super().__init__(lhs, rhs, result_type or UnrankedTensorType(IntegerType(1)))

    def operand_element_type(self) -> Attribute:
        """The type both operands are compared in."""
        return BinaryOp.infer_element_type(self)

    def infer_element_type(self) -> Attribute:
        return IntegerType(1)


@irdl_op_definition
class EqOp(CompareOp):
    """x == y. `%m = aicf_tensor.eq %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.eq"


@irdl_op_definition
class NeOp(CompareOp):
    """x != y (true where either is NaN). `%m = aicf_tensor.ne %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.ne"


@irdl_op_definition
class LtOp(CompareOp):
    """x < y. `%m = aicf_tensor.lt %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.lt"


@irdl_op_definition
class LeOp(CompareOp):
    """x <= y. `%m = aicf_tensor.le %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.le"


@irdl_op_definition
class GtOp(CompareOp):
    """x > y. `%m = aicf_tensor.gt %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.gt"


@irdl_op_definition
class GeOp(CompareOp):
    """x >= y. `%m = aicf_tensor.ge %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`"""

    name = "aicf_tensor.ge"


@irdl_op_definition
class SelectOp(TensorOp):
    """numpy.where(cond, x, y): elementwise choice, broadcasting all three operands.
    `cond` is an i1 tensor; the result has x and y's promoted element type.

    `%z = aicf_tensor.select %c, %x, %y : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>`
    """

    name = "aicf_tensor.select"
    cond = operand_def(AnyTensor)
    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), TensorCanonicalization())
    assembly_format = (
        "$cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, $result)"
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
    ):
        cond, lhs, rhs = SSAValue.get(cond), SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(
            operands=[cond, lhs, rhs],
            result_types=[result_type or UnrankedTensorType(_promoted(lhs, rhs))],
        )

    def infer_element_type(self) -> Attribute:
        return _promoted(self.lhs, self.rhs)

    def infer_shape(self, shapes):
        return rules.broadcast_shapes(*shapes)

    def verify_(self) -> None:
        if element_type(self.cond.type) != IntegerType(1):
            raise VerifyException(
                f"'{self.name}': condition must be an i1 tensor, got {self.cond.type}"
            )
        super().verify_()


def _promoted(lhs: SSAValue, rhs: SSAValue) -> Attribute:
    return dtype_from_name(
        rules.promote_dtypes(
            dtype_name(element_type(lhs.type)), dtype_name(element_type(rhs.type))
        )
    )


UNARY_OPS: tuple[type[UnaryOp], ...] = (
    NegOp, ExpOp, LogOp, SinOp, CosOp, TanhOp, SqrtOp, RsqrtOp, AbsOp, ReluOp, GeluOp,
    SigmoidOp, ErfOp, Log1pOp, Expm1Op, Log2Op, Log10Op, Exp2Op, TanOp, AsinOp, AcosOp,
    AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, CbrtOp, FloorOp, CeilOp, TruncOp,
    RoundOp,
)  # fmt: skip
ARITHMETIC_OPS: tuple[type[BinaryOp], ...] = (
    AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, Atan2Op, CopysignOp, FmodOp,
)  # fmt: skip
COMPARE_OPS: tuple[type[CompareOp], ...] = (EqOp, NeOp, LtOp, LeOp, GtOp, GeOp)
BINARY_OPS: tuple[type[BinaryOp], ...] = (*ARITHMETIC_OPS, *COMPARE_OPS)


# --- constants and casts ----------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(TensorOp):
    """A tensor constant from a dense elements attribute (splat or full).

    Example:

        %c = aicf_tensor.constant dense<1.5> : tensor<4x8xf32>
        %d = aicf_tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "aicf_tensor.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def inferred_type(self) -> Attribute:
        return self.value.type

    def is_splat(self) -> bool:
        """Every element has the same bits (compared as bytes: a big constant is not
        decoded element by element on aicf-fuse's hot path)."""
        data = self.value.data.data
        n = len(self.value)
        if n <= 1:
            return True
        size = len(data) // n
        return data == data[:size] * n

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("expected a dense<...> elements attribute", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        return attach_attributes(cls(value), attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class CastOp(TensorOp):
    """Elementwise conversion to the result's element type (round to nearest even;
    float to int truncates toward zero, as numpy.astype, and saturates: NaN is 0, a
    value past the type's range its bound, on every target, as XLA defines it).

    `%y = aicf_tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>`
    """

    name = "aicf_tensor.cast"
    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), TensorCanonicalization())
    assembly_format = "$input attr-dict `:` functional-type($input, $result)"

    def __init__(self, input: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[SSAValue.get(input)], result_types=[result_type])

    def infer_element_type(self) -> Attribute:
        return element_type(self.result.type)

    def infer_shape(self, shapes):
        return shapes[0]


@irdl_op_definition
class IotaOp(TensorOp):
    """The index along dimension `dim` at every element of the (ranked, static) result
    type, as `np.indices(shape)[dim]` in the result's element type. A float type
    rounds large indices as astype does; an integer type must hold every index (where
    astype would wrap, the verifier names the extent).

    `%i = aicf_tensor.iota dim = 1 : tensor<4x8xi64>`
    """

    name = "aicf_tensor.iota"
    dim = prop_def(IntegerAttr)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    def __init__(self, result_type: Attribute, dim: int):
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[result_type])

    @property
    def dim_value(self) -> int:
        return self.dim.value.data

    def inferred_type(self) -> Attribute:
        return self.result.type

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return attach_attributes(cls(parser.parse_type(), dim), attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dim = {self.dim_value}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        shape = ranked_shape(self.result.type)
        if shape is None or rules.DYN in shape:
            raise VerifyException(f"'{self.name}': the result type must have a static shape")
        if not 0 <= self.dim_value < len(shape):
            raise VerifyException(
                f"'{self.name}': dim {self.dim_value} is out of range for rank {len(shape)}"
            )
        elt = element_type(self.result.type)
        if elt == IntegerType(1):
            raise VerifyException(f"'{self.name}': the result cannot be i1")
        # NumPy's astype would wrap the large indices silently; a float type rounds them
        # as astype does, but an integer type that cannot hold one is an error
        if isinstance(elt, IntegerType) and shape[self.dim_value] - 1 > 2 ** (elt.width.data - 1) - 1:
            raise VerifyException(
                f"'{self.name}': dim {self.dim_value} has extent {shape[self.dim_value]}: its "
                f"indices up to {shape[self.dim_value] - 1} do not fit {elt} (at most "
                f"{2 ** (elt.width.data - 1) - 1})"
            )
        super().verify_()


# --- reductions ------------------------------------------------------------------------------


class ReduceOp(ListPropsFormat, TensorOp, abc.ABC):
    """A reduction over `axes` (negative axes count from the end), with NumPy's
    keepdims. Empty `axes` reduces nothing."""

    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    axes = prop_def(DenseArrayBase)
    keepdims = opt_prop_def(UnitAttr)
    traits = traits_def(Pure(), TensorCanonicalization())
    LIST_PROPS: ClassVar[tuple[str, ...]] = ("axes",)
    FLAG_PROPS: ClassVar[tuple[str, ...]] = ("keepdims",)

    def __init__(
        self,
        input: SSAValue | Operation,
        axes: Sequence[int],
        keepdims: bool = False,
        result_type: Attribute | None = None,
    ):
        input = SSAValue.get(input)
        props: dict[str, Attribute] = {"axes": DenseArrayBase.from_list(i64, list(axes))}
        if keepdims:
            props["keepdims"] = UnitAttr()
        super().__init__(
            operands=[input],
            properties=props,
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    @property
    def axes_list(self) -> tuple[int, ...]:
        return tuple(self.axes.get_values())

    @property
    def keep(self) -> bool:
        return self.keepdims is not None

    def reduced_axes(self) -> tuple[int, ...]:
        """Normalised (non-negative, sorted) axes; needs a ranked operand."""
        shape = ranked_shape(self.input.type)
        assert shape is not None
        return rules.normalize_axes(self.axes_list, len(shape))

    def infer_shape(self, shapes):
        return rules.reduce_shape(shapes[0], self.axes_list, self.keep)

    def verify_(self) -> None:
        if self.axes.elt_type != i64:
            raise VerifyException(f"'{self.name}': axes must be array<i64: ...>")
        super().verify_()


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    """Sum over axes. `%s = aicf_tensor.reduce_sum %x axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.reduce_sum"

    def verify_(self) -> None:
        if element_type(self.input.type) == IntegerType(1):
            raise VerifyException(
                f"'{self.name}': a sum of i1 (bool) values is not defined; cast them to an "
                "integer type first (NumPy counts them as int64)"
            )
        super().verify_()


class _ExtremumOp(ReduceOp, abc.ABC):
    """max and min: NaN-propagating (NumPy's max/min, not fmax/fmin). Where the
    extreme is a zero held with both signs, either sign may come out: vector lanes are
    combined in any order (NumPy's and torch's reductions depend on theirs too)."""

    def verify_(self) -> None:
        super().verify_()
        shape = ranked_shape(self.input.type)
        if shape is not None and any(shape[a] == 0 for a in self.reduced_axes()):
            raise VerifyException(
                f"'{self.name}': reduction over a zero-size axis of {rules.fmt(shape)} "
                "has no identity (NumPy raises here too)"
            )


@irdl_op_definition
class ReduceMaxOp(_ExtremumOp):
    """Maximum over axes (NaN-propagating; of zeros of both signs, either).
    `%m = aicf_tensor.reduce_max %x axes = [0] keepdims : (tensor<4x8xf32>) -> tensor<1x8xf32>`"""

    name = "aicf_tensor.reduce_max"


@irdl_op_definition
class ReduceMinOp(_ExtremumOp):
    """Minimum over axes (NaN-propagating; of zeros of both signs, either).
    `%m = aicf_tensor.reduce_min %x axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.reduce_min"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    """Product over axes; over nothing (a zero-size axis) it is 1. Integers wrap, as
    NumPy's do; i1 values multiply as bits (a logical and).
    `%p = aicf_tensor.reduce_prod %x axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.reduce_prod"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """Arithmetic mean over axes. `%m = aicf_tensor.reduce_mean %x axes = [1] : (tensor<4x8xf32>) -> tensor<4xf32>`"""

    name = "aicf_tensor.reduce_mean"

    def verify_(self) -> None:
        if not is_float(element_type(self.input.type)):
            raise VerifyException(f"'{self.name}': operand must be a float tensor")
        super().verify_()


@irdl_op_definition
class ReduceVarOp(ReduceOp):
    """Variance over axes, numpy.var: mean((x - mean(x))^2) * n / (n - ddof), computed
    in two passes (mean, then the squared deviations). n <= ddof gives inf or NaN, as
    NumPy does (without its warning).

    `%v = aicf_tensor.reduce_var %x axes = [-1] ddof = 1 : (tensor<4x8xf32>) -> tensor<4xf32>`
    """

    name = "aicf_tensor.reduce_var"
    ddof = opt_prop_def(IntegerAttr)
    INT_PROPS: ClassVar[tuple[str, ...]] = ("ddof",)

    def __init__(
        self,
        input: SSAValue | Operation,
        axes: Sequence[int],
        keepdims: bool = False,
        result_type: Attribute | None = None,
        ddof: int = 0,
    ):
        super().__init__(input, axes, keepdims, result_type)
        if ddof:
            self.ddof = IntegerAttr(ddof, i64)

    @property
    def ddof_value(self) -> int:
        return 0 if self.ddof is None else self.ddof.value.data

    def verify_(self) -> None:
        if not is_float(element_type(self.input.type)):
            raise VerifyException(f"'{self.name}': operand must be a float tensor")
        if self.ddof_value < 0:
            raise VerifyException(f"'{self.name}': ddof must be >= 0, got {self.ddof_value}")
        super().verify_()


REDUCE_OPS: tuple[type[ReduceOp], ...] = (
    ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceMeanOp, ReduceVarOp
)


# --- scans -----------------------------------------------------------------------------------


SCAN_MAX_EXTENT = 1 << 14
"""The longest axis a scan takes: it lowers to a nest that folds, for each element, the
elements up to it, in order (a triangle: n^2 / 2 steps),
until the loop level has a scan of its own."""


class ScanOp(ListPropsFormat, TensorOp, abc.ABC):
    """An inclusive scan along `axis` (negative counts from the end): element i is the
    fold of elements 0..i, in order, as NumPy's cumsum and cumprod."""

    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), TensorCanonicalization())
    INT_PROPS: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(self, input: SSAValue | Operation, axis: int, result_type: Attribute | None = None):
        input = SSAValue.get(input)
        super().__init__(
            operands=[input],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    def scan_axis(self) -> int:
        """The axis, non-negative; needs a ranked operand."""
        shape = ranked_shape(self.input.type)
        assert shape is not None
        return rules.normalize_axes((self.axis.value.data,), len(shape))[0]

    def infer_shape(self, shapes):
        rules.normalize_axes((self.axis.value.data,), len(shapes[0]))
        return shapes[0]

    def verify_(self) -> None:
        super().verify_()
        if element_type(self.input.type) == IntegerType(1):
            raise VerifyException(
                f"'{self.name}': a scan of i1 (bool) values is not defined; cast them to an "
                "integer type first (NumPy takes them as int64)"
            )
        shape = ranked_shape(self.input.type)
        if shape is not None and shape[self.scan_axis()] > SCAN_MAX_EXTENT:
            raise VerifyException(
                f"'{self.name}': an axis of {shape[self.scan_axis()]} elements is not supported yet "
                f"(at most {SCAN_MAX_EXTENT}: a scan lowers to a triangle of folds)"
            )


@irdl_op_definition
class CumsumOp(ScanOp):
    """Running sum along axis (numpy.cumsum). The fold starts from +0.0, so a prefix of
    -0.0 only sums to +0.0 (NumPy's starts from the first element: -0.0).
    `%c = aicf_tensor.cumsum %x axis = -1 : (tensor<4x8xf32>) -> tensor<4x8xf32>`"""

    name = "aicf_tensor.cumsum"


@irdl_op_definition
class CumprodOp(ScanOp):
    """Running product along axis (numpy.cumprod). `%c = aicf_tensor.cumprod %x axis = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>`"""

    name = "aicf_tensor.cumprod"


SCAN_OPS: tuple[type[ScanOp], ...] = (CumsumOp, CumprodOp)


# --- contraction -----------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(TensorOp):
    """numpy.matmul: 2-D, 1-D (promoted, then squeezed) and batched with broadcast
    batch dimensions. Accumulates in at least f32.

    `%c = aicf_tensor.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>`
    """

    name = "aicf_tensor.matmul"
    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), TensorCanonicalization())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, $result)"

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type or UnrankedTensorType(element_type(lhs.type))],
        )

    def infer_element_type(self) -> Attribute:
        return dtype_from_name(
            rules.promote_dtypes(
                dtype_name(element_type(self.lhs.type)),
                dtype_name(element_type(self.rhs.type)),
            )
        )

    def infer_shape(self, shapes):
        return rules.matmul_shape(*shapes)


class AttentionProperties:
    """What aicf_tensor.attention and aicf_loop.attention share: the scale, the causal
    flag and the operands' layouts (as transpose's `perm`), and their readers."""

    scale = prop_def(FloatAttr)
    causal = opt_prop_def(UnitAttr)
    q_perm = opt_prop_def(DenseArrayBase)
    k_perm = opt_prop_def(DenseArrayBase)
    v_perm = opt_prop_def(DenseArrayBase)
    PERMS: ClassVar[tuple[str, ...]] = ("q_perm", "k_perm", "v_perm")

    @property
    def scale_value(self) -> float:
        return self.scale.value.data  # type: ignore[attr-defined]

    @property
    def is_causal(self) -> bool:
        return self.causal is not None

    def perms(self) -> tuple[tuple[int, ...] | None, ...]:
        """The layout of Q, K and V (None: as stored)."""
        return tuple(
            None if (p := self.properties.get(n)) is None else tuple(p.get_values())  # type: ignore[attr-defined]
            for n in self.PERMS
        )

    def verify_scale(self) -> str | None:
        """Why the scale is not a finite f64, or None."""
        import math

        if not isinstance(self.scale.type, Float64Type) or not math.isfinite(self.scale_value):  # type: ignore[attr-defined]
            return f"scale must be a finite f64, got {self.scale}"
        # scores of f32, f16 and bf16 operands are computed in f32: a scale past its
        # range became inf there, and every output NaN (aicf-run: FAIL against the
        # f64 reference, which kept it finite)
        get_elt = getattr(self.q.type, "get_element_type", None)  # type: ignore[attr-defined]
        elt = get_elt() if get_elt is not None else None
        if elt is not None and not isinstance(elt, Float64Type) and abs(self.scale_value) > F32_MAX:  # type: ignore[attr-defined]
            return f"scale {self.scale_value:g} overflows f32, in which the scores of {elt} operands are computed"  # type: ignore[attr-defined]
        return None


@irdl_op_definition
class AttentionOp(ListPropsFormat, AttentionProperties, TensorOp):
    """Scaled dot-product attention, softmax(Q K^T * scale + mask) V, as one op.

    `aicf-recognize-attention` builds it from its spellings in separate ops;
    `aicf.ops.attention` and the torch backend's scaled_dot_product_attention emit it.
    Q, K and V are the operands read through their layouts (`q_perm`, `k_perm`,
    `v_perm`, as transpose's `perm`: the op reads transpose(k, k_perm); absent: as
    stored, so K given as [..., D, Sk] has k_perm = [..., r-1, r-2]), of shapes
    [batch..., Sq, D], [batch..., Sk, D] and [batch..., Sk, Dv]:

        s[b, i, j] = scale * sum_d Q[b, i, d] K[b, j, d]
                     + mask[b, i, j]              a float mask: added
                     (-inf where !mask[b, i, j])  an i1 mask: true keeps (torch's bool mask)
                     (-inf where j > i)           `causal`: torch's is_causal (top-left)
        out[b, i, e] = sum_j softmax(s[b, i, :])[j] V[b, j, e]

    A row whose scores are all -inf (masked out entirely) gives 0, as torch's
    scaled_dot_product_attention does (its math backend's safe softmax); so does
    Sk = 0. Scores, softmax and both products are computed in at least f32 (f64 for
    f64): f16 and bf16 operands get f32 softmax accumulation. Q, K and V share one
    float element type, which the result has. Batch dims broadcast (NumPy rules), the
    mask against the scores, which it may not extend along Sq or Sk.

    `%o = aicf_tensor.attention %q, %k, %v scale = 0.125 causal : (tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x64xf16>) -> tensor<2x8x64xf16>`

    `%o = aicf_tensor.attention %q, %kt, %v, %m scale = 0.125 k_perm = [1, 0] : (tensor<8x64xf32>, tensor<64x8xf32>, tensor<8x64xf32>, tensor<8x8xf32>) -> tensor<8x64xf32>`
    """

    name = "aicf_tensor.attention"
    q = operand_def(AnyTensor)
    k = operand_def(AnyTensor)
    v = operand_def(AnyTensor)
    mask = opt_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    FLOAT_PROPS: ClassVar[tuple[str, ...]] = ("scale",)
    LIST_PROPS: ClassVar[tuple[str, ...]] = AttentionProperties.PERMS
    FLAG_PROPS: ClassVar[tuple[str, ...]] = ("causal",)
    FLOAT_TYPES: ClassVar[tuple[str, ...]] = ("f16", "bf16", "f32", "f64")

    def __init__(
        self,
        q: SSAValue | Operation,
        k: SSAValue | Operation,
        v: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        *,
        scale: float,
        causal: bool = False,
        perms: Sequence[Sequence[int] | None] = (None, None, None),
        result_type: Attribute | None = None,
    ):
        q, k, v = SSAValue.get(q), SSAValue.get(k), SSAValue.get(v)
        props: dict[str, Attribute] = {"scale": FloatAttr(float(scale), f64)}
        if causal:
            props["causal"] = UnitAttr()
        for name, perm in zip(self.LIST_PROPS, perms):
            if perm is not None and tuple(perm) != tuple(range(len(perm))):
                props[name] = DenseArrayBase.from_list(i64, list(perm))
        super().__init__(
            operands=[q, k, v, [] if mask is None else [SSAValue.get(mask)]],
            properties=props,
            result_types=[result_type or UnrankedTensorType(element_type(q.type))],
        )

    def infer_shape(self, shapes):
        mask = shapes[3] if len(shapes) > 3 else None
        return rules.attention_shape(shapes[0], shapes[1], shapes[2], mask, self.perms())

    def verify_(self) -> None:
        dtypes = [dtype_name(element_type(x.type)) for x in (self.q, self.k, self.v)]
        if dtypes[0] not in self.FLOAT_TYPES or len(set(dtypes)) > 1:
            raise VerifyException(
                f"'{self.name}': Q, K and V must share one float element type, got "
                f"{', '.join(dtypes)}"
            )
        if self.mask is not None:
            m = dtype_name(element_type(self.mask.type))
            if m != "i1" and m not in self.FLOAT_TYPES:
                raise VerifyException(
                    f"'{self.name}': the mask must be i1 (true keeps) or a float tensor "
                    f"(added to the scores), got {m}"
                )
        if (why := self.verify_scale()) is not None:
            raise VerifyException(f"'{self.name}': {why}")
        super().verify_()


# --- layout ----------------------------------------------------------------------------------


@irdl_op_definition
class ReshapeOp(ListPropsFormat, TensorOp):
    """numpy.reshape (row-major). `shape` may hold one -1; without `shape` the result
    type gives the new shape.

    `%y = aicf_tensor.reshape %x shape = [4, -1] : (tensor<4x2x4xf32>) -> tensor<4x8xf32>`
    """

    name = "aicf_tensor.reshape"
    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    shape = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TensorCanonicalization())
    LIST_PROPS: ClassVar[tuple[str, ...]] = ("shape",)

    def __init__(
        self,
        input: SSAValue | Operation,
        shape: Sequence[int] | None = None,
        result_type: Attribute | None = None,
    ):
        input = SSAValue.get(input)
        props = {}
        if shape is not None:
            props["shape"] = DenseArrayBase.from_list(i64, list(shape))
        super().__init__(
            operands=[input],
            properties=props,
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    def target_shape(self) -> tuple[int, ...] | None:
        if self.shape is not None:
            return tuple(self.shape.get_values())
        return ranked_shape(self.result.type)

    def infer_shape(self, shapes):
        target = self.target_shape()
        if target is None:
            raise rules.ShapeError("reshape needs a `shape` or a ranked result type")
        return rules.reshape_shape(shapes[0], target)

    def verify_(self) -> None:
        if self.shape is None and ranked_shape(self.result.type) is None:
            raise VerifyException(
                f"'{self.name}': needs a `shape` property or a ranked result type"
            )
        super().verify_()


@irdl_op_definition
class TransposeOp(ListPropsFormat, TensorOp):
    """numpy.transpose with an explicit permutation: result dim i is operand dim perm[i].

    `%y = aicf_tensor.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>`
    """

    name = "aicf_tensor.transpose"
    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    perm = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TensorCanonicalization())
    LIST_PROPS: ClassVar[tuple[str, ...]] = ("perm",)

    def __init__(
        self,
        input: SSAValue | Operation,
        perm: Sequence[int],
        result_type: Attribute | None = None,
    ):
        input = SSAValue.get(input)
        super().__init__(
            operands=[input],
            properties={"perm": DenseArrayBase.from_list(i64, list(perm))},
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    @property
    def perm_list(self) -> tuple[int, ...]:
        return tuple(self.perm.get_values())

    def infer_shape(self, shapes):
        return rules.transpose_shape(shapes[0], self.perm_list)


@irdl_op_definition
class BroadcastToOp(ListPropsFormat, TensorOp):
    """numpy.broadcast_to. `shape` gives the target; without it the result type does.

    `%y = aicf_tensor.broadcast_to %x shape = [4, 8] : (tensor<8xf32>) -> tensor<4x8xf32>`
    """

    name = "aicf_tensor.broadcast_to"
    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    shape = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TensorCanonicalization())
    LIST_PROPS: ClassVar[tuple[str, ...]] = ("shape",)

    def __init__(
        self,
        input: SSAValue | Operation,
        shape: Sequence[int],
        result_type: Attribute | None = None,
    ):
        input = SSAValue.get(input)
        super().__init__(
            operands=[input],
            properties={"shape": DenseArrayBase.from_list(i64, list(shape))},
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    def target_shape(self) -> tuple[int, ...] | None:
        if self.shape is not None:
            return tuple(self.shape.get_values())
        return ranked_shape(self.result.type)

    def infer_shape(self, shapes):
        target = self.target_shape()
        if target is None:
            raise rules.ShapeError("broadcast_to needs a `shape` or a ranked result type")
        return rules.broadcast_to_shape(shapes[0], target)

    def verify_(self) -> None:
        if self.shape is None and ranked_shape(self.result.type) is None:
            raise VerifyException(
                f"'{self.name}': needs a `shape` property or a ranked result type"
            )
        super().verify_()


@irdl_op_definition
class SliceOp(ListPropsFormat, TensorOp):
    """A static strided slice (x[a:b:c, ...]), one start, stop and step per axis, in the
    normalised form of Python's `slice.indices` (see `shape_rules.slice_shape`); a
    negative step walks backwards. A view: the lowering reads the operand through the
    map d -> start + step * d, and the consumers of the copy read through it instead
    (aicf-fold-view-copies).

    `%y = aicf_tensor.slice %x start = [0, 7] stop = [4, -1] step = [2, -1] : (tensor<4x8xf32>) -> tensor<2x8xf32>`
    """

    name = "aicf_tensor.slice"
    input = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    start = prop_def(DenseArrayBase)
    stop = prop_def(DenseArrayBase)
    step = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TensorCanonicalization())
    LIST_PROPS: ClassVar[tuple[str, ...]] = ("start", "stop", "step")

    def __init__(
        self,
        input: SSAValue | Operation,
        start: Sequence[int],
        stop: Sequence[int],
        step: Sequence[int],
        result_type: Attribute | None = None,
    ):
        input = SSAValue.get(input)
        props = {
            k: DenseArrayBase.from_list(i64, list(v))
            for k, v in (("start", start), ("stop", stop), ("step", step))
        }
        super().__init__(
            operands=[input],
            properties=props,
            result_types=[result_type or UnrankedTensorType(element_type(input.type))],
        )

    def bounds(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        return tuple(
            tuple(p.get_values()) for p in (self.start, self.stop, self.step)
        )  # type: ignore[return-value]

    def infer_shape(self, shapes):
        return rules.slice_shape(shapes[0], *self.bounds())


@irdl_op_definition
class ConcatenateOp(ListPropsFormat, TensorOp):
    """numpy.concatenate along `axis` (negative counts from the end): operands of one
    rank and element type, equal extents off the axis.

    `%y = aicf_tensor.concatenate %a, %b axis = 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>`
    """

    name = "aicf_tensor.concatenate"
    inputs = var_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    INT_PROPS: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        axis: int,
        result_type: Attribute | None = None,
    ):
        values = [SSAValue.get(v) for v in inputs]
        super().__init__(
            operands=[values],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[result_type or UnrankedTensorType(element_type(values[0].type))],
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def normalized_axis(self) -> int:
        shape = ranked_shape(self.result.type) or ranked_shape(self.inputs[0].type)
        assert shape is not None
        return self.axis_value % len(shape)

    def infer_shape(self, shapes):
        return rules.concatenate_shape(shapes, self.axis_value)

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException(f"'{self.name}': needs at least one operand")
        types = {element_type(v.type) for v in self.inputs}
        if len(types) > 1:
            raise VerifyException(
                f"'{self.name}': operands have different element types "
                f"({', '.join(sorted(str(t) for t in types))}); cast them first"
            )
        super().verify_()


@irdl_op_definition
class TakeOp(ListPropsFormat, TensorOp):
    """numpy.take(source, indices, axis) with integer (i32 or i64) indices: the result is
    source's shape with `axis` replaced by the indices' shape (an embedding lookup is
    a take along axis 0). Indices are checked at no point of the run; as JAX's gather
    does, a negative index counts from the end once (-1 is the last) and what is still
    out of range is clamped into [0, n - 1]. NumPy raises there instead.

    `%y = aicf_tensor.take %wte, %ids axis = 0 : (tensor<50x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>`
    """

    name = "aicf_tensor.take"
    source = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    INT_PROPS: ClassVar[tuple[str, ...]] = ("axis",)
    INDEX_TYPES: ClassVar[tuple[str, ...]] = ("i32", "i64")

    def __init__(
        self,
        source: SSAValue | Operation,
        indices: SSAValue | Operation,
        axis: int,
        result_type: Attribute | None = None,
    ):
        source, indices = SSAValue.get(source), SSAValue.get(indices)
        super().__init__(
            operands=[source, indices],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[result_type or UnrankedTensorType(element_type(source.type))],
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def normalized_axis(self) -> int:
        shape = ranked_shape(self.source.type)
        assert shape is not None
        return self.axis_value % len(shape)

    def infer_shape(self, shapes):
        return rules.take_shape(shapes[0], shapes[1], self.axis_value)

    def verify_(self) -> None:
        idx = dtype_name(element_type(self.indices.type))
        if idx not in self.INDEX_TYPES:
            raise VerifyException(
                f"'{self.name}': indices must be an integer tensor (i32 or i64), got "
                f"{self.indices.type}"
            )
        super().verify_()


# --- fusion groups ------------------------------------------------------------------------


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A group of tensor ops that `aicf-fuse` decided to run as one kernel.

    The region is isolated from above: its block arguments stand for the group's
    inputs, and `aicf_tensor.yield` gives the group's results (values used outside the
    group). The lowering turns the group into one loop nest (an elementwise chain, or a
    reduction with its elementwise prologue) or one row-wise group of nests sharing
    their leading parallel dims (softmax, layer norm).

    Example:

        %y = aicf_tensor.fused ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
        ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
          %0 = aicf_tensor.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
          %1 = aicf_tensor.sin %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
          %2 = aicf_tensor.reduce_sum %1 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
          aicf_tensor.yield %2 : tensor<4xf32>
        }
    """

    name = "aicf_tensor.fused"
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    body = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove())

    def __init__(
        self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region
    ):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)], regions=[body])

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(
                f"'{self.name}': {len(block.args)} block arguments for "
                f"{len(self.inputs)} inputs"
            )
        for arg, v in zip(block.args, self.inputs):
            if arg.type != v.type:
                raise VerifyException(
                    f"'{self.name}': block argument type {arg.type} differs from "
                    f"input type {v.type}"
                )
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException(f"'{self.name}': body must end with aicf_tensor.yield")
        if tuple(term.values.types) != tuple(self.outputs.types):
            raise VerifyException(
                f"'{self.name}': yielded types ({', '.join(map(str, term.values.types))}) "
                f"differ from result types ({', '.join(map(str, self.outputs.types))})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        if self.inputs:
            printer.print_list(self.inputs, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.inputs.types, printer.print_attribute)
        printer.print_string(") -> ")
        if len(self.outputs) == 1:
            printer.print_attribute(self.outputs.types[0])
        else:
            printer.print_string("(")
            printer.print_list(self.outputs.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body)

    @classmethod
    def parse(cls, parser: Parser) -> FusedOp:
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        names, types = [], []
        if not parser.parse_optional_punctuation(")"):
            names = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_type
            )
            parser.parse_punctuation(")")
        inputs = [parser.resolve_operand(n, t) for n, t in zip(names, types)]
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("("):
            results = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_type
            )
            parser.parse_punctuation(")")
        else:
            results = [parser.parse_type()]
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        return attach_attributes(cls(inputs, results, body), dict(attrs.data) if attrs else {})


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends an `aicf_tensor.fused` region with the group's results.

    `aicf_tensor.yield %a, %b : tensor<4xf32>, tensor<4x8xf32>`
    """

    name = "aicf_tensor.yield"
    values = var_operand_def(AnyTensor)
    traits = traits_def(IsTerminator(), HasParent(FusedOp), Pure())
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


AICFTensor = Dialect(
    "aicf_tensor",
    [
        *UNARY_OPS,
        *BINARY_OPS,
        SelectOp,
        ConstantOp,
        CastOp,
        IotaOp,
        *REDUCE_OPS,
        *SCAN_OPS,
        MatmulOp,
        AttentionOp,
        ReshapeOp,
        TransposeOp,
        BroadcastToOp,
        SliceOp,
        ConcatenateOp,
        TakeOp,
        FusedOp,
        YieldOp,
    ],
    [],
)
