"""The golden reference: the `aicf_tensor` level interpreted with NumPy in float64.

Independent of the lowering and the backends: it shares no code with them, only the op
semantics in `aicf.interpreters.tensor` (run here under its "reference" precision), so
aicf-run and the tests can check a compiled program against it. Floats compute in
float64; a `cast` to a narrower float rounds to that type (the op's semantics),
everything else stays exact to float64. Results come back as float64 arrays (integers
as int64).

    outs = evaluate(module, "f", x, b)   # tuple of arrays, one per result
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, ModuleOp
from xdsl.dialects.func import CallOp, FuncOp

from aicf.diagnostics import op_error
from aicf.dialects import tensor as T
from aicf.interpreters.tensor import REFERENCE, bf16_value, call


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float64 values to bfloat16 (nearest even), returned as float64."""
    return REFERENCE.round(x, BFloat16Type())


def bf16_bits_to_f64(bits: np.ndarray) -> np.ndarray:
    return bf16_value(bits).astype(np.float64)


def _check_interpretable(module: ModuleOp, entry: FuncOp) -> None:
    """Only `func` and `aicf_tensor` ops have reference semantics; say which op is
    not, with its location, before running anything."""
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    todo, seen = [entry], {entry.sym_name.data}
    while todo:
        for op in todo.pop().body.walk():
            if op.dialect_name() not in ("func", "aicf_tensor"):
                raise op_error(op, "has no reference semantics (expected aicf_tensor ops)")
            if isinstance(op, CallOp) and (name := op.callee.root_reference.data) not in seen:
                if name not in funcs:
                    raise op_error(op, f"calls @{name}, which is not in the module")
                seen.add(name)
                todo.append(funcs[name])


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
    _check_interpretable(module, func)
    args = [REFERENCE.load(a, T.element_type(arg.type)) for arg, a in zip(func.args, arrays)]
    return call(module, entry, args, REFERENCE)
