"""Tracing a Python function into an `aicf_tensor` module.

The tracer runs the function once on `Tensor` proxies. Each op is built, given the
type the NumPy rules infer (so a shape error stops the trace at once, naming the
user's line), checked against the existing ops for a duplicate (CSE) and, when its
operands are all constants, evaluated with NumPy instead (`fold.evaluate`, the same
code as `aicf-fold-constants`). Every op carries a FileLineColLoc of the user's line,
so later diagnostics (passes, lowering) point there too.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from aicf.dialects import tensor as T
from aicf.dialects.shape_rules import DYN
from aicf.errors import CompileError
from aicf.frontend.tensor import Tensor, spec_of
from aicf.passes.tensor import fold

_FRONTEND_DIR = os.path.dirname(os.path.abspath(__file__))
_AICF_OPS = os.path.join(os.path.dirname(_FRONTEND_DIR), "ops.py")
# NumPy's own Python frames (np.var calling np.mean, say) are not the user's line either
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class _TraceStack(threading.local):
    """The traces under way, innermost last: one stack per thread, so that threads
    trace independently."""

    def __init__(self) -> None:
        self.tracers: list[Tracer] = []


_active = _TraceStack()


def current_tracer() -> Tracer:
    if not _active.tracers:
        raise CompileError(
            "aicf.ops used outside a trace: call it inside a function given to "
            "aicf.trace or aicf.jit"
        )
    return _active.tracers[-1]


def is_tracing() -> bool:
    """Whether this thread is inside a trace."""
    return bool(_active.tracers)


def _is_internal(path: str) -> bool:
    return (
        path.startswith(_FRONTEND_DIR + os.sep)
        or path == _AICF_OPS
        or path.startswith(_NUMPY_DIR + os.sep)
    )


def user_location() -> tuple[str, int]:
    """(file, line) of the innermost frame outside aicf's front end and NumPy."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _is_internal(os.path.abspath(frame.f_code.co_filename)):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _loc(file: str, line: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(0))


def located_error(op_name: str | None, message: str) -> CompileError:
    """`file:line: error: 'op' message` at the user's line."""
    file, line = user_location()
    what = f"'{op_name}' " if op_name else ""
    return CompileError(f"{file}:{line}: error: {what}{message}")


def _strip(op_name: str, e: Exception) -> str:
    msg = str(e).strip()
    prefix = f"'{op_name}': "
    return msg[len(prefix):] if msg.startswith(prefix) else msg


def _symbol(name: str) -> str:
    return re.sub(r"\W", "_", name) or "main"


class Tracer:
    """Builds one func.func body; see the module docstring."""

    def __init__(self, arg_types: Sequence[Attribute]):
        self.block = Block(arg_types=arg_types)
        self.finished = False
        self._cse: dict[tuple, SSAValue] = {}
        self._values: dict[SSAValue, np.ndarray] = {}
        # the closed-over NumPy arrays made constants (ops._array_constant), with their
        # checksum when first met: aicf.jit watches them for changes made in place after
        # the trace
        self.captured: list[tuple[np.ndarray, int]] = []
        self._captured_ids: set[int] = set()

    def capture(self, array: np.ndarray) -> None:
        """Record a closed-over array about to become a constant, with its checksum
        now, before its value is copied: taken later (after the compile), a change made
        meanwhile by another thread was in the checksum but not in the program, which
        then kept the old value on every call. A view's base is recorded too: a view
        made in the function (`x @ W.T`, `b[::-1]`) is freed after the trace, and with
        it aicf.jit's weak reference, so that `W -= lr * dW` went unseen."""
        root = array
        while True:
            base = root.base
            if not isinstance(base, np.ndarray):
                # as_strided's and sliding_window_view's: a DummyArray holding the array
                # viewed (stopped there, the view made in the function was freed after
                # the trace and a change of the closed-over array in place went unseen);
                # np.asarray(memoryview(W)): the memoryview's
                held = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
                base = held if isinstance(held, np.ndarray) else base
            if not isinstance(base, np.ndarray) or base.dtype.hasobject:
                break  # (a field of a record array with objects: its bytes alone)
            root = base
        watched = [(array, None)]
        if root is not array:  # the bytes of the base the view spans (all of it if not contiguous)
            watched.append((root, _span(array, root)))
        for a, span in watched:
            if (id(a), span) not in self._captured_ids:
                self._captured_ids.add((id(a), span))
                self.captured.append((a, checksum(a, span)))

    # --- building ---------------------------------------------------------------------------

    def _check_live(self, what: str) -> None:
        if self.finished:
            # JAX's UnexpectedTracerError: a tensor kept past its trace (a global, a
            # closure, a list) would add ops to a program that is compiled already
            raise located_error(what, "a traced tensor used after its trace ended (it leaked out of the "
                                      "traced function); return it instead, or trace the code that uses it")
        if self not in _active.tracers:
            # a tensor of a trace under way in another thread: its ops would go into
            # that thread's program, unsynchronised (xDSL's blocks are not thread-safe)
            raise located_error(what, "a traced tensor used outside its trace (it belongs to a trace under "
                                      "way in another thread); trace the code that uses it")

    def _append(self, op: Operation) -> None:
        op.location = _loc(*user_location())
        self._check_live(op.name)
        self.block.add_op(op)

    def constant(self, value: np.ndarray, tensor_type: TensorType) -> Tensor:
        """A constant of `tensor_type` holding `value` (rounded to its dtype); equal
        constants are shared."""
        try:
            attr = fold.from_numpy(value, tensor_type)
        except MemoryError:
            raise located_error(T.ConstantOp.name, f"a constant {tensor_type} does not fit in this "
                                "machine's memory; pass the data as an argument") from None
        key = ("constant", attr)
        if (hit := self._cse.get(key)) is None:
            op = T.ConstantOp(attr)
            self._append(op)
            hit = self._cse[key] = op.result
            self._values[hit] = fold.to_numpy(attr)
        return Tensor(hit, self)

    def emit(
        self,
        cls: type[T.TensorOp],
        operands: Sequence[Tensor],
        properties: dict[str, Attribute] | None = None,
        result_element: Attribute | None = None,
    ) -> Tensor:
        """Build `cls` on `operands` with the inferred result type, reusing an
        identical op or folding it when its operands are constants."""
        self._check_live(cls.name)
        properties = properties or {}
        values = [t.value for t in operands]
        elt = result_element or T.element_type(values[0].type)
        probe = cls.create(
            operands=values, result_types=[UnrankedTensorType(elt)], properties=properties
        )
        try:
            result_type = probe.inferred_type()
            op = cls.create(operands=values, result_types=[result_type], properties=properties)
        except VerifyException as e:
            raise located_error(cls.name, _strip(cls.name, e)) from None
        finally:
            probe.drop_all_references()
        try:
            op.verify()
        except VerifyException as e:
            op.drop_all_references()
            raise located_error(cls.name, _strip(cls.name, e)) from None

        key = (cls.name, tuple(values), tuple(sorted(properties.items())), result_type)
        if (hit := self._cse.get(key)) is not None:
            op.drop_all_references()
            return Tensor(hit, self)
        if all(v in self._values for v in values) and fold.foldable_type(result_type):
            value = fold.evaluate(op, [self._values[v] for v in values])
            if value is not None:
                op.drop_all_references()
                return self.constant(value, result_type)  # type: ignore[arg-type]
        self._append(op)
        self._cse[key] = op.results[0]
        return Tensor(op.results[0], self)

    def emit_nullary(self, op: T.TensorOp) -> Tensor:
        """Append `op` (no operands, its result type given), verified; equal ops are
        shared."""
        try:
            op.verify()
        except VerifyException as e:
            raise located_error(op.name, _strip(op.name, e)) from None
        key = (op.name, tuple(sorted(op.properties.items())), op.results[0].type)
        if (hit := self._cse.get(key)) is None:
            self._append(op)
            hit = self._cse[key] = op.results[0]
        return Tensor(hit, self)

    # --- finishing ---------------------------------------------------------------------------

    def finish(self, name: str, results: Sequence[Tensor], loc: FileLineColLoc) -> ModuleOp:
        ret = func.ReturnOp(*[r.value for r in results])
        self.finished = True
        ret.location = loc
        self.block.add_op(ret)
        self._erase_dead()
        inputs = [a.type for a in self.block.args]
        f = func.FuncOp(_symbol(name), (inputs, [r.value.type for r in results]), Region(self.block))
        f.location = loc
        module = ModuleOp([f])
        try:
            module.verify()
        except VerifyException as e:  # a bug of the tracer, not of the user's program
            raise CompileError(f"{loc.filename.data}:{loc.line.data}: error: {e}") from None
        return module

    def _erase_dead(self) -> None:
        """Constants folded away and other unused ops (all pure) are dropped."""
        for op in reversed(list(self.block.ops)):
            if isinstance(op, T.TensorOp) and all(not r.uses for r in op.results):
                self.block.erase_op(op)


def _arg_type(arg: Any) -> TensorType:
    spec = spec_of(arg)
    shape = [DYN if d is None else d for d in spec.shape]
    return TensorType(T.dtype_from_name(spec.dtype), shape)


def trace(fn: Callable[..., Any], *example_args: Any) -> ModuleOp:
    """Trace `fn` on tensors shaped like `example_args` (arrays, TensorSpecs, or Python
    scalars: weak 0-d tensors) into a ModuleOp holding one func.func named after `fn`."""
    import inspect

    from aicf.errors import ArgumentError

    if not callable(fn):
        raise ArgumentError(f"aicf.trace expects a function, got {type(fn).__name__} {fn!r:.60}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without one: the call says what is wrong
        signature = None
    if signature is not None:
        try:
            signature.bind(*example_args)
        except TypeError as e:  # raised from inside the trace, it named no one
            raise ArgumentError(f"aicf.trace: {getattr(fn, '__name__', type(fn).__name__)}: {e}") from None
    return trace_function(fn, example_args)


def _span(view: np.ndarray, root: np.ndarray) -> tuple[int, int] | None:
    """The bytes [lo, hi) of the contiguous array `root` that `view` (a view of it)
    reads, None (all of them) for a root that is not contiguous."""
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    lo = hi = view.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if view.size == 0:
        return lo, lo
    for n, stride in zip(view.shape, view.strides):
        lo, hi = lo + min(0, (n - 1) * stride), hi + max(0, (n - 1) * stride)
    return max(lo, 0), min(hi + view.itemsize, root.nbytes)


def checksum(array: np.ndarray, span: tuple[int, int] | None = None) -> tuple:
    """The array's shape, dtype and a CRC of its values (aicf.jit's test for a change
    in place: `w.shape = (2, 2)` or `w.dtype = ...` keeps the bytes); with a `span`,
    of those bytes of the (contiguous) array only."""
    if span is not None and (array.flags.c_contiguous or array.flags.f_contiguous):
        # as a plain ndarray: a subclass's reshape may not flatten (np.matrix's is 1 x n,
        # whose [lo:hi] took rows: a change of an np.matrix base in place went unseen)
        data = np.asarray(array).reshape(-1, order="A").view(np.uint8)[span[0]:span[1]]
    else:
        data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    return array.shape, array.dtype, span, zlib.crc32(data)


def trace_function(fn: Callable[..., Any], example_args: Sequence[Any],
                   origin: Callable[..., Any] | None = None,
                   captured: list[tuple[np.ndarray, int]] | None = None) -> ModuleOp:  # fmt: skip
    """`trace`, with the function's name and location taken from `origin` (the user's
    function, where `fn` wraps it); the closed-over arrays it made constants are
    appended to `captured`, each with its checksum (Tracer.capture)."""
    origin = origin or fn
    code = getattr(origin, "__code__", None)
    file = code.co_filename if code else "<unknown>"
    line = code.co_firstlineno if code else 0
    name = getattr(origin, "__name__", "main")
    loc = _loc(file, line)
    specs = [spec_of(a) for a in example_args]
    tracer = Tracer([_arg_type(s) for s in specs])
    for arg in tracer.block.args:
        arg.location = loc
    args = [Tensor(a, tracer, weak=s.weak) for a, s in zip(tracer.block.args, specs)]
    _active.tracers.append(tracer)
    try:
        out = fn(*args)
        results = list(out) if isinstance(out, (tuple, list)) else [out]
        for i, r in enumerate(results):  # still on the stack: a returned number is a constant op
            c = None if isinstance(r, Tensor) else as_result(r, tracer)
            if c is not None:
                results[i] = c
            elif not isinstance(r, Tensor) or r.tracer is not tracer:
                raise CompileError(
                    f"{file}:{line}: error: {name} must return traced tensors, arrays or "
                    f"numbers (or a tuple of them), got {type(r).__name__}"
                )
    finally:
        _active.tracers.pop()
        if captured is not None:
            captured.extend(tracer.captured)
    return tracer.finish(name, results, loc)


def as_result(value: Any, tracer: Tracer) -> Tensor | None:
    """A constant returned by a traced function as a tensor, as jax.jit returns it: a
    Python number a weak 0-d tensor (f32, i32; a bool i1), a NumPy array or scalar by
    aicf's constant rules (float64 as f32). None for anything else."""
    from aicf.frontend import ops

    if isinstance(value, bool | np.bool_):
        return Tensor(tracer.constant(np.asarray(value), TensorType(T.dtype_from_name("i1"), [])).value,
                      tracer, weak=True)  # fmt: skip
    if isinstance(value, int | float | np.integer | np.floating | np.ndarray):
        return ops._as_tensor(value, tracer, None, "a result")
    return None
