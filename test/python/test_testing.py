"""aicf.testing.assert_close and the pytest plugin (aicf/pytest_plugin.py). The
tolerances are checked against values a known number of ulps away (np.nextafter
walks the stored type one representable value at a time)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from aicf.pytest_plugin import have_gpu
from aicf.testing import assert_close, default_tolerance


def ulps_away(x: np.ndarray, n: int) -> np.ndarray:
    """x moved n representable values up, in x's own type."""
    for _ in range(n):
        x = np.nextafter(x, np.asarray(np.inf, x.dtype))
    return x


@pytest.mark.parametrize("actual, expected", [
    (np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0]) + 1j),   # passed: the imaginary part dropped
    (np.array([1.0, 2.0], np.complex64), np.array([1.0, 2.0])),
    (np.array([1, "a"], dtype=object), np.array([1.0, 2.0])),         # raised from NumPy's conversion
])  # fmt: skip
def test_only_real_arrays_are_compared(actual, expected):
    with pytest.raises(TypeError, match="arrays of real numbers"):
        assert_close(actual, expected)


@pytest.mark.parametrize("kwargs, words", [
    ({"rtol": -1.0}, "rtol must be a number >= 0, got -1.0"),   # made every element fail
    ({"atol": float("nan")}, "atol must be a number >= 0, got nan"),
    ({"ulps": -5}, "ulps must be a number >= 0, got -5"),
    ({"rtol": "a"}, "rtol must be a number >= 0, got 'a'"),     # a UFuncTypeError from inside
    ({"dtype": "f128"}, "dtype must be one of"),                # was ignored
])  # fmt: skip
def test_bad_tolerance_arguments_are_named(kwargs, words):
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(ValueError, match=words):
        assert_close(x, x, **kwargs)


@pytest.mark.parametrize("dtype", ["float16", np.float16, np.dtype("float16")])
def test_numpy_names_of_dtype_give_its_ulps(dtype):
    """dtype="float16" compared exactly (no ulp table entry under that name)."""
    near = np.array([1.0], np.float32)
    assert_close(near, np.array([1.0 + 2**-11]), dtype=dtype)  # 2 ulp(f16) allowed
    with pytest.raises(AssertionError):
        assert_close(near, np.array([1.0 + 2**-8]), dtype=dtype)


def test_torch_bf16_tensors_are_compared():
    torch = pytest.importorskip("torch")
    assert_close(torch.tensor([1.0, 3.0], dtype=torch.bfloat16), np.array([1.0, 3.0]))
    with pytest.raises(AssertionError, match="bf16"):
        assert_close(torch.tensor([1.0, 3.0], dtype=torch.bfloat16), np.array([1.0, 3.5]))


@pytest.mark.parametrize("dtype,allowed", [(np.float32, 8), (np.float16, 2), (np.float64, 16)])
def test_elementwise_default_is_ulps_of_the_stored_type(dtype, allowed):
    expected = np.array([1.5, -3.0e3, 0.7, 2.0 ** -3, 100.25], dtype)
    assert_close(ulps_away(expected, allowed), expected.astype(np.float64))
    with pytest.raises(AssertionError, match="mismatched elements: 5 / 5"):
        assert_close(ulps_away(expected, allowed + 1), expected.astype(np.float64))


def test_bf16_bits_are_read_as_bf16():
    ref = np.array([1.0, 3.0, -0.5, 96.0])
    bits = (ref.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    assert_close(bits + np.uint16(2), ref, dtype="bf16")  # two bf16 ulps up
    with pytest.raises(AssertionError, match=r"\(bf16, elementwise"):
        assert_close(bits + np.uint16(3), ref, dtype="bf16")


def test_reduction_tolerance_is_relative_to_the_largest_value():
    """A sum that cancels to ~0 is compared to the scale of the result, not to its own
    magnitude: f32 relative 1e-5 of max|expected|."""
    expected = np.array([1000.0, 1e-3, -250.0])
    actual = (expected + np.array([5e-3, 5e-3, 0.0])).astype(np.float32)
    assert_close(actual, expected, reduction=True)
    with pytest.raises(AssertionError, match=r"greatest relative difference: 5 at index \(1,\)"):
        assert_close(actual, expected)  # elementwise: 5e-3 on 1e-3 is far off
    with pytest.raises(AssertionError, match=r"mismatched elements: 2 / 3"):
        assert_close(actual, expected, reduction=True, rtol=1e-6)


def test_explicit_rtol_is_torchs_rule():
    expected = np.array([1.0, 10.0, 0.0])
    actual = np.array([1.001, 10.02, 9e-6], np.float32)
    assert_close(actual, expected, rtol=2.1e-3)  # torch's default atol, 1e-5
    with pytest.raises(AssertionError, match=r"index \(1,\)"):
        assert_close(actual, expected, rtol=1.5e-3)
    with pytest.raises(AssertionError, match=r"mismatched elements: 1 / 3"):
        assert_close(actual, expected, rtol=2.1e-3, atol=0)


def test_report_names_the_worst_element():
    expected = np.zeros((4, 5))
    actual = np.zeros((4, 5), np.float32)
    actual[2, 3] = 0.5
    actual[0, 1] = 0.25
    with pytest.raises(AssertionError) as info:
        assert_close(actual, expected, msg="layer 3")
    text = str(info.value)
    assert text.startswith("layer 3: arrays are not close (f32, elementwise")
    assert "mismatched elements: 2 / 20 (10%)" in text
    assert "greatest absolute difference: 0.5 at index (2, 3)" in text
    assert "worst element (2, 3): actual 0.5, expected 0" in text


def test_nan_inf_integers_and_shapes():
    assert_close(np.array([np.nan, np.inf, -np.inf], np.float32), [np.nan, np.inf, -np.inf])
    with pytest.raises(AssertionError, match="mismatched elements: 1 / 2"):
        assert_close(np.array([np.nan, 1.0], np.float32), [0.0, 1.0])
    with pytest.raises(AssertionError, match="mismatched elements: 1 / 1"):
        assert_close(np.array([np.inf], np.float32), [-np.inf])
    with pytest.raises(AssertionError, match="mismatched elements: 1 / 2"):
        assert_close(np.array([np.nan, 1.0], np.float32), [np.nan, 1.0], equal_nan=False)
    assert default_tolerance("int32") is None
    assert_close(np.array([3, 4], np.int32), [3, 4])
    with pytest.raises(AssertionError, match="exact"):
        assert_close(np.array([3, 5], np.int32), [3, 4])
    with pytest.raises(AssertionError, match=r"shapes differ: actual \(2,\), expected \(1, 2\)"):
        assert_close(np.array([3, 4], np.float32), [[3, 4]])


PLUGIN_USER = textwrap.dedent(
    """
    import numpy as np
    import pytest
    import aicf

    def test_relu(target, assert_close):
        exe = aicf.compile('''
        func.func @f(%x: tensor<5xf32>) -> tensor<5xf32> {
          %0 = aicf_tensor.relu %x : (tensor<5xf32>) -> tensor<5xf32>
          func.return %0 : tensor<5xf32>
        }''', target=target)
        x = np.linspace(-2, 2, 5).astype(np.float32)
        assert_close(exe(x), np.maximum(x, 0))

    @pytest.mark.gpu
    def test_needs_gpu():
        import cupy
        assert cupy.cuda.runtime.getDeviceCount() > 0
    """
)


def test_plugin_runs_each_target_and_skips_cuda_without_a_gpu(tmp_path):
    (tmp_path / "test_user.py").write_text(PLUGIN_USER)
    r = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                        "--rootdir", str(tmp_path), str(tmp_path / "test_user.py")],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    out = r.stdout
    assert "test_user.py::test_relu[cpu] PASSED" in out, out + r.stderr
    if have_gpu():
        assert "test_relu[cuda] PASSED" in out and "test_needs_gpu PASSED" in out, out
    else:
        assert "test_relu[cuda] SKIPPED" in out and "test_needs_gpu SKIPPED" in out, out
        assert r.returncode == 0, out
