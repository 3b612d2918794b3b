"""aicf-lower-to-loops, end to end on random inputs: lower, print, parse again, then
run the loop IR with a tiny NumPy interpreter of `aicf_loop.nest` (below, used only
here) and compare with NumPy expressions written in the tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr

from aicf.context import make_context
from aicf.diagnostics import parse_module, verify_module
from aicf.dialects import shape_rules as rules
from aicf.dialects.loop import Combiner, NestOp
from aicf.errors import CompileError
from aicf.lowering.tensor_to_loop import LowerToLoopsPass

# --- the interpreter ------------------------------------------------------------------------
# bf16 buffers are float32 arrays holding bf16-representable values.


def _bf16(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def _np_dtype(t):
    return {Float16Type: np.float16, BFloat16Type: np.float32, Float32Type: np.float32,
            Float64Type: np.float64}.get(type(t), np.int32)  # fmt: skip


def _as(x, t):
    x = np.asarray(x)
    if isinstance(t, IntegerType) and x.dtype.kind == "f":
        x = np.trunc(x)
    y = x.astype(_np_dtype(t))
    return _bf16(y) if isinstance(t, BFloat16Type) else y


_erf = np.vectorize(math.erf, otypes=[np.float64])
_SCALAR = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
    "arith.divsi": lambda a, b: (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b),
    "arith.negf": np.negative, "math.exp": np.exp, "math.log": np.log, "math.sin": np.sin,
    "math.cos": np.cos, "math.tanh": np.tanh, "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1 / np.sqrt(x), "math.absf": np.abs, "math.absi": np.abs,
    "math.erf": lambda x: _erf(x).astype(x.dtype), "math.powf": np.power,
    "math.ipowi": np.power,
}  # fmt: skip
_CONVERT = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi", "arith.extsi", "arith.trunci")


def _affine(e, idx):
    if isinstance(e, AffineDimExpr):
        return idx[e.position]
    if isinstance(e, AffineConstantExpr):
        return np.full_like(idx[0] if len(idx) else np.zeros(1, int), e.value)
    assert isinstance(e, AffineBinaryOpExpr)
    a, b = _affine(e.lhs, idx), _affine(e.rhs, idx)
    return {AffineBinaryOpKind.Add: np.add, AffineBinaryOpKind.Mul: np.multiply,
            AffineBinaryOpKind.FloorDiv: np.floor_divide, AffineBinaryOpKind.Mod: np.mod}[e.kind](a, b)  # fmt: skip


def _run_nest(nest: NestOp, bufs):
    ext = nest.extents
    npts = math.prod(ext)
    idx = np.indices(ext).reshape(len(ext), npts) if ext else np.zeros((0, 1), int)
    npts = max(npts, 0) if ext else 1
    env = {}
    for arg, v, m in zip(nest.body.block.args, nest.inputs, nest.input_maps):
        env[arg] = bufs[v][tuple(_affine(r, idx) for r in m.results)]
    for op in nest.body.block.ops:
        if op.name == "arith.constant":
            env[op.results[0]] = _as(op.value.value.data, op.results[0].type)
        elif op.name in _CONVERT:
            env[op.results[0]] = _as(env[op.operands[0]], op.results[0].type)
        elif op.name != "aicf_loop.yield":
            with np.errstate(all="ignore"):
                r = _SCALAR[op.name](*(env[v] for v in op.operands))
            env[op.results[0]] = _as(r, op.results[0].type)
    # The image of the parallel dims: every output element written (also when a
    # reduction dim is empty).
    par_ext = [e if i in nest.parallel_dims else 1 for i, e in enumerate(ext)]
    par = np.indices(par_ext).reshape(len(ext), -1) if ext else np.zeros((0, 1), int)
    for v, out, m, c in zip(nest.yield_op.values, nest.outputs, nest.output_maps, nest.combiner_kinds):
        val = np.broadcast_to(env[v], (npts,))
        flat, shape = bufs[out].reshape(-1), bufs[out].shape  # a view: buffers are contiguous
        where = np.ravel_multi_index(tuple(_affine(r, idx) for r in m.results), shape) if shape else np.zeros(npts, int)
        if c is Combiner.NONE:
            flat[where] = _as(val, out.type.element_type)
            continue
        store = np.ravel_multi_index(tuple(_affine(r, par) for r in m.results), shape) if shape else np.zeros(1, int)
        acc = np.full(flat.shape, c.identity(val.dtype.kind == "f"), val.dtype)
        {Combiner.ADD: np.add, Combiner.MAX: np.maximum, Combiner.MIN: np.minimum,
         Combiner.MUL: np.multiply}[c].at(acc, where, val)  # fmt: skip
        flat[store] = _as(acc[store], out.type.element_type)


def _poison(t: MemRefType):
    """So that unwritten elements show."""
    dt = _np_dtype(t.element_type)
    return np.full(t.get_shape(), -12345 if dt == np.int32 else np.nan, dt)


def interpret(module: ModuleOp, *args):
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    globs = {op.sym_name.data: op for op in module.walk() if isinstance(op, memref.GlobalOp)}
    nout = f.attributes["aicf.num_outputs"].value.data
    block = f.body.block
    bufs = {}
    for a, x in zip(block.args, args):
        assert tuple(a.type.get_shape()) == x.shape
        bufs[a] = _as(x, a.type.element_type).copy()
    outs = block.args[len(block.args) - nout :]
    for o in outs:
        bufs[o] = _poison(o.type)
    for op in block.ops:
        if isinstance(op, memref.AllocOp):
            bufs[op.memref] = _poison(op.memref.type)
        elif isinstance(op, memref.DeallocOp):
            del bufs[op.memref]
        elif isinstance(op, memref.GetGlobalOp):
            g = globs[op.name_.root_reference.data]
            v: DenseIntOrFPElementsAttr = g.initial_value
            bufs[op.memref] = _as(np.array(v.get_values()).reshape(v.get_shape()), v.get_element_type())
        elif isinstance(op, NestOp):
            _run_nest(op, bufs)
        else:
            assert isinstance(op, func.ReturnOp)
    res = [bufs[o] for o in outs]
    return res[0] if len(res) == 1 else tuple(res)


# --- helpers -----------------------------------------------------------------------------------


def lower(text: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "test.mlir")
    LowerToLoopsPass().apply(ctx, module)
    verify_module(module)
    reparsed = parse_module(ctx, str(module), "lowered.mlir")
    assert str(reparsed) == str(module)
    return reparsed


def run(text: str, *args):
    return interpret(lower(text), *args)


rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float32, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def close(got, want, rtol=2e-6, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert not np.isnan(got).any() or np.isnan(want).any()
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


def T(shape, dt="f32"):
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dt}>"


# --- elementwise ------------------------------------------------------------------------------

UNARY = {
    "neg": np.negative, "exp": np.exp, "log": lambda x: np.log(np.abs(x)), "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "sqrt": lambda x: np.sqrt(np.abs(x)),
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x)), "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0),
    "gelu": lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2))),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x.astype(np.float64))),
}  # fmt: skip


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    x = rand(3, 5)
    if name in ("log", "sqrt", "rsqrt"):
        x = np.abs(x) + 0.1
    src = f"""func.func @f(%x: {T((3, 5))}) -> {T((3, 5))} {{
      %0 = aicf_tensor.{name} %x : ({T((3, 5))}) -> {T((3, 5))}
      func.return %0 : {T((3, 5))}
    }}"""
    close(run(src, x), UNARY[name](x), rtol=1e-6)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum, "pow": np.power}  # fmt: skip


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((1, 0), (5, 1))])
def test_binary_broadcast(name, sa, sb):
    a, b = rand(*sa), rand(*sb)
    if name == "pow":
        a = np.abs(a) + 0.1
    so = np.broadcast_shapes(sa, sb)
    src = f"""func.func @f(%a: {T(sa)}, %b: {T(sb)}) -> {T(so)} {{
      %0 = aicf_tensor.{name} %a, %b : ({T(sa)}, {T(sb)}) -> {T(so)}
      func.return %0 : {T(so)}
    }}"""
    close(run(src, a, b), BINARY[name](a, b), rtol=1e-6)


def test_max_propagates_nan():
    a, b = np.array([np.nan, 1.0, 2.0], np.float32), np.array([0.0, np.nan, 3.0], np.float32)
    src = f"""func.func @f(%a: {T((3,))}, %b: {T((3,))}) -> {T((3,))} {{
      %0 = aicf_tensor.max %a, %b : ({T((3,))}, {T((3,))}) -> {T((3,))}
      func.return %0 : {T((3,))}
    }}"""
    got = run(src, a, b)
    assert np.isnan(got[:2]).all() and got[2] == 3.0


def test_integer_elementwise():
    a = rng.integers(-20, 20, (4, 3)).astype(np.int32)
    b = rng.integers(1, 5, (3,)).astype(np.int32)
    ti, tb = T((4, 3), "i32"), T((3,), "i32")
    src = f"""func.func @f(%a: {ti}, %b: {tb}) -> ({ti}, {ti}, {ti}) {{
      %0 = aicf_tensor.sub %a, %b : ({ti}, {tb}) -> {ti}
      %1 = aicf_tensor.neg %0 : ({ti}) -> {ti}
      %2 = aicf_tensor.relu %1 : ({ti}) -> {ti}
      %3 = aicf_tensor.div %a, %b : ({ti}, {tb}) -> {ti}
      %4 = aicf_tensor.abs %a : ({ti}) -> {ti}
      func.return %2, %3, %4 : {ti}, {ti}, {ti}
    }}"""
    r, q, ab = run(src, a, b)
    np.testing.assert_array_equal(r, np.maximum(-(a - b), 0))
    np.testing.assert_array_equal(q, np.trunc(a / b).astype(np.int32))  # C division
    np.testing.assert_array_equal(ab, np.abs(a))


def test_f16_computes_in_f32_and_mixed_dtypes():
    x = rand(4, 6, dtype=np.float16)
    y = rand(6)
    i = rng.integers(-3, 3, (4, 1)).astype(np.int32)
    src = f"""func.func @f(%x: {T((4, 6), 'f16')}, %y: {T((6,))}, %i: {T((4, 1), 'i32')})
        -> ({T((4, 6), 'f16')}, {T((4, 6))}, {T((4, 6), 'f16')}) {{
      %0 = aicf_tensor.sin %x : ({T((4, 6), 'f16')}) -> {T((4, 6), 'f16')}
      %1 = aicf_tensor.mul %x, %y : ({T((4, 6), 'f16')}, {T((6,))}) -> {T((4, 6))}
      %2 = aicf_tensor.add %i, %x : ({T((4, 1), 'i32')}, {T((4, 6), 'f16')}) -> {T((4, 6), 'f16')}
      func.return %0, %1, %2 : {T((4, 6), 'f16')}, {T((4, 6))}, {T((4, 6), 'f16')}
    }}"""
    s, m, a = run(src, x, y, i)
    assert s.dtype == np.float16 and a.dtype == np.float16
    np.testing.assert_array_equal(s, np.sin(x.astype(np.float32)).astype(np.float16))
    close(m, x.astype(np.float32) * y)
    np.testing.assert_array_equal(a, (i.astype(np.float32) + x.astype(np.float32)).astype(np.float16))


def test_casts():
    x = rand(5, lo=-100, hi=100)
    ty = {d: T((5,), d) for d in ("f32", "f16", "bf16", "i32", "f64")}
    src = f"""func.func @f(%x: {ty['f32']}) -> ({ty['f16']}, {ty['i32']}, {ty['f32']}, {ty['f64']}) {{
      %0 = aicf_tensor.cast %x : ({ty['f32']}) -> {ty['f16']}
      %1 = aicf_tensor.cast %x : ({ty['f32']}) -> {ty['i32']}
      %2 = aicf_tensor.cast %0 : ({ty['f16']}) -> {ty['bf16']}
      %3 = aicf_tensor.cast %2 : ({ty['bf16']}) -> {ty['f32']}
      %4 = aicf_tensor.cast %1 : ({ty['i32']}) -> {ty['f64']}
      func.return %0, %1, %3, %4 : {ty['f16']}, {ty['i32']}, {ty['f32']}, {ty['f64']}
    }}"""
    h, i, b, d = run(src, x)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(i, x.astype(np.int32))
    np.testing.assert_array_equal(b, _bf16(x.astype(np.float16).astype(np.float32)))
    np.testing.assert_array_equal(d, x.astype(np.int32).astype(np.float64))


# --- reductions --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sum", "max", "mean"])
@pytest.mark.parametrize(
    "shape,axes,keep",
    [((4, 6), [-1], False), ((3, 4, 5), [0, 2], True), ((3, 4, 5), [-2], False),
     ((2, 3), [0, 1], False), ((2, 3), [], False), ((3, 0), [1], True), ((0, 3), [1], False)],
)  # fmt: skip
def test_reductions(kind, shape, axes, keep):
    x = rand(*shape)
    if kind == "max" and 0 in [shape[a] for a in axes]:  # NumPy raises; so does the verifier
        out = T(rules.reduce_shape(shape, axes, keep))
        src = f"""func.func @f(%x: {T(shape)}) -> {out} {{
          %0 = aicf_tensor.reduce_max %x axes = {list(axes)}{" keepdims" if keep else ""} : ({T(shape)}) -> {out}
          func.return %0 : {out}
        }}"""
        with pytest.raises(CompileError, match="zero-size axis"):
            run(src, x)
        return
    ref = {"sum": np.sum, "max": np.max, "mean": np.mean}[kind]
    with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        want = np.asarray(ref(x, axis=tuple(axes), keepdims=keep), np.float32)
    kw = " keepdims" if keep else ""
    src = f"""func.func @f(%x: {T(shape)}) -> {T(want.shape)} {{
      %0 = aicf_tensor.reduce_{kind} %x axes = {list(axes)}{kw} : ({T(shape)}) -> {T(want.shape)}
      func.return %0 : {T(want.shape)}
    }}"""
    got = run(src, x)
    if kind == "mean" and 0 in shape:
        assert got.shape == want.shape and np.isnan(got).all() == np.isnan(want).all()
    else:
        close(got, want, rtol=1e-5)


def test_f16_reductions_accumulate_in_f32():
    x = rand(8, 300, dtype=np.float16, lo=0, hi=2)
    th, to = T((8, 300), "f16"), T((8,), "f16")
    src = f"""func.func @f(%x: {th}) -> ({to}, {to}) {{
      %0 = aicf_tensor.reduce_sum %x axes = [1] : ({th}) -> {to}
      %1 = aicf_tensor.reduce_mean %x axes = [1] : ({th}) -> {to}
      func.return %0, %1 : {to}, {to}
    }}"""
    s, m = run(src, x)
    x32 = x.astype(np.float32)
    close(s, x32.sum(1).astype(np.float16), rtol=1e-3)
    close(m, (x32.sum(1) / 300).astype(np.float16), rtol=1e-3)


# --- matmul ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sa,sb",
    [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (4, 5)),
     ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4,)), ((3, 0), (0, 2)), ((0, 3), (3, 2))],
)  # fmt: skip
def test_matmul(sa, sb):
    a, b = rand(*sa), rand(*sb)
    want = np.matmul(a, b)
    src = f"""func.func @f(%a: {T(sa)}, %b: {T(sb)}) -> {T(want.shape)} {{
      %0 = aicf_tensor.matmul %a, %b : ({T(sa)}, {T(sb)}) -> {T(want.shape)}
      func.return %0 : {T(want.shape)}
    }}"""
    close(run(src, a, b), want, rtol=1e-5, atol=1e-5)


def test_matmul_f16():
    a, b = rand(5, 64, dtype=np.float16), rand(64, 3, dtype=np.float16)
    src = f"""func.func @f(%a: {T((5, 64), 'f16')}, %b: {T((64, 3), 'f16')}) -> {T((5, 3), 'f16')} {{
      %0 = aicf_tensor.matmul %a, %b : ({T((5, 64), 'f16')}, {T((64, 3), 'f16')}) -> {T((5, 3), 'f16')}
      func.return %0 : {T((5, 3), 'f16')}
    }}"""
    got = run(src, a, b)
    assert got.dtype == np.float16
    close(got, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16), rtol=2e-3, atol=2e-3)


# --- layout ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,perm", [((3, 4), [1, 0]), ((2, 3, 4), [2, 0, 1]), ((2, 1, 3), [1, 2, 0])])
def test_transpose(shape, perm):
    x = rand(*shape)
    want = np.transpose(x, perm)
    src = f"""func.func @f(%x: {T(shape)}) -> {T(want.shape)} {{
      %0 = aicf_tensor.transpose %x perm = {perm} : ({T(shape)}) -> {T(want.shape)}
      func.return %0 : {T(want.shape)}
    }}"""
    np.testing.assert_array_equal(run(src, x), want)


@pytest.mark.parametrize(
    "src_shape,dst",
    [((4, 2, 4), (4, 8)), ((4, 8), (32,)), ((32,), (2, 4, 4)), ((2, 3), (3, 2)),
     ((6, 1, 5), (5, 3, 2)), ((3, 0), (0, 5)), ((1,), ()), ((), (1, 1))],
)  # fmt: skip
def test_reshape(src_shape, dst):
    x = rand(*src_shape)
    src = f"""func.func @f(%x: {T(src_shape)}) -> {T(dst)} {{
      %0 = aicf_tensor.reshape %x : ({T(src_shape)}) -> {T(dst)}
      func.return %0 : {T(dst)}
    }}"""
    np.testing.assert_array_equal(run(src, x), x.reshape(dst))


@pytest.mark.parametrize("src_shape,dst", [((4,), (3, 4)), ((3, 1), (2, 3, 5)), ((), (2,)), ((1, 1), (1, 3))])
def test_broadcast_to(src_shape, dst):
    x = rand(*src_shape)
    src = f"""func.func @f(%x: {T(src_shape)}) -> {T(dst)} {{
      %0 = aicf_tensor.broadcast_to %x shape = {list(dst)} : ({T(src_shape)}) -> {T(dst)}
      func.return %0 : {T(dst)}
    }}"""
    np.testing.assert_array_equal(run(src, x), np.broadcast_to(x, dst))


# --- constants, signatures, chains ---------------------------------------------------------------


def test_constants_and_returned_arguments():
    x = rand(2, 3)
    src = f"""func.func @f(%x: {T((2, 3))}) -> ({T((2, 3))}, {T((2, 3))}, {T((2,))}, {T((2, 3))}) {{
      %c = aicf_tensor.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {T((2, 3))}
      %s = aicf_tensor.constant dense<0.5> : {T((2,))}
      %0 = aicf_tensor.mul %x, %c : ({T((2, 3))}, {T((2, 3))}) -> {T((2, 3))}
      func.return %0, %x, %s, %0 : {T((2, 3))}, {T((2, 3))}, {T((2,))}, {T((2, 3))}
    }}"""
    p, xa, s, p2 = run(src, x)
    want = x * np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(p, want)
    np.testing.assert_array_equal(p2, want)
    np.testing.assert_array_equal(xa, x)
    np.testing.assert_array_equal(s, [0.5, 0.5])


def test_chain_sum_sin_affine():
    """sum(sin(1.7 * x + b), axis=-1) with broadcasting, as a user writes it."""
    x, b = rand(6, 7), rand(7)
    src = f"""func.func @f(%x: {T((6, 7))}, %b: {T((7,))}) -> {T((6,))} {{
      %a = aicf_tensor.constant dense<1.7> : {T(())}
      %0 = aicf_tensor.mul %a, %x : ({T(())}, {T((6, 7))}) -> {T((6, 7))}
      %1 = aicf_tensor.add %0, %b : ({T((6, 7))}, {T((7,))}) -> {T((6, 7))}
      %2 = aicf_tensor.sin %1 : ({T((6, 7))}) -> {T((6, 7))}
      %3 = aicf_tensor.reduce_sum %2 axes = [-1] : ({T((6, 7))}) -> {T((6,))}
      func.return %3 : {T((6,))}
    }}"""
    module = lower(src)
    text = str(module)
    assert text.count("memref.alloc") == text.count("memref.dealloc") == 3
    close(interpret(module, x, b), np.sin(np.float32(1.7) * x + b).sum(-1), rtol=1e-5)


@pytest.mark.parametrize(
    "ty,msg",
    [("tensor<*xf32>", "run aicf-infer-shapes first"),
     ("tensor<?x8xf32>", "dynamic dims must be specialised")],
)  # fmt: skip
def test_needs_static_types(ty, msg):
    src = f"""func.func @f(%x: tensor<4x8xf32>) -> {ty} {{
      %0 = aicf_tensor.exp %x : (tensor<4x8xf32>) -> {ty}
      func.return %0 : {ty}
    }}"""
    ctx = make_context()
    module = parse_module(ctx, src, "in.mlir")
    with pytest.raises(CompileError, match=f"in.mlir:2:7: error: 'aicf_tensor.exp' .*{msg}"):
        LowerToLoopsPass().apply(ctx, module)
