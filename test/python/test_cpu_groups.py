"""The cpu target's schedules for fused row groups (per slice of the shared dims) and
for max/min reductions (vectorised, NaN-propagating like NumPy), against NumPy."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402

RNG = np.random.default_rng(11)

from test_fusion import SOFTMAX  # noqa: E402


def softmax_ref(x: np.ndarray, ax: int) -> np.ndarray:
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        e = np.exp(xd - xd.max(axis=ax, keepdims=True))
        return e / e.sum(axis=ax, keepdims=True)


@pytest.mark.parametrize(
    "R, C, ax, per_slice",
    [
        (300, 129, -1, True),  # big and many rows: threads split the rows
        (9, 129, -1, True),  # small (below the parallel break-even): one thread, still per slice
        (129, 300, 0, True),  # shared dim = columns (strided slices)
        (8, 8192, -1, False),  # few big rows: each member nest uses the threads
        (1, 5, -1, True),
    ],
)
def test_softmax_groups(R, C, ax, per_slice):
    exe = aicf.compile(SOFTMAX.format(R=R, C=C, ax=ax), target="cpu")
    assert ("per slice" in exe.source) == per_slice
    if per_slice and R * C >= (1 << 15):
        assert "#pragma omp parallel for" in exe.source.split("per slice")[1]
    x = (RNG.standard_normal((R, C)) * 4).astype(np.float32)
    rows = np.moveaxis(x, ax, -1)  # a view: rows[i] is slice i of the reduced axis
    rows[0, 3 % rows.shape[1]] = np.nan  # NaN anywhere: the slice is NaN
    if rows.shape[0] > 2:
        rows[1] = -np.inf  # NaN everywhere, as in NumPy (-inf - -inf)
        rows[2, 1 % rows.shape[1]] = np.inf
    ref = softmax_ref(x, ax)
    out = exe(x)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=1e-7)


REDUCE = """
func.func @r(%x: tensor<{shape}x{dt}>) -> tensor<*x{dt}> {{
  %0 = aicf_tensor.{op} %x axes = {axes} : (tensor<{shape}x{dt}>) -> tensor<*x{dt}>
  func.return %0 : tensor<*x{dt}>
}}
"""


@pytest.mark.parametrize("shape, axes", [((300, 257), [1]), ((1000, 70), [0, 1]), ((5, 3, 17), [1, 2])])
@pytest.mark.parametrize("dt", ["f32", "i32"])
def test_max_reductions_vectorised_propagate_nan(shape, axes, dt):
    text = REDUCE.format(op="reduce_max", shape="x".join(map(str, shape)), axes=axes, dt=dt)
    exe = aicf.compile(text, target="cpu")
    assert "reduction(max:" in exe.source
    if dt == "f32":
        x = (RNG.standard_normal(shape) * 100).astype(np.float32)
        flat = x.reshape(shape[0], -1)
        flat[1, RNG.integers(flat.shape[1])] = np.nan  # one NaN in slice 1
        flat[2, :] = -np.inf
        flat[3, -1] = np.nan  # in the vector loop's remainder
    else:
        x = RNG.integers(-(2**31), 2**31 - 1, shape, dtype=np.int64).astype(np.int32)
    ref = x.max(axis=tuple(axes))
    out = exe(x)
    np.testing.assert_array_equal(out, ref)


def test_max_of_many_nans_and_infs():
    """The NaN flag wins over any ordinary value, including +-inf."""
    text = REDUCE.format(op="reduce_max", shape="64x1000", axes=[1], dt="f32")
    exe = aicf.compile(text, target="cpu")
    x = RNG.standard_normal((64, 1000)).astype(np.float32)
    x[::2, ::7] = np.inf
    x[::3, 5::11] = np.nan
    x[5] = np.nan
    np.testing.assert_array_equal(exe(x), x.max(axis=1))
