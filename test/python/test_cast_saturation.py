"""Float to int conversion (aicf_tensor.cast, arith.fptosi) is defined on every input:
truncation toward zero, NaN to 0, values past the type's range to its bound (as XLA and
PTX's cvt.rzi define it; C leaves them undefined, NumPy gives INT_MIN on x86). The
compiled cpu code and the reference interpreter (aicf-run's check) must both say so;
the cuda emission is checked in test/lit/target-cuda/cast-saturate.mlir."""

from __future__ import annotations

import numpy as np
import pytest

import aicf
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.interpreters.tensor import interpreter_for

EDGES = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2147483647.0, -2147483648.0, -2.7, 2.7, -0.5]
I32 = [0, 2147483647, -2147483648, 2147483647, -2147483648, 2147483647, -2147483648, -2, 2, 0]
I64 = [0, 2**63 - 1, -2**63, 3000000000, -3000000000, 2147483647, -2147483648, -2, 2, 0]


def cast_program(src: str, dst: str) -> str:
    n = len(EDGES)
    return (f"func.func @f(%x: tensor<{n}x{src}>) -> tensor<{n}x{dst}> {{\n"
            f"  %z = aicf_tensor.cast %x : (tensor<{n}x{src}>) -> tensor<{n}x{dst}>\n"
            f"  func.return %z : tensor<{n}x{dst}>\n}}\n")


@pytest.mark.parametrize("dst,want", [("i32", I32), ("i64", I64)])
@pytest.mark.parametrize("src,np_src", [("f64", np.float64), ("f32", np.float32)])
def test_compiled_and_reference_saturate(src, np_src, dst, want):
    x = np.array(EDGES, np.float64).astype(np_src)
    if np_src is np.float32:  # 2147483647 is not an f32: it rounds to 2^31
        want = [*want[:5], 2147483647 if dst == "i32" else 2147483648, *want[6:]]
    text = cast_program(src, dst)
    got = aicf.compile(text, target="cpu")(x)
    assert got.tolist() == want
    module = parse_module(make_context(), text, "<test>")
    (ref,) = interpreter_for(module).call_op("f", (x,))
    assert np.asarray(ref).tolist() == want


def test_fused_cast_saturates_too():
    """Inside a fused kernel (cast of a sum), the same conversion."""
    text = ("func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi32> {\n"
            "  %s = aicf_tensor.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
            "  %z = aicf_tensor.cast %s : (tensor<4xf32>) -> tensor<4xi32>\n"
            "  func.return %z : tensor<4xi32>\n}\n")
    x = np.array([np.inf, 2e9, -2e9, np.nan], np.float32)
    y = np.array([1.0, 2e9, -2e9, 1.0], np.float32)
    assert aicf.compile(text, target="cpu")(x, y).tolist() == [2147483647, 2147483647, -2147483648, 0]


def test_fptoui_keeps_values_past_the_signed_range():
    """arith.fptoui to i32 (hand-written: the tensor level casts signed): 3e9 is the
    unsigned 3000000000, stored as i32 bits; negatives and NaN are 0, past 2^32 the
    unsigned maximum. The in-range conversion goes through uint32_t, (int32_t)3e9
    being undefined in C (and 0x7fffffff on the GPU)."""
    text = """func.func @f(%x: memref<6xf32>, %y: memref<6xi32>) attributes {aicf.num_outputs = 1 : i64} {
  aicf_loop.nest domain = [6] iterators = [parallel]
      ins(%x : memref<6xf32>) outs(%y : memref<6xi32>)
      maps = [(d0) -> (d0), (d0) -> (d0)] combiners = [none] {
  ^bb0(%a : f32):
    %c = arith.fptoui %a : f32 to i32
    aicf_loop.yield %c : i32
  }
  func.return
}"""
    x = np.array([3e9, -5.0, np.nan, 1e10, 7.9, 4294967040.0], np.float32)
    got = aicf.compile(text, target="cpu")(x)
    want = np.array([3000000000, 0, 0, 4294967295, 7, 4294967040], np.uint64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(got, want)
