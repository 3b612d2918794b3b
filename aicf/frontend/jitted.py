"""`aicf.jit`: trace on the first call, compile, cache per (shapes, dtypes, target).

    @aicf.jit                     # or @aicf.jit(target="cuda")
    def f(x, w):
        return ops.relu(x @ w)

    f(x, w)                       # traces and compiles
    f(x2, w2)                     # same shapes and dtypes: reuses the executable
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from aicf.errors import AicfError
from aicf.frontend.tensor import spec_of
from aicf.frontend.tracer import trace
from aicf.lru import LruCache


def _compile(module: ModuleOp, target: str):
    """aicf.compile, imported late (the compiler imports the front end's package)."""
    import aicf

    compile_ = getattr(aicf, "compile", None)
    if compile_ is None:
        raise AicfError("aicf.compile is not available in this build")
    return compile_(module, target=target)


class JitFunction:
    """A traced-and-compiled function; see the module docstring. `num_compilations`
    counts the traces compiled so far."""

    def __init__(self, fn: Callable[..., Any], target: str):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.target = target
        self.num_compilations = 0
        self._cache: LruCache = LruCache()

    def _key(self, args: tuple[Any, ...]) -> tuple:
        specs = tuple(spec_of(a) for a in args)
        return (tuple((s.shape, s.dtype) for s in specs), self.target)

    def lower(self, *args: Any) -> ModuleOp:
        """The traced module for arguments like `args`, without compiling it."""
        return trace(self.fn, *args)

    def executable(self, *args: Any):
        """The executable for arguments like `args` (compiled on first use)."""
        key = self._key(args)
        exe = self._cache.get(key)
        if exe is None:
            exe = _compile(self.lower(*args), self.target)
            self.num_compilations += 1
            self._cache[key] = exe
        return exe

    def __call__(self, *args: Any):
        return self.executable(*args)(*args)


def jit(fn: Callable[..., Any] | None = None, *, target: str = "cpu"):
    """Decorator: compile `fn` for `target` ("cpu" or "cuda") on its first call with
    each new combination of argument shapes and dtypes."""
    if fn is None:
        return lambda f: JitFunction(f, target)
    return JitFunction(fn, target)
