"""Exceptions aicf raises for user errors. Each carries a message that names the
program location (file:line:col of the IR, or the Python line for traced code)."""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException, VerifyException


class AicfError(Exception):
    """Base of aicf's user-facing errors."""


class CompileError(AicfError, DiagnosticException):
    """The program cannot be compiled (bad IR, unsupported op or dtype). A
    DiagnosticException, so `aicf-opt --verify-diagnostics` checks it against the
    input's expected-error annotations and goes on with the next chunk."""


class ArgumentError(AicfError, TypeError):
    """An executable was called with the wrong number, dtype or shape of arguments."""


class ArgumentValueError(ArgumentError, ValueError):
    """An argument of the right type whose value is out of range (a negative extent):
    an ArgumentError, and a ValueError as NumPy raises for one."""


class OutOfMemory(AicfError, MemoryError):
    """A buffer a call needs does not fit in memory; the message names the program's
    entry and the buffer."""


class LaunchError(AicfError, RuntimeError):
    """A kernel launch failed; the message names the kernel and its launch config."""


class VerifyAtOp(VerifyException):
    """A verifier's error about another op than the one verified (a nest's body op,
    a group's member): reported at that op (aicf.diagnostics.verify_module)."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
