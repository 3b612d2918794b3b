"""Executables and jitted functions take any `__dlpack__` array without copying it:
NumPy through a DLPack-only wrapper (always run), torch CPU tensors (when torch is
installed; CI does not install it), CuPy arrays on the GPU (gpu-marked)."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_support import cp, gpu

import aicf
from aicf.interop import as_array

PROGRAM = """
func.func @f(%x: tensor<3x4xf32>, %w: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = aicf_tensor.mul %x, %w : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = aicf_tensor.tanh %0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %1 : tensor<3x4xf32>
}
"""

RNG = np.random.default_rng(5)


def reference(x, w):
    return np.tanh(np.asarray(x, np.float64) * np.asarray(w, np.float64))


class DLPackOnly:
    """An array known to aicf only through the DLPack protocol (no .shape/.dtype of
    NumPy's), backed by a NumPy or CuPy array."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class OnDevice(DLPackOnly):
    """Claims to live on another device (DLPack device type `kind`)."""

    def __init__(self, array, kind):
        super().__init__(array)
        self.kind = kind
        self.shape, self.dtype = array.shape, array.dtype

    def __dlpack_device__(self):
        return (self.kind, 0)


def test_any_dlpack_array_is_taken_without_a_copy():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    taken = as_array(DLPackOnly(x), "cpu", "x")
    assert isinstance(taken, np.ndarray) and np.shares_memory(taken, x)
    exe = aicf.compile(PROGRAM, target="cpu")
    w = RNG.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(exe(DLPackOnly(x), DLPackOnly(w)), reference(x, w), rtol=1e-6)
    strided = RNG.standard_normal((4, 3)).astype(np.float32).T  # a transposed view
    np.testing.assert_allclose(exe(DLPackOnly(strided), w), reference(strided, w), rtol=1e-6)


@pytest.mark.parametrize("kind, device", [(2, "cuda:0"), (10, "rocm:0"), (99, "device type 99:0")])
def test_array_on_a_device_the_target_cannot_read_is_named(kind, device):
    exe = aicf.compile(PROGRAM, target="cpu")
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(aicf.ArgumentError) as err:
        exe(x, OnDevice(np.zeros(4, np.float32), kind))
    msg = str(err.value)
    assert msg.startswith("argument #1 ('%w') of @f: ")
    assert f"is on {device}; the cpu target takes arrays on the CPU" in msg
    assert "dtype float32, shape (4,)" in msg


def test_a_device_that_is_not_a_number_is_named():
    """A __dlpack_device__ answering ("cpu", 0) raised int()'s raw ValueError."""
    exe = aicf.compile(PROGRAM, target="cpu")
    with pytest.raises(aicf.ArgumentError, match=r"argument #1 \('%w'\) of @f: cannot read the DLPack device"):
        exe(np.zeros((3, 4), np.float32), OnDevice(np.zeros(4, np.float32), "cpu"))


def test_a_masked_array_is_refused():
    """Its data were read with the masked elements as they are (JAX refuses one)."""
    x = np.ma.array(RNG.standard_normal((3, 4)).astype(np.float32), mask=np.eye(3, 4, dtype=bool))
    w = np.ones(4, np.float32)
    exe = aicf.compile(PROGRAM, target="cpu")
    with pytest.raises(aicf.ArgumentError, match=r"argument #0 \('%x'\) of @f: a numpy.ma.MaskedArray: .* would ignore its mask"):
        exe(x, w)
    with pytest.raises(aicf.ArgumentError, match=r"argument 'x': a numpy.ma.MaskedArray: .* would ignore its mask"):
        aicf.jit(lambda x, w: x * w)(x, w)


def test_jit_takes_dlpack_leaves():
    @aicf.jit
    def f(p):
        return np.tanh(p["x"] * p["w"])

    x = RNG.standard_normal((3, 4)).astype(np.float32)
    w = RNG.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(f({"x": DLPackOnly(x), "w": w}), reference(x, w), rtol=1e-6)
    with pytest.raises(aicf.ArgumentError, match=r"argument 'p\['w'\]': .* is on cuda:0"):
        f({"x": x, "w": OnDevice(w, 2)})


# --- torch (CPU build), when installed -------------------------------------------------------


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 4)
    w = torch.randn(4)
    assert np.shares_memory(as_array(x, "cpu", "x"), x.numpy())
    exe = aicf.compile(PROGRAM, target="cpu")
    out = exe(x, w)
    assert isinstance(out, np.ndarray)  # results stay NumPy arrays on cpu
    np.testing.assert_allclose(out, reference(x.numpy(), w.numpy()), rtol=1e-6)
    xt = torch.randn(4, 3).T  # non-contiguous: passed with its strides
    np.testing.assert_allclose(exe(xt, w), reference(xt.numpy(), w.numpy()), rtol=1e-6)
    jitted = aicf.jit(lambda a, b: np.tanh(a * b))
    np.testing.assert_allclose(jitted(x, w), reference(x.numpy(), w.numpy()), rtol=1e-6)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda torch: torch.randn(4, requires_grad=True), "Can't export tensors that require gradient"),
        (lambda torch: torch.randn(4).to(torch.bfloat16), "torch.bfloat16, shape (4,), strides (1,) on cpu:0"),
        (lambda torch: torch.randn(4).to(torch.float64), "expected float32 array of shape (4,)"),
        # a lazily negated view: DLPack carried its memory without the sign (read negated)
        (lambda torch: torch.randn(4, dtype=torch.complex64).conj().imag, "negative bit set"),
    ],
)
def test_torch_tensors_that_cannot_be_taken_are_named(make, words):
    torch = pytest.importorskip("torch")
    exe = aicf.compile(PROGRAM, target="cpu")
    with pytest.raises(aicf.ArgumentError) as err:
        exe(torch.randn(3, 4), make(torch))
    assert str(err.value).startswith("argument #1 ('%w') of @f: ")
    assert words in str(err.value)
    if "expected" not in words:  # no array at all: through aicf.jit too
        with pytest.raises(aicf.ArgumentError, match="argument 'b'"):
            aicf.jit(lambda a, b: a * b)(torch.randn(3, 4), make(torch))


# --- cuda target -----------------------------------------------------------------------------


@gpu
@pytest.mark.gpu
def test_cuda_target_takes_device_and_host_dlpack_arrays():
    exe = aicf.compile(PROGRAM, target="cuda")
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    w = RNG.standard_normal(4).astype(np.float32)
    out = exe(DLPackOnly(cp.asarray(x)), DLPackOnly(w))  # a CUDA array and a CPU one
    assert isinstance(out, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(out), reference(x, w), rtol=1e-6)
    taken = as_array(DLPackOnly(cp.asarray(x)), "cuda", "x")
    assert isinstance(taken, cp.ndarray)


def test_dynamic_shape_entry_takes_dlpack_arrays():
    exe = aicf.compile(PROGRAM.replace("3x4xf32", "?x4xf32"), target="cpu")
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    w = RNG.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(exe(DLPackOnly(x), DLPackOnly(w)), reference(x, w), rtol=1e-6)
