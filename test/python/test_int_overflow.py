"""Signed integer add, sub, mul and negation wrap as in NumPy on both targets. C and
CUDA leave signed overflow undefined, so without the unsigned detour the compiler
folds `x + 1 > x` to true and `-x < 0` to `x > 0` (wrong at INT_MAX / INT_MIN)."""

from __future__ import annotations

import numpy as np
import pytest

import aicf

from gpu_support import cp, gpu

CASES = {
    "x + 1 > x": lambda x: (x + 1) > x,
    "x - 1 < x": lambda x: (x - 1) < x,
    "-x < 0": lambda x: (-x) < 0,
    "x * 2 > x": lambda x: (x * 2) > x,
}


def _values(dtype):
    info = np.iinfo(dtype)
    return np.array([info.max, info.min, 0, 5, -7, info.max // 2 + 1], dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=[gpu, pytest.mark.gpu])])
def test_signed_overflow_wraps(target, name, dtype):
    f = CASES[name]
    x = _values(dtype)
    with np.errstate(over="ignore"):
        want = f(x)
    out = aicf.jit(f, target=target)(cp.asarray(x) if target == "cuda" else x)
    out = cp.asnumpy(out) if target == "cuda" else out
    np.testing.assert_array_equal(out, want)


def test_cuda_source_wraps_through_unsigned():
    mod = aicf.trace(CASES["x + 1 > x"], np.zeros(4, np.int32))
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.compiler import pipeline_for, run_pipeline, target_pipeline

    run_pipeline(mod, pipeline_for("cuda", tune=False)[:-1] + target_pipeline("cuda", gpu="h100"))
    assert "(int)((unsigned)" in emit_cuda(mod)


def test_the_reference_wraps_as_numpy_and_aicf_run_agrees(tmp_path, capsys):
    """The golden reference holds integers in int64, but an i32 result wraps at 32
    bits, as NumPy's and the compiled code's do: aicf-run used to report a correct
    wrapping program as FAIL."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.reference import evaluate
    from aicf.tools.aicf_run import main

    src = """func.func @f(%x: tensor<4xi32>) -> tensor<*xi32> {
  %c = aicf_tensor.constant dense<2147483647> : tensor<4xi32>
  %y = aicf_tensor.add %x, %c : (tensor<4xi32>, tensor<4xi32>) -> tensor<*xi32>
  func.return %y : tensor<*xi32>
}
"""
    x = np.array([0, 1, 2, -5], np.int32)
    with np.errstate(over="ignore"):
        want = x + np.int32(2**31 - 1)
    (ref,) = evaluate(parse_module(make_context(), src, "<t>"), "f", x)
    np.testing.assert_array_equal(ref, want.astype(np.int64))
    path = tmp_path / "wrap.mlir"
    path.write_text(src)
    assert main([str(path), "--target", "cpu"]) == 0
    assert "FAIL" not in capsys.readouterr().out
