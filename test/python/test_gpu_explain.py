"""Executable.explain() on the cuda target names each kernel with its launch
configuration and the schedule the cost model chose (DESIGN.md: the choice must be
explainable)."""

import numpy as np
import pytest

import aicf
from gpu_support import gpu

ROWSUM = """
func.func @rowsum(%x: tensor<1024x4096xf32>) -> tensor<*xf32> {
  %s = aicf_tensor.sin %x : (tensor<1024x4096xf32>) -> tensor<*xf32>
  %r = aicf_tensor.reduce_sum %s axes = [-1] : (tensor<*xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
"""


@gpu
@pytest.mark.gpu
def test_explain_names_kernels_and_schedules():
    exe = aicf.compile(ROWSUM, target="cuda")
    x = np.random.default_rng(0).standard_normal((1024, 4096), dtype=np.float32)
    y = exe(x)
    ref = np.sin(x.astype(np.float64)).sum(-1)
    got = y.get() if hasattr(y, "get") else y
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 1e-5
    lines = exe.explain().splitlines()
    kernels = [line for line in lines if line.startswith("kernel ")]
    assert len(kernels) == 1  # sin fused into the reduction's prologue
    assert "grid=" in kernels[0] and "block=" in kernels[0]
    assert "rows" in lines[lines.index(kernels[0]) + 1]  # the row-reduction schedule


@gpu
@pytest.mark.gpu
def test_debug_mode_poisons_outputs_before_the_run():
    from aicf.backend.cuda.program import poison
    from gpu_support import cp

    for dt, check in ((np.float32, np.isnan), (np.float16, np.isnan),
                      (np.uint16, lambda a: a == 0xFFFF), (np.int32, lambda a: a == -(2**31))):
        a = cp.zeros(5, dt)
        poison(a)
        assert check(cp.asnumpy(a)).all(), dt
    exe = aicf.compile(ROWSUM, target="cuda", debug=True)
    assert exe._program.debug
    x = np.random.default_rng(1).standard_normal((1024, 4096), dtype=np.float32)
    y = cp.asnumpy(exe(x))
    assert not np.isnan(y).any()  # every element written over the poison
