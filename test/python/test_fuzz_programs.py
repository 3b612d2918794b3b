"""Differential fuzzing: random tensor programs (fuzz_support.programs: elementwise,
reductions, matmul, broadcasting, transpose, slice; f32, f16, bf16, i32; size-1 and
odd extents; strided arguments) compiled with aicf-fuse on and off must agree with
their NumPy float64 reference. The cpu half runs in CI; the cuda half is marked `gpu`:

    python3 -m pytest -m gpu -q test/python/test_fuzz_programs.py
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aicf

from fuzz_support import PROFILE, programs
from gpu_support import cp, gpu

BATCH = 8  # programs per module: one compile (per fusion setting) for the batch


def run_batch(batch, strided, target: str) -> None:
    text = "".join(p.text(results) for p, results in batch)
    for fuse in (True, False):
        how = f"target={target} fuse={fuse}"
        for (p, results), strides in zip(batch, strided):
            exe = aicf.compile(text, target=target, entry=p.name, fuse=fuse)
            args = p.inputs(strides + [False] * len(p.args))
            if target == "cuda":  # NumPy and (strided) CuPy arrays both
                args = [cp.asarray(a) if i % 2 else a for i, a in enumerate(args)]
            outs = exe(*args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for out, r in zip(outs, results):
                if target == "cuda":
                    out = cp.asnumpy(out)
                try:
                    p.check(out, r, how)
                except AssertionError as e:
                    raise AssertionError(f"{e}\n{p.text(results)}") from None


def batches(dtype=None):
    return st.tuples(
        st.tuples(*(programs(f"f{i}", dtype) for i in range(BATCH))),
        st.lists(st.lists(st.booleans(), max_size=3), min_size=BATCH, max_size=BATCH),
    )


@settings(settings.get_profile(PROFILE))
@given(batches())
def test_random_programs_match_numpy_cpu(data):
    batch, strided = data
    run_batch(batch, strided, "cpu")


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32"])
@settings(settings.get_profile(PROFILE))
@given(data=st.data())
def test_random_programs_match_numpy_cuda(dtype, data):
    batch, strided = data.draw(batches(dtype))
    run_batch(batch, strided, "cuda")
