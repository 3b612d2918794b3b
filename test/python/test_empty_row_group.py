"""A row group over rows of zero length (found by the GPU fuzzer: aicf-plan wrote
gpu.row_group with per = 0, which its own verifier refused): the group runs as its
members, on both targets."""

from __future__ import annotations

import numpy as np
import pytest

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module

from gpu_support import cp, gpu

TEXT = """
func.func @f(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
  %m = aicf_tensor.reduce_sum %x axes = [-1] keepdims : (tensor<4x0xf32>) -> tensor<4x1xf32>
  %d = aicf_tensor.sub %x, %m : (tensor<4x0xf32>, tensor<4x1xf32>) -> tensor<4x0xf32>
  %e = aicf_tensor.exp %d : (tensor<4x0xf32>) -> tensor<4x0xf32>
  func.return %e : tensor<4x0xf32>
}
"""


def test_planned_and_lowered_for_the_gpu():
    mod = parse_module(make_context(), TEXT, "<empty>")
    run_pipeline(mod, ["aicf-infer-shapes", "aicf-fuse{target=gpu}", "aicf-lower-to-loops",
                       "aicf-plan{target=h100}", "aicf-lower-to-gpu{target=h100}"])
    assert "gpu.row_group" not in str(mod)


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=[gpu, pytest.mark.gpu])])
def test_runs(target):
    exe = aicf.compile(TEXT, target=target)
    x = np.zeros((4, 0), np.float32)
    out = exe(cp.asarray(x) if target == "cuda" else x)
    assert out.shape == (4, 0)


ZERO_SIZE_CONSTANT = """
func.func @f(%x: tensor<0x4xf32>) -> tensor<4xf32> {
  %c = aicf_tensor.constant dense<1.0> : tensor<0x4xf32>
  %y = aicf_tensor.add %x, %c : (tensor<0x4xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
  %s = aicf_tensor.reduce_sum %y axes = [0] : (tensor<0x4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=[gpu, pytest.mark.gpu])])
def test_a_zero_size_constant_in_a_fused_group(target):
    # the group's lowering read the splat's first element, which a zero-size constant
    # has not: a bare StopIteration (torch.compile of SDPA on an empty batch was left
    # to torch saying only "StopIteration: ")
    exe = aicf.compile(ZERO_SIZE_CONSTANT, target=target)
    x = np.zeros((0, 4), np.float32)
    out = exe(cp.asarray(x) if target == "cuda" else x)
    np.testing.assert_array_equal(cp.asnumpy(out) if target == "cuda" else out, np.zeros(4, np.float32))
