"""The `aicf_loop` dialect: loop nests over buffers, with no kernel names.

A program at this level is a `func.func` over memrefs (destination-passing style: the
tensor results became trailing output arguments) whose body allocates intermediates
with `memref.alloc` and runs `aicf_loop.nest` ops in order.

A nest states the whole computation of one (fused) tensor op:
- the iteration domain (static extents) and, for each dimension, whether it is
  `parallel` or a `reduction`;
- for each operand, an affine access map from the domain to the memref's indices, so
  broadcasting (a dim left out), transposition (a permutation) and reshapes
  (floordiv/mod) are explicit;
- a scalar body in `arith`/`math` that receives one element of every input and yields
  one value per output;
- for each output, a combiner: `none` (the yielded value is stored), or `add`, `max`,
  `min`, `mul`, which fold the yielded values over the reduction dims, starting from
  the combiner's identity, and store the result once. The yielded value's type is the
  accumulator type; it is converted to the output's element type when stored;
- optionally a `guard`, an affine integer set of one form only, `B - dj >= 0` with dj
  the outermost reduction dim and B affine in the parallel dims before it (no
  floordiv, mod or symbols): dj then runs over [0, min(extent, B + 1)) at each point
  of those dims (the ragged last chunk of a split reduction,
  passes/loop/split_reductions.py). Accesses are checked inside the guard; B + 1 must
  fit 64-bit integers. The C emitter, gpu.rows and gpu.per_output walk the guarded dim
  to its bound; BLAS, the other GPU kinds and aicf-to-upstream refuse a guarded nest.

This is what tiling, the cost model and the GPU lowering read: everything they need
(extents, which dims reduce, how each buffer is walked) is in the op.

Example, `sum(x + b, axis=-1)` for x: 4x8, b: 8:

    aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
        ins(%x, %b : memref<4x8xf32>, memref<8xf32>)
        outs(%y : memref<4xf32>)
        maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1), (d0, d1) -> (d0)]
        combiners = [add] {
    ^bb0(%a : f32, %c : f32):
      %s = arith.addf %a, %c : f32
      aicf_loop.yield %s : f32
    }
"""

from __future__ import annotations

import functools

from collections.abc import Sequence
from enum import Enum
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineConstraintExpr, AffineConstraintKind, AffineDimExpr, AffineExpr, AffineMap, AffineSet
from xdsl.irdl import (
    IRDLOperation,
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    is_side_effect_free,
)
from xdsl.utils.exceptions import VerifyException

from aicf.dialects.affine_intervals import INT64, DivisionByZero, expr_range, first_outside, linear_form
from aicf.dialects.tensor import AttentionProperties, attach_attributes
from aicf.errors import VerifyAtOp


class Iterator(str, Enum):
    PARALLEL = "parallel"
    REDUCTION = "reduction"


class Combiner(str, Enum):
    """How the values yielded for one output are combined over the reduction dims."""

    NONE = "none"
    ADD = "add"
    MAX = "max"
    MIN = "min"
    MUL = "mul"

    def identity(self, is_float: bool, int_width: int = 32) -> float | int:
        """The value the fold starts from (for integers of `int_width` bits)."""
        if self is Combiner.ADD:
            return 0.0 if is_float else 0
        if self is Combiner.MUL:
            return 1.0 if is_float else 1
        if self is Combiner.MAX:
            return float("-inf") if is_float else -(2 ** (int_width - 1))
        if self is Combiner.MIN:
            return float("inf") if is_float else 2 ** (int_width - 1) - 1
        raise ValueError("the `none` combiner has no identity")


class RaggedBound:
    """A guard `bound - d<dim> >= 0`: reduction dim `dim` runs to min(extent, bound + 1),
    `bound` affine in the parallel dims before it."""

    __slots__ = ("dim", "bound")

    def __init__(self, dim: int, bound: AffineExpr):
        self.dim, self.bound = dim, bound

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RaggedBound) and (self.dim, str(self.bound)) == (other.dim, str(other.bound))

    def __hash__(self) -> int:
        return hash((self.dim, str(self.bound)))

    def to_set(self, ndims: int) -> AffineSet:
        return AffineSet(ndims, 0, (AffineConstraintExpr(
            AffineConstraintKind.ge, self.bound - AffineDimExpr(self.dim), AffineExpr.constant(0)),))

    def within(self, ndims: int, expr: AffineExpr) -> AffineExpr:
        """`expr` with the bounded dim at its largest value, the bound (for ranges)."""
        dims = [AffineDimExpr(k) for k in range(ndims)]
        dims[self.dim] = self.bound
        return expr.replace_dims_and_symbols(dims, [])


def from_linear_form(coefs: dict[int, int], const: int) -> AffineExpr:
    """sum(coef * d) + const, like terms collected (interval analysis does not cancel
    d1 * 252 - d1 * 252)."""
    e: AffineExpr = AffineExpr.constant(const)
    for d, v in sorted(coefs.items()):
        if v:
            e = e + AffineDimExpr(d) * v
    return e


def ragged_bound(g: AffineSet, iterators: Sequence[Iterator]) -> RaggedBound | str:
    """The one guard form nests take, or what is wrong with `g` (see the module
    docstring)."""
    if len(g.constraints) != 1 or g.constraints[0].kind is not AffineConstraintKind.ge:
        return "must be one `>= 0` constraint"
    c = g.constraints[0]
    lf = linear_form(c.lhs - c.rhs)
    red = [d for d, it in enumerate(iterators) if it is Iterator.REDUCTION]
    if lf is None or not red:
        return "must bound the outermost reduction dim by an affine sum of parallel dims"
    coefs, const = lf
    j = red[0]
    if coefs.get(j) != -1 or any(v and d > j for d, v in coefs.items()):
        return (f"must be `B - d{j} >= 0` for the outermost reduction dim d{j}, with B affine "
                f"in the parallel dims before it")
    return RaggedBound(j, from_linear_form({d: v for d, v in coefs.items() if d != j}, const))


def _guarded_parts(e: AffineExpr, guard: RaggedBound, box: list[tuple[int, int]],
                   parts: list[tuple[int, int]]) -> AffineExpr:
    """`e` with each largest linear subexpression that reads the guarded dim made a new
    dim (numbered after the domain's, its range appended to `parts`): a linear value is
    monotone in the bounded dim, so over the points inside the guard it is extreme at
    the bound, and interval analysis of what is computed from it (a floordiv or mod of
    a folded view) starts from that range instead of the unguarded box's."""
    lf = linear_form(e)
    if lf is not None:
        coef = lf[0].get(guard.dim, 0)
        rng = expr_range(e, box)
        if not coef or rng is None:
            return e
        at = expr_range(from_linear_form(*linear_form(guard.within(len(box), e))), box)  # type: ignore[misc]
        if at is not None:
            rng = (max(rng[0], at[0]), rng[1]) if coef < 0 else (rng[0], min(rng[1], at[1]))
        parts.append(rng)
        return AffineDimExpr(len(box) + len(parts) - 1)
    if isinstance(e, AffineBinaryOpExpr):
        return AffineBinaryOpExpr(e.kind, _guarded_parts(e.lhs, guard, box, parts),
                                  _guarded_parts(e.rhs, guard, box, parts))
    return e


@functools.lru_cache(maxsize=4096)
def _verify_in_bounds(i: int, m: AffineMap, t: MemRefType, extents: tuple[int, ...],
                      guard: RaggedBound | None = None) -> None:
    """Every index map #i produces over the domain (inside the guard) lies inside the
    buffer of type t, and every value the emitted code computes on the way fits its
    64-bit integers.
    (Memoised: a program repeats a few nests many times, and the interval analysis is
    a good part of verifying one; a failure raises, so it is never kept.)"""
    if 0 in extents:  # an empty domain accesses nothing
        return
    box = [(0, e - 1) for e in extents]
    for d, (r, size) in enumerate(zip(m.results, t.get_shape())):
        try:
            if guard is None:
                rng = expr_range(r, box)
            else:  # each linear part that reads the bounded dim, as one value of its guarded range
                parts: list[tuple[int, int]] = []
                rng = expr_range(_guarded_parts(r, guard, box, parts), [*box, *parts])
            # the emitters compute every subexpression in 64-bit integers (int64_t on
            # the cpu target), where an exact range past 2^63 would have wrapped
            wraps = first_outside(r, box, INT64)
        except DivisionByZero:
            raise VerifyException(f"map #{i} ({m}) divides by 0") from None
        if wraps is not None:
            sub, value = wraps
            raise VerifyException(
                f"map #{i} ({m}) overflows 64-bit index arithmetic: {sub} reaches "
                f"{value} in result {d} over the domain {list(extents)}"
            )
        if rng is None or size < 0:  # not bounded by this analysis / dynamic extent
            continue
        bad = rng[0] if rng[0] < 0 else rng[1] if rng[1] >= size else None
        if bad is not None:
            raise VerifyException(
                f"map #{i} ({m}) may reach index {bad} of dim {d} of {t} (extent {size}) "
                f"over the domain {list(extents)}"
            )


def _verify_aliasing(nest: NestOp) -> None:
    """An output buffer is one output, and an input that is also an output is read
    where it is written (elementwise in place); anything else reads elements another
    iteration has overwritten, in an order the schedule decides."""
    outs = list(nest.outputs)
    for k, v in enumerate(outs):
        if v in outs[:k]:
            raise VerifyException(f"output #{k} is output #{outs.index(v)} again ({v.type})")
    for i, (v, m) in enumerate(zip(nest.inputs, nest.input_maps)):
        if v in outs and nest.output_maps[outs.index(v)] != m:
            k = outs.index(v)
            raise VerifyException(
                f"input #{i} is output #{k} but read through map {m}, written through "
                f"{nest.output_maps[k]}: in place, the maps must be the same"
            )


class NestMemoryEffect(RecursiveMemoryEffect):
    """A nest reads its inputs and writes its outputs (on top of its body's effects,
    none for scalar arith/math): it has no results, so without these, canonicalize,
    cse and dce would delete it."""

    @classmethod
    def get_effects(cls, op: Operation):
        effects = super().get_effects(op)
        if effects is None:
            return None
        nest = cast(NestOp, op)
        return {
            *effects,
            *(EffectInstance(MemoryEffectKind.READ, v) for v in nest.inputs),
            *(EffectInstance(MemoryEffectKind.WRITE, v) for v in nest.outputs),
        }


@functools.lru_cache(maxsize=4096)
def _i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    """A nest's domain attribute, built once per domain (xDSL's generic constructor
    is a good part of building a nest; attributes are immutable, so one is shared)."""
    return DenseArrayBase.from_list(i64, list(values))


@irdl_op_definition
class NestOp(IRDLOperation):
    """A loop nest over a static iteration domain with explicit access maps.

    See the module docstring for the semantics and an example. Outputs are written
    exactly once per distinct index (after folding, for reductions); inputs are only
    read. An input may not alias an output unless every access map pair is identical
    (elementwise, in place).
    """

    name = "aicf_loop.nest"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    domain = prop_def(DenseArrayBase)
    iterator_types = prop_def(ArrayAttr[StringAttr])
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    combiners = prop_def(ArrayAttr[StringAttr])
    guard = opt_prop_def(AffineSetAttr)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(NestMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        domain: Sequence[int],
        iterators: Sequence[Iterator | str],
        maps: Sequence[AffineMap],
        combiners: Sequence[Combiner | str],
        body: Region,
        guard: AffineSet | None = None,
    ):
        super().__init__(
            operands=[list(inputs), list(outputs)],
            properties={
                "domain": _i64_array(tuple(domain)),
                "iterator_types": ArrayAttr([StringAttr(Iterator(i).value) for i in iterators]),
                "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in maps]),
                "combiners": ArrayAttr([StringAttr(Combiner(c).value) for c in combiners]),
                **({"guard": AffineSetAttr(guard)} if guard is not None else {}),
            },
            regions=[body],
        )

    # --- convenient views -------------------------------------------------------------

    @property
    def extents(self) -> tuple[int, ...]:
        return tuple(self.domain.get_values())

    @property
    def iterators(self) -> tuple[Iterator, ...]:
        return tuple(Iterator(a.data) for a in self.iterator_types)

    @property
    def maps(self) -> tuple[AffineMap, ...]:
        return tuple(m.data for m in self.indexing_maps)

    @property
    def input_maps(self) -> tuple[AffineMap, ...]:
        return self.maps[: len(self.inputs)]

    @property
    def output_maps(self) -> tuple[AffineMap, ...]:
        return self.maps[len(self.inputs) :]

    @property
    def combiner_kinds(self) -> tuple[Combiner, ...]:
        return tuple(Combiner(c.data) for c in self.combiners)

    @property
    def parallel_dims(self) -> tuple[int, ...]:
        return tuple(i for i, it in enumerate(self.iterators) if it is Iterator.PARALLEL)

    @property
    def reduction_dims(self) -> tuple[int, ...]:
        return tuple(i for i, it in enumerate(self.iterators) if it is Iterator.REDUCTION)

    @property
    def is_reduction(self) -> bool:
        return bool(self.reduction_dims)

    @property
    def yield_op(self) -> YieldOp:
        term = self.body.block.last_op
        assert isinstance(term, YieldOp)
        return term

    def num_points(self) -> int:
        n = 1
        for e in self.extents:
            n *= e
        return n

    @property
    def guard_set(self) -> AffineSet | None:
        return self.guard.data if self.guard is not None else None

    @property
    def ragged_bound(self) -> RaggedBound | None:
        """The guard as a bound on its reduction dim (verified to be one)."""
        g = self.guard_set
        if g is None:
            return None
        rb = ragged_bound(g, self.iterators)
        assert isinstance(rb, RaggedBound), rb
        return rb

    # --- verification -------------------------------------------------------------------

    def verify_(self) -> None:
        from aicf.dialects.schedule import verify_schedule

        verify_schedule(self, "nest")
        # the operand views are built anew at each access (xDSL): once here
        inputs, outputs = self.inputs, self.outputs
        extents = self.extents
        ndims = len(extents)
        if any(e < 0 for e in extents):
            raise VerifyException(f"domain extents must be >= 0, got {list(extents)}")
        if len(self.iterator_types) != ndims:
            raise VerifyException(
                f"expected {ndims} iterator types for a {ndims}-d domain, "
                f"got {len(self.iterator_types)}"
            )
        for it in self.iterator_types:
            if it.data not in Iterator._value2member_map_:
                raise VerifyException(f"unknown iterator type '{it.data}'")
        nops = len(inputs) + len(outputs)
        if len(self.indexing_maps) != nops:
            raise VerifyException(
                f"expected {nops} indexing maps (one per input and output), "
                f"got {len(self.indexing_maps)}"
            )
        guard = None
        if self.guard is not None:
            g = self.guard.data
            if g.num_dims != ndims or g.num_symbols != 0:
                raise VerifyException(f"guard ({g}) must have {ndims} dims and no symbols")
            guard = ragged_bound(g, self.iterators)
            if isinstance(guard, str):
                raise VerifyException(f"guard ({g}) {guard}")
            # the emitters compute the loop's end, bound + 1, in 64-bit integers too: a
            # bound that wraps there would end the loop at a wrong point, silently
            wraps = (first_outside(guard.bound + 1, [(0, e - 1) for e in extents], INT64)
                     if 0 not in extents else None)
            if wraps is not None:
                raise VerifyException(f"guard ({g}) overflows 64-bit index arithmetic: {wraps[0]} "
                                      f"(in the loop's end, bound + 1) reaches {wraps[1]} over the "
                                      f"domain {list(extents)}")
        for i, (operand, m) in enumerate(zip((*inputs, *outputs), self.maps)):
            assert isinstance(operand.type, MemRefType)
            if m.num_dims != ndims or m.num_symbols != 0:
                raise VerifyException(
                    f"map #{i} ({m}) must have {ndims} dims and no symbols"
                )
            if len(m.results) != operand.type.get_num_dims():
                raise VerifyException(
                    f"map #{i} ({m}) has {len(m.results)} results for a rank-"
                    f"{operand.type.get_num_dims()} operand {operand.type}"
                )
            _verify_in_bounds(i, m, operand.type, extents, guard)
        if len(self.combiners) != len(outputs):
            raise VerifyException(
                f"expected {len(outputs)} combiners, got {len(self.combiners)}"
            )
        for c in self.combiners:
            if c.data not in Combiner._value2member_map_:
                raise VerifyException(f"unknown combiner '{c.data}'")
        red = set(self.reduction_dims)
        parallel = self.parallel_dims
        for k, (c, m) in enumerate(zip(self.combiner_kinds, self.output_maps)):
            if red and c is Combiner.NONE:
                raise VerifyException(
                    f"output #{k} needs a combiner: the nest has reduction dims"
                )
            if not red and c is not Combiner.NONE:
                raise VerifyException(
                    f"output #{k} has combiner '{c.value}' but the nest has no reduction dims"
                )
            if m.used_dims() & red:
                raise VerifyException(
                    f"output #{k} map {m} uses a reduction dim"
                )
            # written exactly once per index: a parallel dim the map leaves out would
            # store `extent` values (in any order, racing) at one element
            unused = [d for d in parallel if extents[d] > 1 and d not in m.used_dims()]
            if unused:
                raise VerifyException(
                    f"output #{k} map {m} leaves out parallel dim d{unused[0]} (extent "
                    f"{extents[unused[0]]}): each element would be written {extents[unused[0]]} times"
                )
        _verify_aliasing(self)
        block = self.body.block
        if len(block.args) != len(inputs):
            raise VerifyException(
                f"body takes {len(block.args)} arguments, expected one per input "
                f"({len(inputs)})"
            )
        for arg, operand in zip(block.args, inputs):
            elt = operand.type.get_element_type()  # type: ignore[union-attr]
            if arg.type != elt:
                raise VerifyException(
                    f"body argument type {arg.type} does not match input element type {elt}"
                )
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("body must end with aicf_loop.yield")
        for op in block.ops:  # arith and math are pure in MLIR (xDSL misses extsi, remui)
            if op is not term and op.name.split(".")[0] not in ("arith", "math") and not is_side_effect_free(op):
                raise VerifyAtOp(op, "has memory effects: the body of an aicf_loop.nest is "
                                 "scalar code without any")
        if len(term.values) != len(outputs):
            raise VerifyException(
                f"yield has {len(term.values)} values, expected one per output "
                f"({len(outputs)})"
            )
        for v, out, c in zip(term.values, outputs, self.combiner_kinds):
            elt = out.type.get_element_type()  # type: ignore[union-attr]
            if c is Combiner.NONE and v.type != elt:
                raise VerifyException(
                    f"yielded {v.type} for an output of element type {elt}"
                )
            if not isinstance(v.type, AnyFloat | IntegerType):
                raise VerifyException(f"yielded a non-scalar type {v.type}")
            if c is not Combiner.NONE and isinstance(v.type, AnyFloat) != isinstance(elt, AnyFloat):
                # the accumulator is converted to the output by a plain cast, undefined
                # in C for a float past the integer's range (3e10 into i32 was INT_MIN)
                raise VerifyException(
                    f"yielded {v.type} accumulates into an output of element type {elt}: "
                    "the accumulator and the output must both be floats or both integers"
                )

    # --- assembly format ------------------------------------------------------------------

    _WORDS: ClassVar[tuple[str, ...]] = ("domain", "iterators", "ins", "outs", "maps", "combiners", "guard")

    def print(self, printer: Printer) -> None:
        printer.print_string(" domain = [")
        printer.print_list(self.extents, lambda e: printer.print_string(str(e)))
        printer.print_string("] iterators = [")
        printer.print_list(self.iterators, lambda i: printer.print_string(i.value))
        printer.print_string("]")
        with printer.indented():
            for word, vals in (("ins", self.inputs), ("outs", self.outputs)):
                if vals:
                    printer.print_string(f"\n{word}(")
                    printer.print_list(vals, printer.print_ssa_value)
                    printer.print_string(" : ")
                    printer.print_list([v.type for v in vals], printer.print_attribute)
                    printer.print_string(")")
            printer.print_string("\nmaps = [")
            printer.print_list(self.maps, lambda m: printer.print_string(str(m)))
            printer.print_string("]")
            if any(c is not Combiner.NONE for c in self.combiner_kinds):
                printer.print_string("\ncombiners = [")
                printer.print_list(
                    self.combiner_kinds, lambda c: printer.print_string(c.value)
                )
                printer.print_string("]")
            if self.guard is not None:
                printer.print_string(f"\nguard = {self.guard.data}")
        extra = {k: v for k, v in self.attributes.items()}
        if extra:
            printer.print_string(" attrs = ")
            printer.print_attr_dict(extra)
        printer.print_string(" ")
        printer.print_region(self.body)

    @classmethod
    def parse(cls, parser: Parser) -> NestOp:
        def ident_list() -> list[str]:
            return parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, parser.parse_identifier
            )

        def operand_group() -> list[SSAValue]:
            parser.parse_punctuation("(")
            names = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_type
            )
            parser.parse_punctuation(")")
            if len(names) != len(types):
                parser.raise_error(f"{len(names)} operands but {len(types)} types")
            return [parser.resolve_operand(n, t) for n, t in zip(names, types)]

        parser.parse_keyword("domain")
        parser.parse_punctuation("=")
        domain = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, lambda: parser.parse_integer(False)
        )
        parser.parse_keyword("iterators")
        parser.parse_punctuation("=")
        pos = parser.pos
        iterators = ident_list()
        for it in iterators:
            if it not in Iterator._value2member_map_:
                parser.raise_error(
                    f"unknown iterator type '{it}' (expected parallel or reduction)",
                    pos,
                    parser.pos,
                )
        inputs = operand_group() if parser.parse_optional_keyword("ins") else []
        outputs = operand_group() if parser.parse_optional_keyword("outs") else []
        parser.parse_keyword("maps")
        parser.parse_punctuation("=")
        maps = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_affine_map
        )
        combiners = ["none"] * len(outputs)
        if parser.parse_optional_keyword("combiners"):
            parser.parse_punctuation("=")
            pos = parser.pos
            combiners = ident_list()
            for c in combiners:
                if c not in Combiner._value2member_map_:
                    parser.raise_error(f"unknown combiner '{c}'", pos, parser.pos)
        guard = None
        if parser.parse_optional_keyword("guard"):
            parser.parse_punctuation("=")
            guard = parser.parse_affine_set()
        attrs = {}
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            attrs = parser.parse_optional_attr_dict()
        body = parser.parse_region()
        return attach_attributes(cls(inputs, outputs, domain, iterators, maps, combiners, body, guard), attrs)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a nest's body: one value per output of the nest.

    `aicf_loop.yield %v : f32`
    """

    name = "aicf_loop.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(NestOp), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class GroupOp(IRDLOperation):
    """Nests that share their leading parallel dims, run in order (a fused row group).

    The region holds `aicf_loop.nest` ops and the `memref.alloc`/`memref.dealloc` of
    group-local buffers. `shared = [e0, ..., ek-1]` names the leading dims every member
    nest has in common. The semantics is plain: run the member nests in order (always a
    correct implementation). The verifier guarantees more, so that an implementation may
    instead run the whole group once per point of the shared dims (one GPU block per
    row, one CPU thread per slab of rows), keeping group-local buffers in registers or
    shared memory:
    - every member nest's domain begins with the shared extents, as parallel dims;
    - a buffer that a member nest writes and another member nest accesses is sliced by
      the shared dims identically in every access: each shared dim d_i appears as a
      bare index at the same position of every map on it, and no other index uses it;
    - group-local buffers (allocated in the group) are indexed only by the shared dims
      (every other index is a constant).

    Example, softmax over the last axis of a 4x8 input:

        aicf_loop.group shared = [4] {
          %m = memref.alloc() : memref<4xf32>
          aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
              ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>)
              maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)] combiners = [max] {...}
          %s = memref.alloc() : memref<4xf32>
          aicf_loop.nest domain = [4, 8] iterators = [parallel, reduction]
              ins(%x, %m : memref<4x8xf32>, memref<4xf32>) outs(%s : memref<4xf32>)
              maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0)]
              combiners = [add] {...}  // exp(x - m)
          aicf_loop.nest domain = [4, 8] iterators = [parallel, parallel]
              ins(%x, %m, %s : ...) outs(%y : memref<4x8xf32>) maps = [...] {...}
          memref.dealloc %m : memref<4xf32>
          memref.dealloc %s : memref<4xf32>
        }
    """

    name = "aicf_loop.group"

    shared = prop_def(DenseArrayBase)
    body = region_def("single_block")

    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(self, shared: Sequence[int], body: Region):
        super().__init__(
            properties={"shared": _i64_array(tuple(shared))},
            regions=[body],
        )

    @property
    def shared_extents(self) -> tuple[int, ...]:
        return tuple(self.shared.get_values())

    @property
    def nests(self) -> tuple[NestOp, ...]:
        return tuple(op for op in self.body.block.ops if isinstance(op, NestOp))

    def slice_locals(self) -> dict[SSAValue, set[int]] | str:
        """The group-local buffers and, for each, the positions its shared dims index,
        when the group can run one slice of its shared dims at a time (each slice
        running every member, its group-local values private to the slice); else why it
        cannot:
        - a member that, with the shared dims fixed, still has a parallel dim inside a
          reduced dim (it accumulates into a whole buffer);
        - a group-local buffer used after the group."""
        from xdsl.dialects import memref
        from xdsl.ir.affine import AffineDimExpr

        k = len(self.shared_extents)
        if k == 0:
            return "no shared dims"
        for nest in self.nests:
            red = nest.reduction_dims
            if red and any(d not in red for d in range(red[0], len(nest.extents))):
                return f"{nest.name} has a parallel dim inside a reduced one"
        inside = set(self.body.block.ops)
        out: dict[SSAValue, set[int]] = {}
        for op in self.body.block.ops:
            if not isinstance(op, memref.AllocOp):
                continue
            v = op.memref
            if any(u.operation not in inside for u in v.uses):
                return "a group-local buffer is used after the group"
            out[v] = set()
        # one walk over the members' operands (not one per buffer: a group of n
        # reductions has about n buffers and n members)
        for nest in self.nests:
            for operand, m in zip((*nest.inputs, *nest.outputs), nest.maps):
                sliced = out.get(operand)
                if sliced is not None:
                    sliced |= {p for p, e in enumerate(m.results)
                               if isinstance(e, AffineDimExpr) and e.position < k}
        return out

    def verify_(self) -> None:
        from xdsl.dialects import memref
        from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

        from aicf.dialects.schedule import verify_schedule

        verify_schedule(self, "group")
        shared = self.shared_extents
        k = len(shared)
        local: set[SSAValue] = set()
        # buffer -> [(nest index, map, written)]
        accesses: dict[SSAValue, list[tuple[int, AffineMap, bool]]] = {}
        for op in self.body.block.ops:
            if isinstance(op, memref.AllocOp):
                if op.dynamic_sizes:
                    raise VerifyException("group-local buffers must have a static shape")
                local.add(op.memref)
                continue
            if isinstance(op, memref.DeallocOp):
                continue
            if not isinstance(op, NestOp):
                raise VerifyAtOp(op, "is in an aicf_loop.group, which may only hold "
                                 "aicf_loop.nest, memref.alloc and memref.dealloc")
            if op.extents[:k] != shared:
                raise VerifyAtOp(op, f"domain {list(op.extents)} of a group member does not "
                                 f"begin with the group's shared extents {list(shared)}")
            if any(it is not Iterator.PARALLEL for it in op.iterators[:k]):
                raise VerifyAtOp(
                    op, f"iterators [{', '.join(i.value for i in op.iterators)}] of a group "
                    f"member are not parallel on the group's {k} shared dims"
                )
            idx = id(op)
            nin = len(op.inputs)
            for j, (buf, m) in enumerate(zip((*op.inputs, *op.outputs), op.maps)):
                accesses.setdefault(buf, []).append((idx, m, j >= nin))

        # a shared dim of extent 1 has one index: it may be spelled 0 or left out
        sliced = [i for i in range(k) if shared[i] != 1]

        def slicing(m: AffineMap) -> tuple[tuple[int, int], ...] | None:
            """(position, shared dim) of each bare shared-dim index; None if a shared
            dim is used in another way or a shared dim is missing."""
            found: list[tuple[int, int]] = []
            for pos, e in enumerate(m.results):
                used = {d for d in e.used_dims() if d < k}
                if not used:
                    continue
                if not isinstance(e, AffineDimExpr):
                    return None
                if shared[e.position] != 1:
                    found.append((pos, e.position))
            if sorted(d for _, d in found) != sliced:
                return None
            return tuple(found)

        for buf, acc in accesses.items():
            if buf in local:
                for _, m, _ in acc:
                    for e in m.results:
                        if not (
                            isinstance(e, AffineConstantExpr)
                            or (isinstance(e, AffineDimExpr) and e.position < k)
                        ):
                            raise VerifyException(
                                f"group-local buffer {buf.type} accessed by map {m}: "
                                f"it may be indexed only by the shared dims"
                            )
            shared_between = len({i for i, _, _ in acc}) > 1 and any(w for *_, w in acc)
            if buf in local or shared_between:
                sigs = {slicing(m) for _, m, _ in acc}
                if None in sigs or len(sigs) != 1:
                    maps = ", ".join(sorted({str(m) for _, m, _ in acc}))
                    raise VerifyException(
                        f"buffer {buf.type} is passed between member nests but not "
                        f"sliced identically by the {k} shared dims (maps: {maps})"
                    )

    def print(self, printer: Printer) -> None:
        printer.print_string(" shared = [")
        printer.print_list(self.shared_extents, lambda e: printer.print_string(str(e)))
        printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> GroupOp:
        parser.parse_keyword("shared")
        parser.parse_punctuation("=")
        shared = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, lambda: parser.parse_integer(False)
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        return attach_attributes(cls(shared, body), dict(attrs.data) if attrs else {})


def print_ins_outs(printer: Printer, inputs: Sequence[SSAValue], output: SSAValue) -> None:
    """` ins(%a, %b : type, type) outs(%o : type)` (gather, attention)."""
    for word, values in (("ins", inputs), ("outs", (output,))):
        printer.print_string(f" {word}(")
        printer.print_list(values, printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(")")


def parse_operand_group(parser: Parser, keyword: str, counts: tuple[int, ...]) -> list[SSAValue]:
    """`keyword(%a, %b : type, type)` with one of `counts` operands."""
    pos = parser.pos
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(names) not in counts or len(types) != len(names):
        parser.raise_error(f"expected {' or '.join(map(str, counts))} operand(s) with their types", pos, parser.pos)
    return [parser.resolve_operand(a, t) for a, t in zip(names, types)]


class GatherMemoryEffect(MemoryEffect):
    """Reads the source and the indices, writes the output (it has no results:
    without these, dce would delete it)."""

    @classmethod
    def get_effects(cls, op: Operation):
        g = cast(GatherOp, op)
        return {
            EffectInstance(MemoryEffectKind.READ, g.source),
            EffectInstance(MemoryEffectKind.READ, g.indices),
            EffectInstance(MemoryEffectKind.WRITE, g.output),
        }


@irdl_op_definition
class GatherOp(IRDLOperation):
    """numpy.take along `axis` over buffers: for every index (a, j, b) of the output,
    where a spans the source's dims before `axis`, j the indices' dims and b the
    source's dims after it,

        output[a, j, b] = source[a, clamp(wrap(indices[j])), b]

    with wrap(i) = i + n for i < 0 and clamp into [0, n - 1], n = source's extent on
    `axis` (JAX's rule for gathers; nothing is checked at run time). A data-dependent
    read, so not a nest: no affine map can say where it reads. The cpu target prints
    it as loops, the GPU lowering as a grid-stride kernel over the output.

    `aicf_loop.gather axis = 0 ins(%wte, %ids : memref<50x8xf32>, memref<4xi64>) outs(%y : memref<4x8xf32>)`
    """

    name = "aicf_loop.gather"

    source = operand_def(MemRefType)
    indices = operand_def(MemRefType)
    output = operand_def(MemRefType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(GatherMemoryEffect())

    def __init__(self, source: SSAValue, indices: SSAValue, output: SSAValue, axis: int):
        super().__init__(
            operands=[source, indices, output],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def verify_(self) -> None:
        from aicf.dialects.shape_rules import ShapeError, fmt, take_shape

        src, idx, out = (cast(MemRefType, v.type) for v in (self.source, self.indices, self.output))
        if not isinstance(idx.get_element_type(), IntegerType) or idx.get_element_type().width.data not in (32, 64):
            raise VerifyException(f"indices must be i32 or i64, got {idx.get_element_type()}")
        if src.get_element_type() != out.get_element_type():
            raise VerifyException(
                f"output element type {out.get_element_type()} differs from the source's "
                f"{src.get_element_type()}"
            )
        if not 0 <= self.axis_value < max(src.get_num_dims(), 1):
            raise VerifyException(
                f"axis {self.axis_value} is out of range for a rank-{src.get_num_dims()} source"
            )
        try:
            want = take_shape(src.get_shape(), idx.get_shape(), self.axis_value)
        except ShapeError as e:
            raise VerifyException(str(e)) from None
        if tuple(out.get_shape()) != want:
            raise VerifyException(
                f"output shape {fmt(out.get_shape())} is not the gathered shape {fmt(want)}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" axis = {self.axis_value}")
        print_ins_outs(printer, (self.source, self.indices), self.output)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        parser.parse_keyword("axis")
        parser.parse_punctuation("=")
        axis = parser.parse_integer(False)

        source, indices = parse_operand_group(parser, "ins", (2,))
        (output,) = parse_operand_group(parser, "outs", (1,))
        return attach_attributes(cls(source, indices, output, axis), parser.parse_optional_attr_dict())


class AttentionMemoryEffect(MemoryEffect):
    """Reads Q, K, V and the mask, writes the output."""

    @classmethod
    def get_effects(cls, op: Operation):
        a = cast(AttentionOp, op)
        return {
            *(EffectInstance(MemoryEffectKind.READ, v) for v in a.inputs),
            EffectInstance(MemoryEffectKind.WRITE, a.output),
        }


def attention_key_steps(sq: int, sk: int, causal: bool) -> int:
    """Query-key pairs visited: all, or for a causal mask those with j <= i."""
    if not causal:
        return sq * sk
    full = max(sq - sk, 0) * sk  # rows past the last key keep every key
    n = min(sq, sk)
    return full + n * (n + 1) // 2


@irdl_op_definition
class AttentionOp(AttentionProperties, IRDLOperation):
    """`aicf_tensor.attention` over buffers (the same semantics: see its entry), written
    into `output`. Not a nest: its softmax runs over a reduction (the keys) of a
    reduction (the head dim), which a nest's one combiner per output cannot state.
    Run per its `aicf.schedule` (aicf-plan): `cpu.attention` on the cpu target, tiles
    of queries against tiles of keys with an online softmax, so the seq x seq scores
    never exist as a buffer.

    `aicf_loop.attention scale = 0.125 causal ins(%q, %k, %v : memref<8x64xf32>, memref<8x64xf32>, memref<8x64xf32>) outs(%o : memref<8x64xf32>)`
    """

    name = "aicf_loop.attention"

    q = operand_def(MemRefType)
    k = operand_def(MemRefType)
    v = operand_def(MemRefType)
    mask = opt_operand_def(MemRefType)
    output = operand_def(MemRefType)
    traits = traits_def(AttentionMemoryEffect())

    def __init__(self, inputs: Sequence[SSAValue], output: SSAValue, properties: dict[str, Attribute]):
        q, k, v, *mask = inputs
        super().__init__(operands=[q, k, v, mask, output], properties=dict(properties))

    @property
    def inputs(self) -> tuple[SSAValue, ...]:
        return (self.q, self.k, self.v) + (() if self.mask is None else (self.mask,))

    def logical_shapes(self) -> tuple[tuple[int, ...], ...]:
        """Q [batch..., Sq, D], K [batch..., Sk, D] and V [batch..., Sk, Dv] as read."""
        from aicf.dialects.shape_rules import transpose_shape

        out = []
        for x, perm in zip((self.q, self.k, self.v), self.perms()):
            shape = tuple(x.type.get_shape())  # type: ignore[union-attr]
            out.append(shape if perm is None else transpose_shape(shape, perm))
        return tuple(out)

    def verify_(self) -> None:
        from aicf.dialects.schedule import verify_schedule
        from aicf.dialects.shape_rules import ShapeError, attention_shape, fmt

        verify_schedule(self, "attention")
        elts = {x.type.get_element_type() for x in (self.q, self.k, self.v, self.output)}  # type: ignore[union-attr]
        if len(elts) != 1 or not isinstance(next(iter(elts)), AnyFloat):
            raise VerifyException(
                f"Q, K, V and the output must share one float element type, got "
                f"{', '.join(str(x.type.get_element_type()) for x in (self.q, self.k, self.v, self.output))}"  # type: ignore[union-attr]
            )
        if self.mask is not None:
            m = self.mask.type.get_element_type()  # type: ignore[union-attr]
            if not (isinstance(m, AnyFloat) or m == IntegerType(1)):
                raise VerifyException(f"the mask must be i1 or float, got {m}")
        if (why := self.verify_scale()) is not None:
            raise VerifyException(why)
        shape = lambda x: tuple(x.type.get_shape())  # noqa: E731
        try:
            want = attention_shape(shape(self.q), shape(self.k), shape(self.v),
                                   None if self.mask is None else shape(self.mask), self.perms())  # fmt: skip
        except ShapeError as e:
            raise VerifyException(str(e)) from None
        if want != shape(self.output):
            raise VerifyException(f"output shape {fmt(shape(self.output))} is not the attention's {fmt(want)}")
        # every output row reads all of K and V (and the kernels keep Q tiles across
        # key tiles): written in place, later rows would read results, not inputs
        for name, x in zip(("Q", "K", "V", "the mask"), self.inputs):
            if x == self.output:
                raise VerifyException(f"the output is also {name}: attention cannot be computed in place")

    def print(self, printer: Printer) -> None:
        from aicf.dialects.tensor import float_text

        printer.print_string(f" scale = {float_text(self.scale_value)}")
        if self.is_causal:
            printer.print_string(" causal")
        for name, perm in zip(self.PERMS, self.perms()):
            if perm is not None:
                printer.print_string(f" {name} = [{', '.join(map(str, perm))}]")
        print_ins_outs(printer, self.inputs, self.output)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> AttentionOp:
        props: dict[str, Attribute] = {}
        parser.parse_keyword("scale")
        parser.parse_punctuation("=")
        props["scale"] = FloatAttr(float(parser.parse_number()), Float64Type())
        if parser.parse_optional_keyword("causal"):
            props["causal"] = UnitAttr()
        while name := parser.parse_optional_keyword_in(cls.PERMS):
            parser.parse_punctuation("=")
            values = parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, lambda: parser.parse_integer(False)
            )
            props[name] = DenseArrayBase.from_list(i64, values)

        inputs = parse_operand_group(parser, "ins", (3, 4))
        (output,) = parse_operand_group(parser, "outs", (1,))
        return attach_attributes(cls(inputs, output, props), parser.parse_optional_attr_dict())


def make_body(arg_types: Sequence[Attribute]) -> tuple[Region, Block]:
    """An empty single-block body region with one argument per input element type."""
    block = Block(arg_types=list(arg_types))
    return Region(block), block


AICFLoop = Dialect("aicf_loop", [NestOp, YieldOp, GroupOp, GatherOp, AttentionOp], [])
