"""`aicf.jit`: trace on the first call, compile, cache per specialisation.

    @aicf.jit                     # or @aicf.jit(target="cuda", static_argnames="n_head")
    def f(x, params, n_head):
        return ops.relu(x @ params["w"] + params["b"])

    f(x, {"w": w, "b": b}, n_head=4)   # traces and compiles
    f(x2, {"w": w2, "b": b2}, n_head=4)   # same structure, shapes, dtypes: reused

Arguments are bound to the function's signature (positional or keyword). Dynamic
arguments are pytrees (dicts, lists, tuples, nested) of arrays: NumPy, CuPy, or any
`__dlpack__` array (torch, JAX), and Python int/float scalars, which become weak 0-d
tensors (i32/f32 taking the dtype of the tensors they meet, as in JAX; a float is
held at f64 until then, so an f64 array gets its exact value). Static
arguments (`static_argnums` / `static_argnames`, as in jax.jit) are plain Python
values, hashable, seen by the function as they are.

bf16 has no NumPy dtype: a bf16 argument is an `ml_dtypes.bfloat16` array (read as
its bits, no copy) or a uint16 array of the bits, and a bf16 result comes back as
uint16 bits (`.view(ml_dtypes.bfloat16)` reads them), which a jitted function takes
again as bf16. A torch bf16 tensor cannot cross DLPack into NumPy: pass
`x.view(torch.uint16)`. Or take f32 and convert inside: `x.astype("bf16")`.

A specialisation is keyed by the arguments' pytree structure, each leaf's shape,
dtype and weakness, the static values and the target. NumPy arrays the function
closes over are constants of its program; one the program reads (itself or through a
view: `W.T`, `W[::2]`) changed in place since the trace (`W -= lr * dW`) is seen (a
checksum of it per call) and the specialisation traced and compiled again. What NumPy
computes from it while the function is traced (`W.astype(...)`, `W.sum()`) is a
constant of its own, as in JAX, and so is an array whose name is rebound
(`W = W - lr * dW`): pass arrays that change as arguments. At most `cache_size` (default
`DEFAULT_CACHE_SIZE`) are kept, least recently used dropped first.

Called while another function is being traced (nested jit), a jitted function is
inlined into that trace, as in JAX.
"""

from __future__ import annotations

import functools
import numbers
import inspect
import logging
import os
import threading
import time
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from aicf.errors import AicfError, ArgumentError, CompileError
from aicf.frontend import pytree
from aicf.frontend.tensor import Tensor, TensorSpec, scalar_spec
from aicf.frontend.tracer import as_result, current_tracer, is_tracing, trace_function
from aicf.frontend.tracer import checksum as _checksum
from aicf.logs import getLogger

_cache_log = getLogger("cache")
_compile_log = getLogger("compile")

_live: weakref.WeakSet = weakref.WeakSet()  # the JitFunctions, whose locks a fork resets


def _reset_locks_after_fork() -> None:
    # a fork while another thread holds a function's lock copies it held by a thread
    # the child does not have: the child's next call would wait forever
    for f in list(_live):
        f._lock = threading.Lock()
        f._compiling = {}


os.register_at_fork(after_in_child=_reset_locks_after_fork)

DEFAULT_CACHE_SIZE = 64
"""Specialisations a jitted function keeps (compiled programs stay mapped while kept)."""


def _watch(captured: list[tuple[np.ndarray, int]]) -> tuple:
    """(weak reference, checksum at the trace) of each closed-over array a trace made
    a constant; the first checksum of an array met twice (a nested trace)."""
    seen: dict[tuple, tuple[np.ndarray, tuple]] = {}
    for a, crc in captured:  # crc[2]: the bytes of a view's base watched (tracer.checksum)
        seen.setdefault((id(a), crc[2]), (a, crc))
    return tuple((weakref.ref(a), crc) for a, crc in seen.values())


def _changed(watch: tuple) -> bool:
    """Whether an array of `watch` changed in place since the trace (W -= lr * dW
    left the program computing with the old W); a freed one cannot change."""
    for ref, checksum in watch:
        a = ref()
        if a is not None and _checksum(a, checksum[2]) != checksum:
            return True
    return False


def _global(module: str, qualname: str) -> Any:
    """The object named `qualname` in the module `module` (imported), or None."""
    import importlib
    import sys

    obj = sys.modules.get(module)
    if obj is None:
        try:
            obj = importlib.import_module(module)
        except ImportError:
            return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def _compile(module: ModuleOp, target: str, options: dict):
    """aicf.compile, imported late (the compiler imports the front end's package)."""
    import aicf

    compile_ = getattr(aicf, "compile", None)
    if compile_ is None:
        raise AicfError("aicf.compile is not available in this build")
    return compile_(module, target=target, **options)


def _describe(call: _Call) -> str:
    shapes = ", ".join(f"{s.dtype}{list(s.shape)}" for s in call.specs)
    return f"({shapes}{''.join(f', {n}={v!r}' for n, v in call.static)})"


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    if isinstance(value, int | str):
        return (value,)
    return tuple(value)



def _checked_tuple(option: str, value: Any, kind: type, what: str) -> tuple:
    """`_as_tuple(value)` with each item a `kind` (not a bool), else an ArgumentError."""
    try:
        items = (value,) if isinstance(value, kind) else _as_tuple(value)
    except TypeError:  # not iterable
        items = None
    if items is not None and all(isinstance(i, kind) and not isinstance(i, bool) for i in items):
        return tuple(int(i) for i in items) if kind is numbers.Integral else items
    raise ArgumentError(f"aicf.jit: {option} takes {what} or a sequence of them, got {value!r}")


def _name_of(fn: Callable[..., Any]) -> str:
    """The function's name for messages: a functools.partial or a callable object has
    none of its own."""
    name = getattr(fn, "__name__", None)
    if name is None and isinstance(fn, functools.partial):
        name = f"partial({_name_of(fn.func)})"
    return name if isinstance(name, str) else type(fn).__name__

class _Call:
    """One call's arguments, split: the leaves of the dynamic arguments (as arrays the
    executable takes), their specs, the pytree structure, and the static values."""

    def __init__(self, leaves: list[Any], specs: list[TensorSpec], treedef: pytree.TreeDef,
                 names: tuple[str, ...], static: tuple[tuple[str, Any], ...]):  # fmt: skip
        self.leaves = leaves
        self.specs = specs
        self.treedef = treedef
        self.names = names
        self.static = static

        self._key: _Key | None = None

    @property
    def key(self) -> _Key:
        if self._key is None:
            self._key = _Key((self.names, self.treedef, tuple(self.specs), self.static,
                              tuple(_types_of(v) for _, v in self.static)))
        return self._key


def _types_of(value: Any) -> Any:
    """The types in a static value: 2 == 2.0 == True and hash alike, but a function
    may trace differently on each (a * 2.0 is a float array; it got a * 2's ints).
    A float also by its repr: -0.0 == 0.0, but x / s is -inf for one, inf for the
    other (the second call got the first's program)."""
    if isinstance(value, tuple):
        return (tuple, tuple(_types_of(v) for v in value))
    if isinstance(value, float | complex | np.floating | np.complexfloating):
        return (type(value), repr(value))
    return type(value)


class _Key:
    """A specialisation's cache key with its hash computed once: the fast path looks
    the same key object up on every call (the specs' dataclass hash and equality cost
    microseconds of a ~10 us call)."""

    __slots__ = ("parts", "_hash")

    def __init__(self, parts: tuple):
        self.parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _Key) and self._hash == other._hash
                                 and self.parts == other.parts)


class JitFunction:
    """A traced-and-compiled function; see the module docstring. `num_compilations`
    counts the traces compiled so far; `cache_size` bounds the specialisations kept."""

    def __init__(self, fn: Callable[..., Any], target: str = "cpu",
                 static_argnums: int | Iterable[int] | None = None,
                 static_argnames: str | Iterable[str] | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE, fuse: bool = True,
                 force: str | Iterable[str] = (), tune: bool | str | None = None,
                 matmul_precision: str | None = None, debug: bool | None = None):  # fmt: skip
        from aicf.compiler import TARGETS, check_options, forced_kinds

        if not callable(fn):
            raise ArgumentError(f"aicf.jit expects a function, got {type(fn).__name__} {fn!r}")
        if target not in TARGETS:
            raise ArgumentError(f"aicf.jit: unknown target {target!r} (expected one of {', '.join(TARGETS)})")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ArgumentError(f"aicf.jit: cache_size must be an int >= 0, got {cache_size!r}")
        try:  # at the decorator, not at the first call
            check_options(fuse, debug, tune, matmul_precision or None)
            force = forced_kinds(list(force) if isinstance(force, Iterable) and not isinstance(force, str | bytes)
                                 else force, target)
        except (ArgumentError, TypeError) as e:
            raise ArgumentError(str(e).replace("aicf.compile", "aicf.jit")) from None
        # aicf.compile's options, passed on each compile
        self.compile_options = dict(fuse=bool(fuse), force=force, tune=tune,
                                    matmul_precision=matmul_precision or None, debug=debug)
        functools.update_wrapper(self, fn)
        self.fn = fn
        self._name = _name_of(fn)
        self._qualname = getattr(fn, "__qualname__", self._name)
        self.target = target
        self.cache_size = cache_size
        self.num_compilations = 0
        # key -> (executable, out_def, watch: the closed-over arrays, see _watch)
        self._cache: OrderedDict[tuple, tuple[Any, pytree.TreeDef, tuple]] = OrderedDict()
        self._lock = threading.Lock()
        # key -> the lock its first caller holds while it traces and compiles: threads
        # calling with the same new arguments wait for that compile instead of repeating it
        self._compiling: dict[tuple, threading.Lock] = {}
        _live.add(self)
        self._fast: dict[tuple, tuple] = {}  # _fast_key -> the _cache key it stands for
        # (fast key, executable, out_def, watch) of the last plain-array call: a loop calling
        # with the same shapes finds it without the lock and the two lookups (~1-2 us of
        # a ~12 us cuda call); dropped with the entry it aliases
        self._last: tuple | None = None
        self._array_types: set[type] = {np.ndarray}  # the plain arrays _fast_key has met
        self._specs: dict[tuple, TensorSpec] = {}  # (shape, dtype) of a plain array -> its spec
        try:
            self._sig = inspect.signature(fn)
        except (ValueError, TypeError) as e:  # a builtin without one (max, min): a raw ValueError
            raise ArgumentError(f"aicf.jit: cannot read the signature of {self._name} ({e}); wrap it "
                                "in a Python function (lambda x: max(x, 0))") from None
        params = list(self._sig.parameters.values())
        positional = [
            p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        names = set(_checked_tuple("static_argnames", static_argnames, str, "a parameter name (str)"))
        for i in _checked_tuple("static_argnums", static_argnums, numbers.Integral, "a parameter index (int)"):
            if not -len(positional) <= i < len(positional):
                raise ArgumentError(
                    f"static_argnums: {i} is out of range for {_name_of(fn)}'s "
                    f"{len(positional)} positional parameter(s)"
                )
            names.add(positional[i])
        unknown = names - set(self._sig.parameters)
        if unknown:
            raise ArgumentError(
                f"static_argnames: {_name_of(fn)} has no parameter {sorted(unknown)}"
            )
        self.static_argnames = tuple(sorted(names))

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        # `@aicf.jit` on a method: `obj.method(x)` passes obj as the first argument, as
        # a function's method does (it called fn(x) and said "missing a required
        # argument: 'x'"); obj is an argument as any other: static_argnums=0 or a pytree
        if instance is None:
            return self
        return types.MethodType(self, instance)

    def __deepcopy__(self, memo) -> JitFunction:
        # its specialisations are read-only loaded programs: a copy is the same function
        # (copying raised the raw "cannot pickle '_thread.lock' object")
        return self

    def __reduce__(self):
        # `@aicf.jit` at module level: the module's name is this jit function, not the
        # function it wraps, which pickle (by that name) refused: pickled by name, as a
        # function is, and loaded as that module's jit function
        module, qualname = getattr(self.fn, "__module__", None), getattr(self.fn, "__qualname__", "")
        if module is not None and _global(module, qualname) is self:
            return (_global, (module, qualname))
        # otherwise the function and the options, not the specialisations (loaded
        # programs, and a lock): the copy compiles its own on its first calls
        o = self.compile_options
        return (JitFunction, (self.fn, self.target, None, self.static_argnames, self.cache_size, o["fuse"],
                              o["force"], o["tune"], o["matmul_precision"], o["debug"]))

    # --- arguments ---------------------------------------------------------------------------

    def _split(self, args: tuple, kwargs: dict) -> _Call:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise ArgumentError(f"{self._name}: {e}") from None
        static, dynamic, names = [], [], []
        for name, value in bound.arguments.items():
            if name in self.static_argnames:
                try:
                    hash(value)
                except TypeError:
                    raise ArgumentError(
                        f"{self._name}: static argument '{name}' must be hashable, got "
                        f"{type(value).__name__} (use a tuple for a list)"
                    ) from None
                except Exception as e:  # noqa: BLE001 - whatever its __hash__ raised, as for == below
                    raise ArgumentError(
                        f"{self._name}: static argument '{name}' must be hashable (its hash() raised "
                        f"{type(e).__name__}: {e})"
                    ) from None
                try:  # the cache compares it with the keys of earlier calls
                    bool(value == value)
                except Exception as e:  # noqa: BLE001 - whatever its __eq__ raised
                    raise ArgumentError(
                        f"{self._name}: static argument '{name}' must compare equal as a bool "
                        f"(its == raised {type(e).__name__}: {e})"
                    ) from None
                static.append((name, value))
            else:
                dynamic.append(value)
                names.append(name)
        leaves, treedef = pytree.flatten(dynamic)
        specs = self._known_specs(leaves)
        if specs is not None:
            return _Call(leaves, specs, treedef, tuple(names), tuple(static))
        paths = pytree.leaf_paths(treedef, "")
        arrays, specs = [], []
        for leaf, path in zip(leaves, paths):
            # path is "[i]..." over the list of dynamic arguments: name the argument
            i, _, rest = path[1:].partition("]")
            array, spec = self._leaf(leaf, f"{names[int(i)]}{rest}")
            arrays.append(array)
            specs.append(spec)
        return _Call(arrays, specs, treedef, tuple(names), tuple(static))

    def _known_specs(self, leaves: list) -> list[TensorSpec] | None:
        """The specs of leaves that are all plain arrays of the target's kind with a
        (shape, dtype) met before: a model's weights, passed on every call, are not
        checked and described again (~20 us a leaf). None: the general path, which
        names the argument in any error."""
        memo = self._specs
        specs = []
        for leaf in leaves:
            t = type(leaf)
            if t is not np.ndarray and not (self.target == "cuda" and t.__module__.startswith("cupy")):
                return None
            spec = memo.get((leaf.shape, leaf.dtype))
            if spec is None:
                return None
            specs.append(spec)
        return specs

    def _leaf(self, leaf: Any, name: str) -> tuple[Any, TensorSpec]:
        from aicf.interop import as_array, redefined_numpy

        where = f"{self._name}: argument '{name}'"
        if isinstance(leaf, np.integer | np.bool_):  # as Python's: weak, i32 if it fits
            leaf = leaf.item()
        # a NumPy scalar is strong (NEP 50): np.float64 subclasses float but is an f64
        if isinstance(leaf, bool | int | float | complex) and not isinstance(leaf, np.generic):
            try:
                spec = scalar_spec(leaf)
            except TypeError as e:
                raise ArgumentError(f"{where}: {e}, or make it static (static_argnames)") from None
            if spec.dtype == "f32":
                # weak at f64: it takes an f64 array's type exactly (as f32 first, x * 1e300
                # was inf and x * 0.1 off by 1e-9), the f32 tensors' after rounding once;
                # beside integers and alone it is f32 (ops._as_tensor, _result)
                return np.asarray(leaf, dtype=np.float64), TensorSpec((), "f64", weak=True)
            return np.asarray(leaf, dtype=np.int32), spec
        if isinstance(leaf, np.generic):
            leaf = np.asarray(leaf)
        # traced as a plain array: np.matrix's `x * x` was not its product, a subclass's
        # own __mul__ or __array_ufunc__ was not called
        redefined = redefined_numpy(leaf)
        if redefined is not None:
            raise ArgumentError(f"{where}: {redefined}")
        leaf = as_array(leaf, self.target, where)
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ArgumentError(
                f"{where}: a {type(leaf).__name__} is not an array; pass an array, or make it "
                "static (static_argnames)"
            )
        # uint16 is bf16 bits, as executables take them and return every bf16 result,
        # so that one jitted function's bf16 output is the next one's input
        dtype = "bf16" if np.dtype(leaf.dtype) == np.uint16 else leaf.dtype
        try:
            spec = TensorSpec(tuple(int(d) for d in leaf.shape), dtype)
        except TypeError as e:
            raise ArgumentError(f"{where}: {e}") from None
        t = type(leaf)
        if t is np.ndarray or (self.target == "cuda" and t.__module__.startswith("cupy")):
            if len(self._specs) >= 4096:
                self._specs.clear()
            self._specs[(leaf.shape, leaf.dtype)] = spec
        return leaf, spec

    # --- tracing and compiling ---------------------------------------------------------------

    def _trace(self, call: _Call, captured: list[tuple[np.ndarray, int]] | None = None
               ) -> tuple[ModuleOp, pytree.TreeDef]:  # fmt: skip
        out_def: list[pytree.TreeDef] = []
        static = dict(call.static)

        def flat(*tensors):
            dynamic = pytree.unflatten(call.treedef, list(tensors))
            arguments = {**dict(zip(call.names, dynamic)), **static}
            ordered = {n: arguments[n] for n in self._sig.parameters if n in arguments}
            bound = inspect.BoundArguments(self._sig, OrderedDict(ordered))  # type: ignore
            leaves, treedef = pytree.flatten(self.fn(*bound.args, **bound.kwargs))
            out_def.append(treedef)
            return tuple(self._result(leaf, path)
                         for leaf, path in zip(leaves, pytree.leaf_paths(treedef, "result")))  # fmt: skip

        module = trace_function(flat, call.specs, origin=self.fn, captured=captured)
        return module, out_def[0]

    def _result(self, leaf: Any, path: str) -> Any:
        """A leaf of the function's result: a traced tensor, or a constant returned as
        a 0-d (or array) result, as jax.jit does; anything else is an error naming the
        leaf by its path in the result."""
        if isinstance(leaf, Tensor):
            if leaf.weak and leaf.mlir_dtype == "f64":  # Python floats only: their type is f32
                from aicf.frontend import ops

                return ops.cast(leaf, "f32")
            return leaf
        converted = as_result(leaf, current_tracer())
        if converted is None:
            code = getattr(self.fn, "__code__", None)
            where = f"{code.co_filename}:{code.co_firstlineno}" if code else self._qualname
            raise CompileError(
                f"{where}: error: {self._name} returned a {type(leaf).__name__} at "
                f"{path}: a jit result holds traced tensors, arrays and Python numbers (in "
                "dicts, lists and tuples; None is an empty subtree)"
            )
        return converted

    def lower(self, *args: Any, **kwargs: Any) -> ModuleOp:
        """The traced module for arguments like these, without compiling it."""
        return self._trace(self._split(args, kwargs))[0]

    def _entry(self, call: _Call) -> tuple[Any, pytree.TreeDef, tuple]:
        key = call.key
        while True:
            with self._lock:
                hit = self._cache.get(key)
            stale = hit is not None and bool(hit[2]) and _changed(hit[2])
            if hit is not None and not stale:
                with self._lock:
                    if key in self._cache:  # not evicted by another thread meanwhile
                        self._cache.move_to_end(key)
                if _cache_log.isEnabledFor(logging.DEBUG):
                    _cache_log.debug("jit %s: hit %s", self._qualname, _describe(call))
                return hit
            with self._lock:
                pending = self._compiling.get(key)
                if pending is None:
                    mine = self._compiling[key] = threading.Lock()
                    mine.acquire()
                    break
            with pending:  # another thread compiles this key: wait, then look again
                pass
        try:
            return self._compile_entry(call, stale)
        finally:
            with self._lock:
                if self._compiling.get(key) is mine:
                    del self._compiling[key]
            mine.release()

    def _compile_entry(self, call: _Call, stale: bool) -> tuple[Any, pytree.TreeDef, tuple]:
        key = call.key
        if stale:
            _cache_log.info("jit %s: a closed-over array changed since the trace: tracing %s again",
                            self._qualname, _describe(call))  # fmt: skip
        elif _cache_log.isEnabledFor(logging.INFO):
            _cache_log.info("jit %s: miss %s", self._qualname, _describe(call))
        start = time.perf_counter()
        captured: list[tuple[np.ndarray, int]] = []
        module, out_def = self._trace(call, captured)
        traced = time.perf_counter()
        entry = (_compile(module, self.target, self.compile_options), out_def, _watch(captured))
        _compile_log.info("jit %s: traced in %.1f ms, compiled in %.1f ms", self._qualname,
                          (traced - start) * 1e3, (time.perf_counter() - traced) * 1e3)  # fmt: skip
        with self._lock:
            self.num_compilations += 1
            self._cache[key] = entry
            self._last = None  # the shortcut skips move_to_end: only the newest entry may take it
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
                self._last = None
                _cache_log.info("jit %s: evicted a specialisation (cache_size=%d)",
                                self._qualname, self.cache_size)  # fmt: skip
        return entry

    def executable(self, *args: Any, **kwargs: Any):
        """The executable for arguments like these (compiled on first use)."""
        return self._entry(self._split(args, kwargs))[0]

    def explain(self, *args: Any, **kwargs: Any) -> str:
        """The executable's `explain()` for arguments like these; without arguments,
        for every cached specialisation, most recently used last."""
        if args or kwargs:
            return self.executable(*args, **kwargs).explain()
        with self._lock:
            entries = list(self._cache.items())
        if not entries:
            return f"{self._name}: no specialisation compiled yet"
        parts = []
        for key, (exe, _, _) in entries:
            names, _, specs, static, _ = key.parts
            shapes = ", ".join(f"{s.dtype}{list(s.shape)}" for s in specs)
            statics = "".join(f", {n}={v!r}" for n, v in static)
            parts.append(f"# {self._name}({shapes}{statics})\n{exe.explain()}")
        return "\n\n".join(parts)

    def _fast_key(self, args: tuple) -> tuple | None:
        """The cache key of a call whose arguments are all plain arrays of the target's
        kind (the common case), without binding the signature or flattening pytrees;
        None for anything else, which takes the general path."""
        if self.static_argnames:
            return None
        key = []
        kinds = self._array_types
        for a in args:
            t = type(a)
            if t not in kinds:
                if not (self.target == "cuda" and t.__module__.startswith("cupy")):
                    return None
                kinds.add(t)
            key.append((t, a.shape, a.dtype))
        return tuple(key)

    def __call__(self, *args: Any, **kwargs: Any):
        if is_tracing():  # nested jit: inline into the outer trace
            try:
                self._sig.bind(*args, **kwargs)
            except TypeError as e:  # as the outer call says it, at the caller's line
                from aicf.frontend.tracer import located_error

                raise ArgumentError(str(located_error(None, f"{self._name}: {e}"))) from None
            return self.fn(*args, **kwargs)
        fast = None if kwargs else self._fast_key(args)
        hit = None
        last = self._last
        if fast is not None and last is not None and last[0] == fast:
            hit = last[1:]  # the most recently used entry already
        elif fast is not None:
            with self._lock:
                key = self._fast.get(fast)
                hit = self._cache.get(key) if key is not None else None
                if hit is not None:
                    self._cache.move_to_end(key)  # the LRU order is _cache's
                    self._last = (fast, *hit)
        if hit is not None and hit[2] and _changed(hit[2]):
            hit = None  # a closed-over array changed in place: _entry traces again
        if hit is not None:  # a plain-array call seen before: the same entry, ~20 us less
            exe, out_def, _ = hit
            out = exe(*args)
        else:
            call = self._split(args, kwargs)
            exe, out_def, _ = self._entry(call)
            if fast is not None:
                with self._lock:
                    if len(self._fast) >= 4 * self.cache_size:
                        self._fast.clear()  # aliases of _cache's keys, dropped with them
                    self._fast[fast] = call.key
            out = exe(*call.leaves)
        if out_def.kind == "leaf":  # one array, the common case
            return out
        flat = list(out) if out_def.num_leaves != 1 else [out]
        return pytree.unflatten(out_def, flat)


def jit(fn: Callable[..., Any] | None = None, *, target: str = "cpu",
        static_argnums: int | Iterable[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE, fuse: bool = True,
        force: str | Iterable[str] = (), tune: bool | str | None = None,
        matmul_precision: str | None = None, debug: bool | None = None):  # fmt: skip
    """Decorator: compile `fn` for `target` ("cpu" or "cuda") on its first call with
    each new specialisation (see the module docstring). `fuse`, `force`, `tune`,
    `matmul_precision` and `debug` are aicf.compile's, checked here and passed to each
    compile (`matmul_precision=None`: aicf.set_float32_matmul_precision's at that
    specialisation's first call), e.g.

        @aicf.jit(target="cuda", force="gpu.cublas_gemm")
        def mlp(x, w): ...

    bf16 arrays: pass an `ml_dtypes.bfloat16` array or its bits as uint16 (a torch
    bf16 tensor as `x.view(torch.uint16)`); bf16 results are uint16 bits, which a
    jitted function takes again as bf16:

        y = aicf.jit(lambda x: x * 2)(np.array([1.5], ml_dtypes.bfloat16))
        y.view(ml_dtypes.bfloat16)   # array([3], dtype=bfloat16); y.dtype is uint16
    """
    options = dict(target=target, static_argnums=static_argnums,
                   static_argnames=static_argnames, cache_size=cache_size, fuse=fuse, force=force,
                   tune=tune, matmul_precision=matmul_precision, debug=debug)  # fmt: skip
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)
