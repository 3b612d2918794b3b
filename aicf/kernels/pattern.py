"""Patterns: which loop nest or group an external kernel computes, and how its
arguments line up with the op's buffers.

A kernel's pattern is an aicf_tensor function. It is lowered through the same
tensor pipeline a program goes through (fusion for the kernel's target, bufferizing,
view folding; on cuda also the matmul-epilogue grouping) at example extents (its
static extents; a `?` takes the value of its guard symbol, else 32), and must come
out as ONE nest or group. That op's canonical structural IR (`signature`: the op
alone on its boundary buffers, without schedules, value names, extents or memref
layouts) is compared with the signature of each nest and group of a program: equal
signatures compute the same thing up to extents, with boundary buffer i of one
playing boundary buffer i of the other. The guard then decides on the extents.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType, UnrankedTensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation

from aicf.dialects.boundary import boundary, standalone
from aicf.dialects.loop import GroupOp, NestOp
from aicf.dialects.schedule import SCHEDULE_ATTR
from aicf.errors import AicfError, CompileError
from aicf.lru import LruCache

from .kernel import ExternalKernel, Guard, kernel_error

DEFAULT_EXTENT = 32
_EXAMPLES = (48, 40, 56, 24, 72, 88, 104, 120)


# --- canonical structural IR ------------------------------------------------------------------

_MEMREF_DIMS = re.compile(r"memref<((?:(?:\d+|\?)x)+)")
_LAYOUT = re.compile(r", strided<\[[^\]]*\](?:, offset: [^>]*)?>")
_EXTENTS = re.compile(r"\b(domain|shared) = \[([^\]]*)\]")


def _strip(module: ModuleOp) -> None:
    for op in module.walk():
        op.attributes.pop(SCHEDULE_ATTR, None)
        for r in op.results:
            r.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.name_hint = None


def signature(op: Operation) -> str:
    """The op's canonical structural IR: extents and layouts erased (see the module
    docstring)."""
    module = standalone(op)
    _strip(module)
    text = str(module)
    text = _MEMREF_DIMS.sub(lambda m: "memref<" + "?x" * m.group(1).count("x"), text)
    text = _LAYOUT.sub("", text)
    return _EXTENTS.sub(lambda m: f"{m.group(1)} = [" + ", ".join("?" for _ in m.group(2).split(",")) + "]", text)


def exact_ir(op: Operation) -> str:
    """The op alone on its boundary buffers, with extents and layouts (the problem a
    measurement is for), schedules and value names left out."""
    module = standalone(op)
    _strip(module)
    return str(module)


def memref_info(v) -> tuple[tuple[int, ...], str, bool]:
    """(shape, dtype name, dense row-major) of a boundary buffer."""
    t = v.type
    assert isinstance(t, MemRefType)
    shape = tuple(t.get_shape())
    strides = t.get_strides()
    dense = strides is None or list(strides) == _dense_strides(shape)
    return shape, str(t.get_element_type()), dense


def _dense_strides(shape) -> list[int]:
    out, acc = [], 1
    for e in reversed(shape):
        out.append(acc)
        acc *= e
    return out[::-1]


def reduces(op: Operation) -> bool:
    """Whether some nest of the op sums or folds (a reduction's tolerances apply)."""
    nests = [op] if isinstance(op, NestOp) else list(op.nests)  # type: ignore[attr-defined]
    return any(n.reduction_dims for n in nests)


# --- pattern functions -----------------------------------------------------------------------


def parse_pattern(text: str, where: str) -> tuple[ModuleOp, FuncOp]:
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    try:
        module = parse_module(make_context(), text, f"<pattern of {where}>")
    except (CompileError, AicfError) as e:
        raise kernel_error(where, f"its pattern does not parse: {e}") from None
    funcs = [o for o in module.ops if isinstance(o, FuncOp)]
    if len(funcs) != 1 or len(list(module.ops)) != 1:
        raise kernel_error(where, "its pattern must be one func.func of aicf_tensor ops")
    fn = funcs[0]
    types = [*fn.function_type.inputs.data, *fn.function_type.outputs.data]
    if not fn.function_type.outputs.data or not all(isinstance(t, TensorType | UnrankedTensorType) for t in types):
        raise kernel_error(where, "its pattern takes and returns tensors (and returns at least one)")
    for a in fn.function_type.inputs.data:
        if not isinstance(a, TensorType):
            raise kernel_error(where, f"the pattern's arguments must be ranked tensors, got {a}")
    return module, fn


def _generalize(fn: FuncOp) -> None:
    """Every result type unranked (its element type kept), so inference can re-derive
    extents for other argument shapes."""
    from xdsl.rewriter import Rewriter

    for op in fn.body.walk():
        if op is fn or isinstance(op, ReturnOp):
            continue
        for r in op.results:
            if isinstance(r.type, TensorType):
                Rewriter.replace_value_with_new_type(r, UnrankedTensorType(r.type.get_element_type()))
    fn.update_function_type()


def specialize(text: str, shapes: list[tuple[int, ...]]) -> ModuleOp | str:
    """The pattern at these input shapes, shapes inferred; the reason if it cannot be."""
    from xdsl.rewriter import Rewriter

    from aicf.compiler import run_pipeline

    try:
        module, fn = parse_pattern(text, "pattern")
    except CompileError as e:
        return str(e)
    if len(shapes) != len(fn.args):
        return f"the pattern takes {len(fn.args)} inputs"
    for a, s in zip(fn.args, shapes):
        t = a.type
        assert isinstance(t, TensorType)
        if len(s) != len(t.get_shape()):
            return f"rank {len(s)} for an input of rank {len(t.get_shape())}"
        Rewriter.replace_value_with_new_type(a, TensorType(t.get_element_type(), list(s)))
    _generalize(fn)
    try:
        run_pipeline(module, ["aicf-infer-shapes"])
    except (CompileError, AicfError) as e:
        return str(e).strip().splitlines()[0]
    return module


def _example_shapes(fn: FuncOp, guard: Guard) -> list[tuple[int, ...]]:
    values: dict[str, int] = {}
    for s in guard.shapes or ():
        for d in s:
            if isinstance(d, str) and d not in values:
                v = _EXAMPLES[len(values) % len(_EXAMPLES)]
                c = guard.constraints.get(d, {})
                m = c.get("multiple_of", 1)
                v = max(v, c.get("min", 0))
                v = -(-v // m) * m
                if "max" in c and v > c["max"]:
                    v = c["max"] // m * m
                values[d] = v
    out = []
    for i, a in enumerate(fn.args):
        t = a.type
        assert isinstance(t, TensorType)
        want = guard.shapes[i] if guard.shapes is not None and i < len(guard.shapes) else None
        dims = []
        for k, e in enumerate(t.get_shape()):
            if e >= 0:
                dims.append(e)
                continue
            g = want[k] if want is not None and k < len(want) else None
            dims.append(g if isinstance(g, int) else values.get(g, DEFAULT_EXTENT) if isinstance(g, str) else DEFAULT_EXTENT)
        out.append(tuple(dims))
    return out


def lower(module: ModuleOp, target: str) -> None:
    """The tensor pipeline a program goes through before planning, for `target`."""
    from aicf.compiler import TENSOR_PIPELINE, run_pipeline

    passes = [f"aicf-fuse{{target={'cpu' if target == 'cpu' else 'gpu'}}}" if p == "aicf-fuse" else p
              for p in TENSOR_PIPELINE]
    if target == "cuda":
        passes.append("aicf-fuse-epilogue")
    run_pipeline(module, passes)


def top_level_ops(fn: FuncOp) -> list[Operation]:
    """The nests and groups a function runs (not the nests inside groups)."""
    return [o for o in fn.body.block.ops if isinstance(o, NestOp | GroupOp)]


@dataclass(frozen=True)
class LoweredPattern:
    """A kernel's pattern at the loop level: its signature, which boundary buffer each
    kernel argument is (`args`), and what the reference needs."""

    signature: str
    args: tuple[int, ...]  # kernel argument k -> boundary buffer index
    order: tuple[int, ...]  # kernel argument k -> pattern input, or num_inputs + result
    num_inputs: int
    num_outputs: int
    reduces: bool


def _lower(kernel: ExternalKernel) -> LoweredPattern:
    where = f"'{kernel.name}'"
    module, fn = parse_pattern(kernel.pattern, where)
    n_in = len(fn.args)
    n_out = len(fn.function_type.outputs.data)
    if kernel.guard.shapes is not None and len(kernel.guard.shapes) != n_in:
        raise kernel_error(where, f"the guard gives {len(kernel.guard.shapes)} shapes for the pattern's {n_in} inputs")
    shapes = _example_shapes(fn, kernel.guard)
    specialized = specialize(kernel.pattern, shapes)
    if isinstance(specialized, str):
        raise kernel_error(where, f"the pattern does not hold at its example shapes {shapes}: {specialized}")
    try:
        lower(specialized, kernel.target)
    except (CompileError, AicfError) as e:
        raise kernel_error(where, f"the pattern does not lower: {e}") from None
    lfn = next(o for o in specialized.ops if isinstance(o, FuncOp))
    ops = top_level_ops(lfn)
    others = [o.name for o in lfn.body.block.ops
              if not isinstance(o, NestOp | GroupOp | ReturnOp) and o.name not in ("memref.alloc", "memref.dealloc")]
    if len(ops) != 1 or others:
        what = ", ".join([o.name for o in ops] + others) or "nothing"
        raise kernel_error(where, f"the pattern must lower to one loop nest or group (one fused kernel) at its "
                                  f"example shapes {shapes}; it lowers to {what}")
    op = ops[0]
    ins, outs = boundary(op)
    bufs = ins + outs
    fargs = list(lfn.args)
    if set(bufs) != set(fargs) or len(bufs) != len(fargs):
        raise kernel_error(where, "the pattern's nest must read every argument and write every result "
                                  "(constants other than splats: pass them as arguments)")
    perm = [bufs.index(a) for a in fargs]  # pattern argument j -> boundary index
    order = kernel.arg_order if kernel.arg_order is not None else tuple(range(len(perm)))
    if len(order) != len(perm):
        raise kernel_error(where, f"arg_order has {len(order)} entries for the pattern's {len(perm)} "
                                  "inputs and results")
    args = tuple(perm[j] for j in order)
    _check_expressions(kernel, where, shapes, [tuple(bufs[b].type.get_shape()) for b in args])
    return LoweredPattern(signature(op), args, tuple(order), n_in, n_out, reduces(op))


def _check_expressions(kernel: ExternalKernel, where: str, in_shapes, arg_shapes) -> None:
    """The workspace and launch expressions, evaluated at the example shapes: a name
    the guard does not bind, or a dim() past an argument's rank, is a mistake of the
    kernel's description, said now rather than as every op's rejection."""
    from .kernel import evaluate, expr_names

    symbols = kernel.guard.bind(in_shapes) if kernel.guard.shapes is not None else {}
    if isinstance(symbols, str):
        return  # example shapes outside the guard: the gate's cases will say
    exprs = [("workspace", kernel.workspace)]
    if kernel.launch is not None:
        exprs += [("launch grid", e) for e in kernel.launch.grid] + [("launch block", e) for e in kernel.launch.block]
        exprs.append(("launch smem", kernel.launch.smem))
    for what, text in exprs:
        unbound = [n for n in expr_names(text) if n not in symbols]
        if unbound:
            known = ", ".join(sorted(symbols)) or "none: the guard gives no shapes"
            raise kernel_error(where, f"its {what} '{text}' uses {', '.join(repr(n) for n in unbound)}, which "
                                      f"no guard shape names (the guard's symbols: {known})")
        try:
            evaluate(text, symbols, arg_shapes)
        except (IndexError, ZeroDivisionError) as e:
            ranks = ", ".join(f"#{k} rank {len(s)}" for k, s in enumerate(arg_shapes))
            raise kernel_error(where, f"its {what} '{text}' cannot be evaluated ({type(e).__name__}: {e}); "
                                      f"kernel arguments: {ranks}") from None


def operands(lp: LoweredPattern, op: Operation) -> tuple[list, list]:
    """The op's buffers playing each pattern input, and each kernel argument."""
    ins, outs = boundary(op)
    bufs = ins + outs
    per_arg = [bufs[b] for b in lp.args]
    per_input: list = [None] * lp.num_inputs
    for k, p in enumerate(lp.order):
        if p < lp.num_inputs:
            per_input[p] = per_arg[k]
    return per_input, per_arg


_LOWERED = LruCache(256)


def lower_pattern(kernel: ExternalKernel) -> LoweredPattern:
    """The kernel's pattern at the loop level (cached); CompileError saying what is
    wrong with it."""
    key = json.dumps([kernel.name, kernel.target, kernel.pattern, kernel.guard.to_data(), kernel.arg_order,
                      kernel.workspace, kernel.launch.to_data() if kernel.launch else None])
    found = _LOWERED.get(key)
    if found is None:
        found = _LOWERED[key] = _lower(kernel)
    return found
