"""aicf-fuse-epilogue on the cpu target: a grouped matmul + epilogue means what its
members mean (run in order), whatever schedule the planner gives the group; the
group itself (one GPU kernel) is checked on the GPU in test_gpu_wgmma.py."""

from __future__ import annotations

import numpy as np

import aicf
from aicf.compiler import run_pipeline
from aicf.context import make_context
from aicf.diagnostics import parse_module
from aicf.dialects.loop import GroupOp

TEXT = """
func.func @main(%x: tensor<37x24xf32>, %w: tensor<24x50xf32>, %b: tensor<50xf32>) -> tensor<37x50xf32> {
  %y = aicf_tensor.matmul %x, %w : (tensor<37x24xf32>, tensor<24x50xf32>) -> tensor<37x50xf32>
  %z = aicf_tensor.add %y, %b : (tensor<37x50xf32>, tensor<50xf32>) -> tensor<37x50xf32>
  %t = aicf_tensor.tanh %z : (tensor<37x50xf32>) -> tensor<37x50xf32>
  func.return %t : tensor<37x50xf32>
}
"""


def test_grouped_matmul_epilogue_runs_on_cpu():
    mod = parse_module(make_context(), TEXT, "<mlp>")
    run_pipeline(mod, ["aicf-infer-shapes", "aicf-fuse{target=cpu}", "aicf-lower-to-loops", "aicf-fuse-epilogue"])
    assert any(isinstance(o, GroupOp) for o in mod.walk()), "the pass grouped nothing"
    exe = aicf.compile(mod, target="cpu")
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in [(37, 24), (24, 50), (50,)])
    ref = np.tanh(x.astype(np.float64) @ w.astype(np.float64) + b)
    got = exe(x, w, b)
    assert np.allclose(got, ref, rtol=1e-5, atol=1e-5)
