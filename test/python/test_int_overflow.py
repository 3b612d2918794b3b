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
