"""Entry functions with dynamic leading extents specialise per call (issue 4 item 1).
`target` is aicf's pytest fixture (aicf/pytest_plugin.py): cpu, and cuda with a GPU."""

import numpy as np
import pytest

import aicf
from aicf.errors import ArgumentError
from aicf.testing import assert_close

ROWSUM = """\
func.func @rowsum(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?xf32> {
  %0 = aicf_tensor.add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %1 = aicf_tensor.reduce_sum %0 axes = [-1] : (tensor<*xf32>) -> tensor<?xf32>
  func.return %1 : tensor<?xf32>
}
"""


def test_specialises_and_caches_per_shape(target):
    exe = aicf.compile(ROWSUM, target=target)
    rng = np.random.default_rng(0)
    for n in (5, 1, 17, 5):
        x = rng.standard_normal((n, 8), dtype=np.float32)
        b = rng.standard_normal(8, dtype=np.float32)
        y = exe(x, b)
        ref = (x.astype(np.float64) + b).sum(-1)
        assert y.shape == (n,)
        assert_close(y, ref, reduction=True)
    assert sorted(exe.specializations) == [((1, 8), (8,)), ((5, 8), (8,)), ((17, 8), (8,))]


def test_zero_rows():
    exe = aicf.compile(ROWSUM, target="cpu")
    y = exe(np.empty((0, 8), np.float32), np.ones(8, np.float32))
    assert y.shape == (0,)


def test_static_extent_still_checked():
    exe = aicf.compile(ROWSUM, target="cpu")
    with pytest.raises(ArgumentError, match=r"argument #0 \('%x'\) of @rowsum: expected shape \?x8"):
        exe(np.ones((3, 7), np.float32), np.ones(8, np.float32))
    with pytest.raises(ArgumentError, match="takes 2 argument"):
        exe(np.ones((3, 8), np.float32))


def test_dtype_checked_by_the_specialisation():
    exe = aicf.compile(ROWSUM, target="cpu")
    with pytest.raises(ArgumentError, match="float32"):
        exe(np.ones((3, 8), np.float64), np.ones(8, np.float32))


def test_each_specialisation_compiles_with_the_options_given(monkeypatch):
    """tune and matmul_precision reach each shape's compile as fuse and force do (they
    were dropped: a dynamic program's specialisations took the defaults)."""
    from aicf import compiler

    exe = aicf.compile(ROWSUM, target="cpu", tune=False, matmul_precision="high", fuse=False)
    seen = []
    original = compiler.compile

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile", spy)
    exe.specialize([(3, 8), (8,)])
    assert [(k["tune"], k["matmul_precision"], k["fuse"]) for k in seen] == [(False, "high", False)]


def test_explain_covers_every_specialisation():
    """`exe.explain()`, which aicf.compile's documentation offers, raised a raw
    AttributeError when the entry has dynamic extents."""
    exe = aicf.compile(ROWSUM, target="cpu")
    assert "no specialisation compiled yet" in exe.explain()
    exe(np.ones((3, 8), np.float32), np.ones(8, np.float32))
    exe(np.ones((5, 8), np.float32), np.ones(8, np.float32))
    text = exe.explain()
    assert text.index("shapes [[3, 8], [8]]") < text.index("shapes [[5, 8], [8]]")
    assert text.count("pipeline: ") == 2
    with pytest.raises(ArgumentError, match="top must be an int >= 0"):
        exe.explain(top=-1)
