"""Pass pipelines for aicf-opt in both spellings, with one-line errors.

    aicf-infer-shapes,canonicalize,aicf-plan{target=cpu}                   (xDSL's)
    builtin.module(aicf-infer-shapes,func.func(canonicalize,cse),aicf-plan{target=cpu})

The second is MLIR's textual pipeline (what mlir-opt's --pass-pipeline takes). xDSL's
passes are module passes, so a `func.func(...)` group runs its passes on the module,
in order: each of them rewrites every function on its own, which is what the nesting
asks for. Options are xDSL's (`{name=value name=value}`, `-` or `_` in names); the
text of each pass is handed to xDSL's parser, so the two spellings accept the same
options.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from aicf.errors import AicfError

MODULE_ANCHOR = "builtin.module"
FUNCTION_ANCHOR = "func.func"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class PipelineError(AicfError):
    """A malformed pipeline, an unknown pass or a bad option: one line, with the column."""


class _Cursor:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def error(self, message: str, pos: int | None = None) -> PipelineError:
        col = (self.pos if pos is None else pos) + 1
        return PipelineError(f"malformed pass pipeline '{self.text}' at column {col}: {message}")


def _passes(cur: _Cursor, anchor: str | None, closing: str) -> list[tuple[str, int]]:
    """The passes (their text and start column) up to `closing`, nested groups
    flattened. `anchor` is the op the enclosing group runs on (None at the top)."""
    found: list[tuple[str, int]] = []
    if cur.peek() == closing:
        return found
    while True:
        found += _element(cur, anchor)
        c = cur.peek()
        if c == ",":
            cur.pos += 1
            if cur.peek() in (closing, ")"):
                raise cur.error("expected a pass name after ','")
            continue
        if c == closing:
            return found
        expected = "',' or ')'" if closing == ")" else "',' or the end"
        raise cur.error(f"expected {expected}, found '{c}'" if c else f"expected {expected}")


def _element(cur: _Cursor, anchor: str | None) -> list[tuple[str, int]]:
    cur.skip_space()
    start = cur.pos
    while cur.pos < len(cur.text) and cur.text[cur.pos] in _NAME_CHARS:
        cur.pos += 1
    name = cur.text[start : cur.pos]
    if not name:
        found = cur.text[cur.pos : cur.pos + 1]
        raise cur.error(f"expected a pass name, found '{found}'" if found else "expected a pass name")
    nxt = cur.text[cur.pos : cur.pos + 1]
    if nxt == "(":
        _check_anchor(cur, name, anchor, start)
        cur.pos += 1
        inner = _passes(cur, name, ")")
        cur.pos += 1
        return inner
    if anchor is None and name in (MODULE_ANCHOR, FUNCTION_ANCHOR):
        raise cur.error(f"'{name}' must be followed by '(' and its passes", start)
    if nxt in ("{", "["):  # options, or xDSL's mlir-opt[...] escape
        _skip_bracketed(cur, nxt, "}" if nxt == "{" else "]", name)
    return [(cur.text[start : cur.pos], start)]


def _check_anchor(cur: _Cursor, name: str, anchor: str | None, pos: int) -> None:
    if anchor is None and name != MODULE_ANCHOR:
        raise cur.error(f"a nested pipeline starts with '{MODULE_ANCHOR}(', not '{name}('", pos)
    if anchor == MODULE_ANCHOR and name != FUNCTION_ANCHOR:
        raise cur.error(f"aicf-opt nests passes on '{FUNCTION_ANCHOR}' only inside "
                        f"'{MODULE_ANCHOR}', not on '{name}'", pos)  # fmt: skip
    if anchor == FUNCTION_ANCHOR:
        raise cur.error(f"no op to nest '{name}' on inside '{FUNCTION_ANCHOR}'", pos)


def _skip_bracketed(cur: _Cursor, opening: str, closing: str, name: str) -> None:
    start = cur.pos
    cur.pos += 1
    in_string = False
    while cur.pos < len(cur.text):
        c = cur.text[cur.pos]
        if in_string and c == "\\":
            cur.pos += 1
        elif c == '"':
            in_string = not in_string
        elif c == closing and not in_string:
            cur.pos += 1
            return
        cur.pos += 1
    raise cur.error(f"'{opening}' of the options of '{name}' is never closed", start)


def _spec(text: str, start: int, whole: str) -> ArgSpec:
    try:
        (spec,) = parse_pipeline(text)
    except ArgSpecParseError as e:  # a BaseException in xDSL: never let it through
        # xDSL's message: a header, "pass-pipeline:1:COL", the text, a caret, the reason
        lines = str(e).strip().splitlines()
        col = int(lines[1].rsplit(":", 1)[1]) + start
        raise PipelineError(f"malformed pass pipeline '{whole}' at column {col}: "
                            f"{lines[-1].strip()}") from None  # fmt: skip
    repeated = _repeated_option(text)
    if repeated is not None:
        name, col = repeated
        raise PipelineError(f"malformed pass pipeline '{whole}' at column {col + start + 1}: "
                            f"option '{name}' of '{spec.name}' is given twice")
    return spec


def _repeated_option(text: str) -> tuple[str, int] | None:
    """The first option of a pass's text given a second time (`-` and `_` alike, as
    xDSL reads them) and where that second one starts; xDSL's parser keeps the last
    value without a word, so `{explain=true explain=false}` silently meant false.
    `text` has parsed: an identifier right after `{` or a space is an option's name
    (values follow `=` or `,`, and a quoted value is one string token)."""
    seen: set[str] = set()
    after_separator = False
    lexer = PipelineLexer(text)
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.IDENT and after_separator:
            name = token.span.text.replace("-", "_")
            if name in seen:
                return token.span.text, token.span.start
            seen.add(name)
        after_separator = token.kind in (SpecTokenKind.L_BRACE, SpecTokenKind.SPACE)
    return None


_OPTION_TYPES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _as_float(v):
    """A float option's value: an integer, or an exponent form the option lexer reads
    as text (`1e3`), as mlir-opt reads a double; NaN and infinities stay refused."""
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return v
        return f if math.isfinite(f) else v
    return v


def _typed_options(pass_class: type[ModulePass], spec: ArgSpec) -> ArgSpec:
    """`spec` with an integer given to a float option as that float (`min-speedup=2`,
    as mlir-opt reads a double option; xDSL refused it: "Incompatible types: given (2,),
    expected <class 'float'>"), and a value of the wrong type named with its option."""
    spec = spec.normalize_parameter_names()
    hints = typing.get_type_hints(pass_class)
    params = {}
    for name, values in spec.parameters.items():
        hint = hints.get(name)
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            hint = next(iter(set(typing.get_args(hint)) - {type(None)}), None)
        if hint is float:
            values = [_as_float(v) for v in values]
        if not values and hint is bool:  # `{explain}` is explain=true, as in mlir-opt
            values = [True]
        if not values and hint in _OPTION_TYPES:  # xDSL took `{max-ops}` as its default
            raise PipelineError(f"pass '{spec.name}': option '{name.replace('_', '-')}' takes one "
                                f"value, {_OPTION_TYPES[hint]}, got none")
        if hint in _OPTION_TYPES and (len(values) > 1 or values and type(values[0]) is not hint):
            raise PipelineError(f"pass '{spec.name}': option '{name.replace('_', '-')}' takes one "
                                f"value, {_OPTION_TYPES[hint]}, got {', '.join(map(repr, values))}")
        params[name] = values
    return ArgSpec(spec.name, params)


def parse_pass_pipeline(
    text: str,
    available: dict[str, Callable[[], type[ModulePass]]],
    callback: PassPipelineCallbackType | None = None,
) -> PassPipeline:
    """The pipeline `text` names (either spelling), or a PipelineError."""
    cur = _Cursor(text)
    found = _passes(cur, None, "")
    passes = []
    for pass_text, start in found:
        spec = _spec(pass_text, start, text)
        if spec.name not in available:
            raise PipelineError(f"unknown pass '{spec.name}' (aicf-opt --help lists the passes)")
        try:
            pass_class = available[spec.name]()
            passes.append(pass_class.from_pass_spec(_typed_options(pass_class, spec)))
        except (ValueError, TypeError) as e:  # unknown option, wrong type or value
            raise PipelineError(f"pass '{spec.name}': {e}") from None
    return PassPipeline(tuple(passes), callback)
