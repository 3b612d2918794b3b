"""Diagnostics that point at the user's program.

xDSL's parser keeps an op's source position only for an explicit `loc(...)`; the
`LocatedParser` records `file:line:col` on every op (and block argument) it parses,
so a verifier or pass error can say where the op is. Traced Python programs carry the
user's Python line the same way (a FileLineColLoc).
"""

from __future__ import annotations

import bisect
import math
import re

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import BlockArgument, Operation
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from aicf.errors import CompileError, VerifyAtOp


# xDSL's string-literal pattern nests `+` inside `*`, so an unclosed quote before some
# 30 characters backtracks exponentially (minutes; a hang). One character or escape
# per step matches the same strings in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')

# `tensor<4x?x8xf32>`, `memref<f16>`, `tensor<*xf32>`: a shape and an element type,
# nothing else (LocatedParser parses each such text once)
_PLAIN_SHAPED_TYPE = re.compile(r"(?:tensor|memref)<(?:\*x|(?:(?:\d+|\?)x)*)(?:[fi]\d{1,2}|bf16|index)>")
# significand bits (with the hidden one) and largest exponent of the float types
_FLOAT_FORMATS = {"f16": (11, 15), "bf16": (8, 127), "f32": (24, 127)}  # f64 is Python's float


class _TensorElement(Parser._TensorLiteralElement):
    """An element of a dense<> literal, converted as MLIR does: a hexadecimal element
    of a float tensor is the float's bit pattern (how xDSL prints NaN and Inf; xDSL's
    parser reads it as an integer value), and a decimal that rounds past the largest
    finite value of the type is an error (xDSL's printer would crash on it)."""

    def to_type(self, parser, type):
        if not isinstance(type, AnyFloat):
            return super().to_type(parser, type)
        if self.hex:
            assert isinstance(self.value, int)
            size = type.compile_time_size
            if self.value >= 1 << (8 * size):
                parser.raise_error(f"{self.span.text} does not fit in {type}", at_position=self.span)
            return next(type.iter_unpack(self.value.to_bytes(size, "little")))
        value = super().to_type(parser, type)
        bits, emax = _FLOAT_FORMATS.get(str(type), (None, None))
        # round to nearest even overflows at max + half an ulp: 2^(emax+1) - 2^(emax-bits)
        if bits is not None and math.isfinite(value) and abs(value) >= 2.0 ** (emax + 1) - 2.0 ** (emax - bits):
            parser.raise_error(f"{self.span.text} is out of the range of {type}", at_position=self.span)
        return value


class LocatedParser(Parser):
    """A Parser that gives every op a FileLineColLoc of where its text starts.
    `line_offset` shifts line numbers (a chunk of a --split-input-file input)."""

    line_offset: int = 0

    def _parse_token(self, expected_kind, error_msg: str):
        # xDSL words one expectation as a bare suffix (" in block definition"): the
        # message read `error:  in block definition`, naming nothing expected
        if error_msg.startswith(" ") and expected_kind == MLIRTokenKind.CARET_IDENT:
            error_msg = "expected a block label (^name)" + error_msg
        return super()._parse_token(expected_kind, error_msg)

    def resolve_operand(self, operand, type):
        # Remember where a not-yet-defined value is first used, so that a value that is
        # never defined is reported at its use (as MLIR does), not at the end of input.
        if operand.operand_name not in self.ssa_values:
            uses = self.__dict__.setdefault("_first_use", {})
            uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True):
        from xdsl.utils.exceptions import ParseError

        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            # an empty input (or comments only) is an empty module, as in mlir-opt;
            # xDSL's "Could not parse entire input!" named no mistake
            return ModuleOp([])
        try:
            return super().parse_module(allow_implicit_module)
        except RecursionError:
            self.raise_error(NESTED_TOO_DEEPLY, self._current_token.span)
        except NotImplementedError as e:  # xDSL's affine expressions: `d0 mod (d0 + 1)`
            self.raise_error(f"not supported: {e} (access maps are affine: divide by constants only)",
                             self._current_token.span)
        except ParseError:
            undefined = [n for n in self.forward_ssa_references]
            uses = self.__dict__.get("_first_use", {})
            if undefined and undefined[0] in uses:
                self.raise_error(
                    f"use of undefined value %{undefined[0]}", uses[undefined[0]].start,
                    uses[undefined[0]].end,
                )
            raise

    def _parse_tensor_literal_element(self):
        hex_token = self._current_token.text[:2] in ("0x", "0X")
        element = super()._parse_tensor_literal_element()
        element.__class__ = _TensorElement
        element.hex = hex_token and isinstance(element.value, int)
        return element

    def _parse_dense_literal_type(self):
        # xDSL reports a bad type at the token after it (often the next line); the
        # size is checked before xDSL expands a splat to one Python value per element
        # (a MemoryError, or minutes, for a huge type).
        from xdsl.utils.exceptions import ParseError

        start = self._current_token.span.start

        def where() -> tuple[int, int]:
            text, end = self._current_token.span.input.content, self._current_token.span.start
            while end > start and text[end - 1].isspace():
                end -= 1
            return start, end

        try:
            type = super()._parse_dense_literal_type()
        except ParseError as e:
            self.raise_error(e.msg, *where())
        bits = getattr(type.element_type, "bitwidth", 64)
        nbytes = math.prod(type.get_shape()) * max(1, (bits if isinstance(bits, int) else 64) // 8)
        if nbytes > MAX_DENSE_LITERAL_BYTES:
            self.raise_error(
                f"a dense literal of {type} is {nbytes} bytes, more than aicf reads from "
                f"text ({MAX_DENSE_LITERAL_BYTES}); pass the data as an argument", *where()
            )
        return type

    def _parse_optional_builtin_parametrized_type(self):
        # A program writes the same few shaped types over and over (a 5000-op chain:
        # 10000 times `tensor<256xf32>`), and xDSL's shape parsing is half the parse:
        # the type of a plain `tensor<...>`/`memref<...>` text is parsed once and the
        # text skipped after that (the same text is the same type; text the pattern
        # does not match, with spaces, layouts or encodings, is parsed each time)
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text not in ("tensor", "memref"):
            return super()._parse_optional_builtin_parametrized_type()
        m = _PLAIN_SHAPED_TYPE.match(token.span.input.content, token.span.start)
        if m is None:
            return super()._parse_optional_builtin_parametrized_type()
        types = self.__dict__.setdefault("_shaped_types", {})
        typ = types.get(m[0])
        if typ is None:
            typ = types[m[0]] = super()._parse_optional_builtin_parametrized_type()
        else:
            self._resume_from(m.end())
        return typ

    def _parse_optional_integer_or_float_type(self):
        # MLIR's limit; xDSL takes any width and computes its bounds as 1 << width (a
        # MemoryError or minutes for i214748364864)
        token = self._current_token
        m = self._builtin_integer_type_regex.match(token.text) if token.kind == MLIRTokenKind.BARE_IDENT else None
        if m is not None and int(m.group(1)) > MAX_INTEGER_WIDTH:
            self.raise_error(f"integer width {m.group(1)} exceeds the limit of {MAX_INTEGER_WIDTH} bits", token.span)
        return super()._parse_optional_integer_or_float_type()

    def _parse_op_result_list(self):
        results = super()._parse_op_result_list()
        self.__dict__["_op_name_span"] = self._current_token.span
        return results

    def _register_ssa_definition(self, name, values, span) -> None:
        super()._register_ssa_definition(name, values, span)
        # a block argument (a function's too) is located where its name is written,
        # unless it has an explicit loc(...) (the parser sets that after this)
        for v in values:
            if isinstance(v, BlockArgument) and not isinstance(v.location, FileLineColLoc):
                line, col = self._line_col(span)
                v.location = FileLineColLoc(StringAttr(span.input.name), IntAttr(line + self.line_offset),
                                            IntAttr(col))

    def _get_op_by_name(self, name: str):
        # xDSL reports an unknown op at the token after its name; point at the name.
        from xdsl.utils.exceptions import ParseError

        try:
            return super()._get_op_by_name(name)
        except ParseError as e:
            span = self.__dict__.get("_op_name_span")
            if span is None:
                raise
            self.raise_error(e.msg, span.start, span.end)

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except (ValueError, OverflowError, VerifyException) as e:  # attributes built from literals
            why = f"a number too large to handle ({e})" if isinstance(e, OverflowError) else str(e)
            self.raise_error(why, span.start, span.end)  # xDSL does not range-check
        if not isinstance(op.location, FileLineColLoc):
            line, col = self._line_col(span)
            op.location = FileLineColLoc(
                StringAttr(span.input.name), IntAttr(line + self.line_offset), IntAttr(col)
            )
        return op

    def _line_col(self, span) -> tuple[int, int]:
        """1-based line and column of the span's start, by bisecting the input's line
        starts (xDSL's Span.get_location counts the newlines before it: quadratic in
        the input when asked for every op)."""
        starts = self.__dict__.get("_line_starts")
        if starts is None:
            text = span.input.content
            starts = [0]
            pos = text.find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = text.find("\n", pos + 1)
            self.__dict__["_line_starts"] = starts
        line = bisect.bisect_right(starts, span.start)
        return line, span.start - starts[line - 1] + 1


MAX_INTEGER_WIDTH = (1 << 24) - 1  # as MLIR's IntegerType
# The largest dense<> literal the parser builds (xDSL holds it as Python values first).
MAX_DENSE_LITERAL_BYTES = 1 << 28
NESTED_TOO_DEEPLY = "the input is nested too deeply for aicf (Python's recursion limit)"


BOM = "\ufeff"


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """`data` as UTF-8 text, less a leading byte order mark (editors on Windows write
    one); a located CompileError at the first byte that is not UTF-8 (`line_offset`:
    the lines of the file before `data`, a chunk of --split-input-file)."""
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1 + line_offset
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise CompileError(
            f"{name}:{line}:{col}: error: the input is not UTF-8 text "
            f"(byte {data[e.start]:#04x})"
        ) from None


def location_of(op: Operation) -> str:
    """`file:line:col` of an op, or of its nearest located ancestor; for IR built
    without locations, the op's place: `@func, op #i` (i counts the function's ops
    in order, from 0)."""
    cur: Operation | None = op
    while cur is not None:
        loc = cur.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        cur = cur.parent_op()
    symbol: Operation | None = op
    while symbol is not None and "sym_name" not in symbol.properties | symbol.attributes:
        symbol = symbol.parent_op()
    if symbol is None:
        return f"'{op.name}' (no source location)"
    name = (symbol.properties | symbol.attributes)["sym_name"]
    where = f"@{name.data}"  # type: ignore[attr-defined]
    if symbol is not op:
        index = next(i for i, o in enumerate(symbol.walk()) if o is op) - 1
        where += f", op #{index}"
    return f"{where} (no source location)"


def op_error(op: Operation, message: str) -> CompileError:
    """A CompileError in MLIR's diagnostic form: `file:line:col: error: 'op': message`."""
    return CompileError(f"{location_of(op)}: error: '{op.name}' {message}")


def verify_module(module: ModuleOp) -> None:
    """Verify op by op, innermost first, so the error names the op that failed and
    where it is, instead of printing the whole module."""
    for op in module.walk(reverse=True):
        if op.has_trait(SymbolTable):
            _check_redefinitions(op)
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            at = e.op if isinstance(e, VerifyAtOp) else op
            msg = str(e).strip()
            prefix = f"'{at.name}': "
            if msg.startswith(prefix):
                msg = msg[len(prefix):]
            raise op_error(at, msg) from None
        _check_sizes(op)
        _check_property_attributes(op)
        if isinstance(op, func.FuncOp):
            _check_one_block(op)
        if "aicf.num_outputs" in op.attributes:
            _check_num_outputs(op)
            if isinstance(op, func.FuncOp):
                from aicf.dialects.outputs import check_input_writes

                check_input_writes(op, need_outputs=False)


def ir_snapshot(module: Operation) -> list[tuple]:
    """What verification reads, op by op: the op objects in walk order, each with its
    block, operands, result types, properties, attributes, successors and regions'
    blocks with their argument types. Equal snapshots are the same IR (attributes and
    types are immutable values), which verifies as it did: a pipeline verifies after
    a pass only when the pass changed something. Taking one costs about a tenth of a
    verification."""
    return [
        (op, op.parent, tuple(op.operands), tuple(r.type for r in op.results),
         tuple(op.properties.items()), tuple(op.attributes.items()), tuple(op.successors),
         tuple((b, tuple(a.type for a in b.args)) for r in op.regions for b in r.blocks))
        for op in module.walk()
    ]


def _check_property_attributes(op: Operation) -> None:
    """A discardable attribute named like one of the op's properties, beside that
    property (`<{axes = ...}> {axes = ...}`, or the custom syntax's `causal` and a
    `{causal = ...}`): the op reads only the property, so the attribute would be
    dropped without a word."""
    if not isinstance(op, IRDLOperation) or not op.attributes:
        return
    clash = sorted(op.attributes.keys() & op.get_irdl_definition().properties.keys())
    if clash:
        raise op_error(op, f"has '{clash[0]}' both as a property and as a discardable "
                       "attribute, which the op does not read: give it once")


def _check_one_block(fn: func.FuncOp) -> None:
    """aicf's functions are straight-line code, which every pass and backend takes for
    granted (`body.block`): a branch to another block is an error at the branch."""
    blocks = list(fn.body.blocks)
    if len(blocks) > 1:
        raise op_error(blocks[0].last_op or fn, f"a function of aicf has one block (no control "
                       f"flow), @{fn.sym_name.data} has {len(blocks)}")


def _check_redefinitions(table: Operation) -> None:
    """A symbol defined twice is an error at the second definition (xDSL's symbol
    table check reports it at the module, which has no location)."""
    first: dict[str, Operation] = {}
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                name = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if not isinstance(name, StringAttr):
                    continue
                if name.data in first:
                    raise op_error(op, f"redefinition of symbol @{name.data} "
                                   f"(first defined at {location_of(first[name.data])})")
                first[name.data] = op


def _check_num_outputs(op: Operation) -> None:
    attr = op.attributes["aicf.num_outputs"]
    ftype = getattr(op, "function_type", None)  # a declaration has no block to count
    nargs = len(ftype.inputs.data) if isinstance(ftype, FunctionType) else 0
    ok = (
        isinstance(attr, IntegerAttr)
        and not (isinstance(attr.type, IntegerType) and attr.type.width.data == 1)
        and 0 <= attr.value.data <= nargs
    )
    if not ok:
        raise op_error(
            op, f"aicf.num_outputs must be an integer from 0 to {nargs} (the argument "
            f"count), got {attr}"
        )


def _check_sizes(op: Operation) -> None:
    """Shaped values whose size overflows int64 are an error where they are defined
    (before a pass or the emitter computes with them)."""
    from aicf.dialects.shape_rules import size_problem

    values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
    for v in values:
        t = v.type
        if isinstance(t, TensorType | MemRefType):
            elt = t.get_element_type()
            bits = getattr(elt, "bitwidth", 64)
            why = size_problem(t.get_shape(), bits if isinstance(bits, int) else 64)
            if why is not None:
                raise op_error(op, f"{t} {why}")


def format_parse_error(e) -> str:
    """A ParseError in MLIR's form: `file:line:col: error: message`, then the source
    line with carets under the offending text."""
    context = e.span.print_with_context().split("\n", 1)[-1]
    return f"{e.span.get_location()}: error: {e.msg}\n{context}".rstrip()


def parse_module(ctx, text: str, name: str = "<input>") -> ModuleOp:
    """Parse MLIR text with locations and verify it. Raises CompileError with the
    location on malformed or invalid input."""
    from xdsl.utils.exceptions import ParseError

    from aicf.gc_pause import fewer_collections

    with fewer_collections():
        try:
            module = LocatedParser(ctx, text.removeprefix(BOM), name).parse_module()
        except ParseError as e:
            raise CompileError(format_parse_error(e)) from None
        verify_module(module)
    return module
