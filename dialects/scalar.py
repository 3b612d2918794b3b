"""`aicf_arith`: scalar ops of nest and kernel bodies that MLIR's arith has and xDSL's
(0.74) lacks. They sit beside arith and math in a body, at every level below the
tensor one, and each target prints them as it prints those."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(IRDLOperation):
    """The exact floating-point remainder of lhs / rhs truncated, with lhs's sign (C's
    fmod; MLIR's `arith.remf`). `%r = aicf_arith.remf %a, %b : f32`"""

    name = "aicf_arith.remf"
    T: ClassVar = VarConstraint("T", base(AnyFloat))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


AICFArith = Dialect("aicf_arith", [RemFOp], [])
