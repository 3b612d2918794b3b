"""`aicf-infer-shapes`: shape and dtype inference for the `aicf_tensor` level.

Input files may leave results unranked; this pass gives every `aicf_tensor` result the
type the NumPy rules of `shape_rules` give it, checks the result types that were
written down, and makes function signatures and call sites agree with what the bodies
return. A rule violation is a diagnostic at the op's `file:line:col` naming the shapes.

    func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
      %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
      %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
      func.return %1 : tensor<*xf32>
    }

becomes

    func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
      %0 = aicf_tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
      func.return %1 : tensor<4xf32>
    }

Ops of other dialects are left alone, even with tensor results. In an `aicf_tensor.fused` group the block arguments take
the inputs' types and the results the yielded ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from aicf.diagnostics import op_error
from aicf.dialects import shape_rules as rules
from aicf.dialects.tensor import (
    FusedOp,
    TensorOp,
    YieldOp,
    element_type,
    make_tensor,
    ranked_shape,
)


def _message(op: Operation, e: VerifyException) -> str:
    """The rule's message without the `'op.name': ` prefix op_error adds again."""
    msg = str(e).strip()
    prefix = f"'{op.name}': "
    return msg[len(prefix):] if msg.startswith(prefix) else msg


def refine(inferred: Attribute, declared: Attribute) -> Attribute | None:
    """The most precise type both agree on, or None if they contradict each other.

    Either side may be unranked or have dynamic extents; a static extent on one side
    wins over a dynamic one on the other.
    """
    if element_type(inferred) != element_type(declared):
        return None
    ishape, dshape = ranked_shape(inferred), ranked_shape(declared)
    if ishape is None:
        return declared
    if dshape is None:
        return inferred
    if not rules.compatible(ishape, dshape):
        return None
    shape = [d if i == rules.DYN else i for i, d in zip(ishape, dshape)]
    return make_tensor(element_type(inferred), shape)


def _set_type(value: SSAValue, new_type: Attribute) -> None:
    if value.type != new_type:
        Rewriter.replace_value_with_new_type(value, new_type)


def infer_op(op: TensorOp) -> None:
    """Give `op`'s result the inferred type, refined by the declared one."""
    try:
        inferred = op.inferred_type()
    except VerifyException as e:
        raise op_error(op, _message(op, e)) from None
    declared = op.results[0].type
    new = refine(inferred, declared)
    if new is None:
        if element_type(inferred) != element_type(declared):
            what = (
                f"result element type {element_type(declared)} does not match the "
                f"inferred {element_type(inferred)}"
            )
        else:
            what = f"declared result type {declared} does not match the inferred {inferred}"
        operands = ", ".join(str(o.type) for o in op.operands)
        raise op_error(op, f"{what} (operands: {operands})")
    _set_type(op.results[0], new)


def infer_fused(op: FusedOp, infer_region) -> None:
    """A fusion group: its block arguments take the inputs' types, its body is
    inferred, and its results take the yielded types."""
    for arg, v in zip(op.body.block.args, op.inputs):
        _set_type(arg, v.type)
    infer_region(op.body)
    term = op.body.block.last_op
    if isinstance(term, YieldOp):
        for res, v in zip(op.outputs, term.values):
            if refine(v.type, res.type) is None:
                raise op_error(
                    op, f"result type {res.type} does not match the yielded {v.type}"
                )
            _set_type(res, v.type)


def _is_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType | UnrankedTensorType)


@dataclass(frozen=True)
class InferShapesPass(ModulePass):
    """Fill unranked `aicf_tensor` results, check declared ones, update signatures."""

    name = "aicf-infer-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A walk in program order rather than rewrite patterns: each op needs its
        # operands' final types, and a callee must be done before its call sites.
        funcs = {f.sym_name.data: f for f in op.walk() if isinstance(f, func.FuncOp)}
        for f in funcs.values():
            self._check_arguments(f)
        state: dict[str, str] = {}

        def infer_region(region: Region) -> None:
            for block in region.blocks:
                for inner in list(block.ops):
                    if isinstance(inner, TensorOp):
                        infer_op(inner)
                    elif isinstance(inner, FusedOp):
                        infer_fused(inner, infer_region)
                    elif isinstance(inner, func.CallOp):
                        callee = funcs.get(inner.callee.root_reference.data)
                        if callee is not None:
                            if callee.sym_name.data not in state:
                                infer_func(callee)
                            self._update_call(inner, callee)
                    # Other ops (and their regions) are left alone: refining a value
                    # their terminators yield could break their own type rules.

        def infer_func(f: func.FuncOp) -> None:
            # Callees first, so a call site sees its callee's inferred results; a
            # recursive call keeps the signature as written.
            state[f.sym_name.data] = "running"
            infer_region(f.body)
            if not f.is_declaration:
                self._update_signature(f)
            state[f.sym_name.data] = "done"

        for f in funcs.values():
            if f.sym_name.data not in state:
                infer_func(f)

    @staticmethod
    def _check_arguments(f: func.FuncOp) -> None:
        for i, t in enumerate(f.function_type.inputs.data):
            if isinstance(t, UnrankedTensorType):
                raise op_error(
                    f,
                    f"argument #{i} of @{f.sym_name.data} must have a ranked type, "
                    f"got {t}",
                )

    @staticmethod
    def _update_signature(f: func.FuncOp) -> None:
        ret = f.get_return_op()
        if ret is None:
            return
        declared = f.function_type.outputs.data
        for i, (d, v) in enumerate(zip(declared, ret.arguments)):
            if _is_tensor(d) and _is_tensor(v.type) and refine(v.type, d) is None:
                raise op_error(
                    ret,
                    f"result #{i} of @{f.sym_name.data} is declared {d} but the "
                    f"inferred type is {v.type}",
                )
        f.update_function_type()

    @staticmethod
    def _update_call(call: func.CallOp, callee: func.FuncOp) -> None:
        for i, (res, t) in enumerate(zip(call.results, callee.function_type.outputs)):
            if not (_is_tensor(res.type) and _is_tensor(t)):
                continue
            new = refine(t, res.type)
            if new is None:
                raise op_error(
                    call,
                    f"result #{i} is declared {res.type} but @{callee.sym_name.data} "
                    f"returns {t}",
                )
            # The call's result must equal the callee's output for func.call to verify.
            _set_type(res, t)
