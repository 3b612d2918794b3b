"""Symbol names of the IR as identifiers in generated C and CUDA C.

A symbol name is data (`func.func @"f() {}\\0A#include ..."` is legal IR), so it never
reaches generated source as is: every target turns it into an identifier here.
Characters outside [A-Za-z0-9_] become `_`, and a name that had to change gets the
first 8 hex digits of its SHA-256 appended, so `@"a.b"`, `@"a-b"` and `@a_b` stay
three symbols. Names that still clash (only by choosing one equal to another's
sanitised form) are reported by `check_distinct` with the IR location.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation

from aicf.diagnostics import op_error

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def c_symbol(name: str, prefix: str = "", reserved: frozenset[str] = frozenset()) -> str:
    """`name` as a C identifier (after `prefix`); unchanged if it already is one and
    not one of the target's own (`reserved`: a function `@mod` is no `aicf_mod`)."""
    plain = prefix + name
    if _IDENTIFIER.fullmatch(plain) and (prefix or not name.startswith("__")) and plain not in reserved:
        return plain
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{prefix or 'aicf_'}{re.sub(r'[^A-Za-z0-9_]', '_', name)}_{digest}"


def ir_name(name: str) -> str:
    """`@name` as the IR prints it (quoted and escaped): safe inside a `//` comment."""
    return str(SymbolRefAttr(name))


def check_distinct(symbols: Iterable[tuple[Operation, str, str]]) -> None:
    """Raise a located CompileError if two (op, IR name, C name) share a C name."""
    seen: dict[str, str] = {}
    for op, name, c_name in symbols:
        other = seen.setdefault(c_name, name)
        if other != name:
            raise op_error(
                op, f"{ir_name(name)} and {ir_name(other)} both become `{c_name}` in the generated "
                "code; rename one of them"
            )
