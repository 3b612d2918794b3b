"""Diagnostics carry the IR location of the op at fault (aicf.diagnostics)."""

import pytest

from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.errors import CompileError

BAD_SHAPE = """\
func.func @f(%x: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %0 = aicf_tensor.sin %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = aicf_tensor.add %0, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
"""


def test_verifier_error_names_op_and_location():
    with pytest.raises(CompileError) as info:
        parse_module(make_context(), BAD_SHAPE, "prog.mlir")
    msg = str(info.value)
    assert msg.startswith("prog.mlir:3:3: error: 'aicf_tensor.add'")
    assert "4x8, 3 are not broadcast-compatible" in msg


def test_parse_error_has_line_and_column():
    text = BAD_SHAPE.replace("%0, %b", "%0, %nope")
    with pytest.raises(CompileError) as info:
        parse_module(make_context(), text, "prog.mlir")
    assert "prog.mlir:3:" in str(info.value)
    assert "%nope" in str(info.value)


def test_nested_op_error_reported_at_innermost_op():
    text = """\
func.func @g(%x: memref<4xf32>, %y: memref<4xf16>) {
  aicf_loop.nest domain = [4] iterators = [parallel] ins(%x : memref<4xf32>) outs(%y : memref<4xf16>)
      maps = [(d0) -> (d0), (d0) -> (d0)] {
  ^bb0(%a: f32):
    %n = arith.negf %a : f16
    aicf_loop.yield %n : f16
  }
  func.return
}
"""
    with pytest.raises(CompileError) as info:
        parse_module(make_context(), text, "loop.mlir")
    # the parser rejects %a (f32) used as f16, at the use
    assert "loop.mlir:5:" in str(info.value)
