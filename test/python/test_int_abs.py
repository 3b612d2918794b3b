"""abs of integers (math.absi) on both targets, INT_MIN included: NumPy's wrap-around
answer, not C's undefined negation (the GPU fuzzer found the cuda target had no
spelling for it)."""

from __future__ import annotations

import numpy as np
import pytest

import aicf

from gpu_support import cp, gpu

TEXT = """
func.func @f(%x: tensor<6xi32>) -> tensor<6xi32> {
  %y = aicf_tensor.abs %x : (tensor<6xi32>) -> tensor<6xi32>
  func.return %y : tensor<6xi32>
}
"""


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=[gpu, pytest.mark.gpu])])
def test_abs_i32(target):
    x = np.array([0, 1, -1, 2**31 - 1, -(2**31), -7], np.int32)
    exe = aicf.compile(TEXT, target=target)
    out = exe(cp.asarray(x) if target == "cuda" else x)
    out = cp.asnumpy(out) if target == "cuda" else out
    np.testing.assert_array_equal(out, np.abs(x))


def test_cuda_source_spells_it():
    from aicf.compiler import pipeline_for, run_pipeline, target_pipeline
    from aicf.backend.cuda.emit import emit_cuda
    from aicf.context import make_context
    from aicf.diagnostics import parse_module

    mod = parse_module(make_context(), TEXT, "<abs>")
    run_pipeline(mod, pipeline_for("cuda", tune=False)[:-1] + target_pipeline("cuda", gpu="h100"))
    assert "(unsigned)0 - (unsigned)" in emit_cuda(mod)
