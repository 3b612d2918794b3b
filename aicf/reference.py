"""The golden reference: the `aicf_tensor` level interpreted with NumPy in float64.

Independent of the lowering (it reads the tensor ops, not the loops), so aicf-run and
the tests can check a compiled program against it. Floats compute in float64; a `cast`
to a narrower float rounds to that type (the op's semantics), everything else stays
exact to float64. Results come back as float64 arrays (integers as int64).

    outs = evaluate(module, "f", x, b)   # tuple of arrays, one per result
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from aicf.diagnostics import op_error
from aicf.dialects import tensor as T

_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu(x):
    return x * 0.5 * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), np.float64))


_UNARY = {
    "aicf_tensor.neg": np.negative,
    "aicf_tensor.exp": np.exp,
    "aicf_tensor.log": np.log,
    "aicf_tensor.sin": np.sin,
    "aicf_tensor.cos": np.cos,
    "aicf_tensor.tanh": np.tanh,
    "aicf_tensor.sqrt": np.sqrt,
    "aicf_tensor.rsqrt": lambda x: 1.0 / np.sqrt(x),
    "aicf_tensor.abs": np.abs,
    "aicf_tensor.relu": lambda x: np.maximum(x, 0),
    "aicf_tensor.gelu": _gelu,
    "aicf_tensor.sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
}
_BINARY = {
    "aicf_tensor.add": np.add,
    "aicf_tensor.sub": np.subtract,
    "aicf_tensor.mul": np.multiply,
    "aicf_tensor.div": np.true_divide,
    "aicf_tensor.max": np.maximum,
    "aicf_tensor.min": np.minimum,
    "aicf_tensor.pow": np.power,
}


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float64 values to bfloat16 (nearest even), returned as float64. Written
    here again on purpose: the golden reference shares no code with the compiler."""
    f = np.asarray(x, np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    nan = np.isnan(f)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    out = u.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(nan, np.nan, out)


def bf16_bits_to_f64(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def round_to(x: np.ndarray, elt) -> np.ndarray:
    """Round to the element type `elt` and back to float64 (ints: truncate, as astype)."""
    if isinstance(elt, Float32Type):
        return np.asarray(x, np.float64).astype(np.float32).astype(np.float64)
    if isinstance(elt, Float16Type):
        return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)
    if isinstance(elt, BFloat16Type):
        return round_bf16(x)
    if isinstance(elt, IntegerType):
        return np.trunc(np.asarray(x, np.float64)).astype(np.int64)
    return np.asarray(x, np.float64)


def _as64(a: np.ndarray, elt) -> np.ndarray:
    if isinstance(elt, BFloat16Type) and np.asarray(a).dtype == np.uint16:
        return bf16_bits_to_f64(a)
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return a.astype(np.int64)
    return a.astype(np.float64)


def _eval_op(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    n = op.name
    if n in _UNARY:
        return np.asarray(_UNARY[n](args[0]), np.float64 if args[0].dtype.kind == "f" else None)
    if n in _BINARY:
        a, b = args
        if n == "aicf_tensor.div" and a.dtype.kind != "f":
            return np.true_divide(a, b)
        return _BINARY[n](a, b)
    if isinstance(op, T.ConstantOp):
        v = op.value
        shape = tuple(v.type.get_shape())
        vals = np.array(list(v.get_values()), dtype=np.float64)
        if vals.size == 1 and math.prod(shape) != 1:
            return np.full(shape, vals[0])
        out = vals.reshape(shape)
        elt = v.type.get_element_type()
        return out.astype(np.int64) if isinstance(elt, IntegerType) else out
    if isinstance(op, T.CastOp):
        return round_to(args[0], T.element_type(op.result.type))
    if isinstance(op, T.ReduceOp):
        x = args[0]
        axes = tuple(a + x.ndim if a < 0 else a for a in op.axes_list)
        if n == "aicf_tensor.reduce_sum":
            return np.sum(x, axis=axes, keepdims=op.keep)
        if n == "aicf_tensor.reduce_max":
            return np.max(x, axis=axes, keepdims=op.keep)
        return np.mean(x, axis=axes, keepdims=op.keep)
    if isinstance(op, T.MatmulOp):
        return np.matmul(args[0], args[1])
    if isinstance(op, T.ReshapeOp):
        target = op.target_shape()
        return np.reshape(args[0], target)
    if isinstance(op, T.TransposeOp):
        return np.transpose(args[0], op.perm_list)
    if isinstance(op, T.BroadcastToOp):
        return np.broadcast_to(args[0], op.target_shape()).copy()
    raise op_error(op, "has no reference semantics")


def evaluate(module: ModuleOp, entry: str, *arrays) -> tuple[np.ndarray, ...]:
    """Run function @entry of a tensor-level module on `arrays`; float64 results."""
    func = next(
        (op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == entry),
        None,
    )
    if func is None:
        raise ValueError(f"no function @{entry} in the module")
    if len(arrays) != len(func.args):
        raise ValueError(f"@{entry} takes {len(func.args)} arguments, got {len(arrays)}")
    env: dict[SSAValue, np.ndarray] = {}
    for arg, a in zip(func.args, arrays):
        env[arg] = _as64(a, T.element_type(arg.type))
    with np.errstate(all="ignore"):
        for op in func.body.block.ops:
            if isinstance(op, ReturnOp):
                return tuple(np.asarray(env[v]) for v in op.arguments)
            if not op.name.startswith("aicf_tensor."):
                raise op_error(op, "has no reference semantics (expected aicf_tensor ops)")
            env[op.results[0]] = np.asarray(_eval_op(op, [env[v] for v in op.operands]))
    raise ValueError(f"@{entry} has no func.return")
