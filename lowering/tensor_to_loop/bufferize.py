"""The `aicf-lower-to-loops` pass: functions over tensors become functions over
memrefs in destination-passing style, each tensor op one `aicf_loop.nest`.

    func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32>
becomes
    func.func @f(%x: memref<4x8xf32>, %out0: memref<4xf32>)
        attributes {aicf.num_outputs = 1 : i64}

The op producing a returned value writes straight into its output argument.
Intermediates get a `memref.alloc` where they are defined and a `memref.dealloc` after
their last use; constants become private constant `memref.global`s. A returned value
that needs a buffer of its own anyway (a function argument, a constant, a value
returned twice) is copied into its output by a nest.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from aicf.diagnostics import op_error
from aicf.dialects import shape_rules as rules
from aicf.dialects import tensor as t
from aicf.lowering.tensor_to_loop.emitter import Emitter, identity_memref
from aicf.lowering.tensor_to_loop.ops import LOWERINGS

NUM_OUTPUTS = "aicf.num_outputs"


def _static_memref(ty: Attribute, where: Operation, what: str) -> MemRefType:
    """The identity-layout memref for a ranked static tensor type; a diagnostic at
    `where` otherwise."""
    if isinstance(ty, UnrankedTensorType):
        raise op_error(where, f"{what} has unranked type {ty}: run aicf-infer-shapes first")
    if not isinstance(ty, TensorType):
        raise op_error(where, f"{what} has type {ty}; expected a ranked tensor type")
    shape = tuple(ty.get_shape())
    if any(d == rules.DYN or d < 0 for d in shape):
        raise op_error(
            where,
            f"{what} has type {ty} with dynamic dims: dynamic dims must be specialised "
            "before aicf-lower-to-loops",
        )
    return identity_memref(ty.get_element_type(), shape)


def _check_body(f: func.FuncOp) -> func.ReturnOp:
    """Only tensor ops and the return, all with static types."""
    block = f.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        raise op_error(f, "body must end with func.return")
    for op in block.ops:
        if op is ret:
            break
        if not isinstance(op, t.TensorOp | func.CallOp | t.FusedOp):
            raise op_error(op, "cannot be lowered to loops (not an aicf_tensor op)")
        for k, v in enumerate(op.operands):
            _static_memref(v.type, op, f"operand #{k}")
        for k, v in enumerate(op.results):
            _static_memref(v.type, op, f"result #{k}")
    return ret


def _last_uses(block: Block) -> dict[SSAValue, Operation]:
    """The last op of `block` using each value defined in it (or its definer when
    unused), so that a buffer can be freed right after it."""
    last: dict[SSAValue, Operation] = {}
    for op in block.ops:
        for v in op.results:
            last[v] = op
        for v in op.operands:
            if v in last:
                last[v] = op
    return last


def lower_function(f: func.FuncOp) -> None:
    ret = _check_body(f)
    old = f.body.block
    in_types = [_static_memref(a.type, f, f"argument #{k}") for k, a in enumerate(old.args)]
    results = list(ret.arguments)
    out_types = [_static_memref(v.type, ret, f"returned value #{k}") for k, v in enumerate(results)]
    new = Block(arg_types=[*in_types, *out_types])
    outs = new.args[len(in_types) :]
    for a, b in zip(old.args, new.args):
        if a.name_hint:
            b.name_hint = a.name_hint
    for k, o in enumerate(outs):
        o.name_hint = f"out{k}"

    buffers: dict[SSAValue, SSAValue] = dict(zip(old.args, new.args))
    dest: dict[SSAValue, SSAValue] = {}
    copies: list[tuple[SSAValue, SSAValue]] = []
    for v, o in zip(results, outs):
        if isinstance(v, BlockArgument) or v in dest or isinstance(v.owner, t.ConstantOp):
            copies.append((v, o))
        else:
            dest[v] = o

    em = Emitter(new, f, f.sym_name.data)
    frees: dict[Operation, list[SSAValue]] = {}
    last = _last_uses(old)
    for op in old.ops:
        if op is ret:
            break
        if isinstance(op, t.ConstantOp):
            buffers[op.result] = em.global_constant(op.value, op)
            continue
        for res in op.results:
            out = dest.get(res)
            if out is None:
                mtype = _static_memref(res.type, op, "result")
                out = em.alloc(mtype.get_shape(), mtype.get_element_type(), op)
                frees.setdefault(last[res], []).append(out)
            buffers[res] = out
        ins = [buffers[v] for v in op.operands]
        outs_of_op = [buffers[r] for r in op.results]
        if isinstance(op, func.CallOp):
            call = func.CallOp(op.callee, [*ins, *outs_of_op], [])
            call.location = op.location
            em.builder.insert(call)
        elif isinstance(op, t.FusedOp):  # aicf-fuse's groups
            from aicf.lowering.fused_to_loop import lower_fused

            lower_fused(op, ins, outs_of_op, em)
        else:
            LOWERINGS[type(op)](op, ins, outs_of_op[0], em)
        for buf in frees.pop(op, []):
            em.dealloc(buf)
    for v, o in copies:
        em.copy(v.owner if isinstance(v.owner, Operation) else ret, buffers[v], o)
    em.builder.insert(func.ReturnOp())

    _replace_function(f, [*in_types, *out_types], len(out_types), Region(new))


def _replace_function(
    f: func.FuncOp, arg_types: list[Attribute], num_outputs: int, body: Region
) -> None:
    lowered = func.FuncOp(f.sym_name.data, (arg_types, []), body, f.sym_visibility)
    lowered.attributes.update(f.attributes)
    lowered.attributes[NUM_OUTPUTS] = IntegerAttr(num_outputs, i64)
    lowered.location = f.location
    parent = f.parent_block()
    assert parent is not None
    parent.insert_op_before(lowered, f)
    f.detach()
    f.erase(safe_erase=False)


def lower_declaration(f: func.FuncOp) -> None:
    """An external function over tensors takes its outputs as trailing arguments too."""
    ft = f.function_type
    ins = [_static_memref(ty, f, f"argument #{k}") for k, ty in enumerate(ft.inputs.data)]
    outs = [_static_memref(ty, f, f"result #{k}") for k, ty in enumerate(ft.outputs.data)]
    _replace_function(f, [*ins, *outs], len(outs), Region())


def _is_tensor_function(f: func.FuncOp) -> bool:
    types = [*f.function_type.inputs.data, *f.function_type.outputs.data]
    if any(isinstance(ty, TensorType | UnrankedTensorType) for ty in types):
        return True
    return bool(f.body.blocks) and any(
        isinstance(op, t.TensorOp) for op in f.body.block.ops
    )


@dataclass(frozen=True)
class LowerToLoopsPass(ModulePass):
    """Bufferize every function over tensors and lower each `aicf_tensor` op to an
    `aicf_loop.nest` (destination-passing style; see the module docstring).
    Needs ranked, static types: run `aicf-infer-shapes` first."""

    name = "aicf-lower-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        for f in funcs:
            if _is_tensor_function(f):
                (lower_function if f.body.blocks else lower_declaration)(f)
