"""Traced Python used the way NumPy, JAX and PyTorch users use it, misused included:
each gives NumPy's answer or the project's own error at the user's line, never a
silent wrong answer or a raw exception from inside aicf (issue 10's second attack)."""

from __future__ import annotations

import os
import re
import tempfile
import warnings

import numpy as np
import pytest

os.environ.setdefault("AICF_CACHE_DIR", tempfile.mkdtemp(prefix="aicf-test-cache-"))

import aicf  # noqa: E402
from gpu_support import cp, gpu  # noqa: E402
from aicf.compiler import run_pipeline  # noqa: E402
from aicf.context import make_context  # noqa: E402
from aicf.diagnostics import parse_module  # noqa: E402
from aicf.errors import ArgumentError, CompileError  # noqa: E402

I4 = np.array([-7, 0, 3, 9], np.int32)
X4 = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
HERE = os.path.basename(__file__)
IDENTITY = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xf32>\n}\n"


def here(offset: int = 0) -> str:
    """`file:line` of the caller's line plus `offset` (where a traced error points)."""
    import inspect

    return f"{HERE}:{inspect.currentframe().f_back.f_lineno + offset}"


@pytest.mark.parametrize("fn", [
    lambda x, y: x / y,
    lambda x, y: np.divide(x, y),
    lambda x, y: np.true_divide(x, y),
    lambda x, y: x / 2 + 1 / y,
])  # fmt: skip
def test_true_division_of_integers_is_numpys(fn):
    """`/` of i32 tensors truncated (aicf_tensor.div of integers is C's division):
    [-7, 0, 3, 9] / 2 gave [-3, 0, 1, 4]."""
    y = np.array([2, 4, 5, 3], np.int32)
    got = aicf.jit(fn)(I4, y)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, fn(I4.astype(np.float64), y.astype(np.float64)), rtol=1e-6)


def test_integer_to_a_negative_power_is_an_error_as_in_numpy():
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.pow' integers to negative integer powers"):
        aicf.jit(lambda x: x**-1)(I4)
    np.testing.assert_array_equal(aicf.jit(lambda x: x**2)(I4), I4**2)


@pytest.mark.parametrize("ddof", [3, 4, 10])
def test_variance_with_ddof_at_least_n_is_numpys(ddof):
    """n - ddof <= 0: NumPy divides by max(n - ddof, 0) (inf); aicf divided by the
    negative count (ddof=10 over 4 values gave -0.83)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.var(X4.astype(np.float64), ddof=ddof)
    got = aicf.jit(lambda x: aicf.ops.reduce_var(x, ddof=ddof))(X4)
    if ddof < 4:
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        assert np.isinf(got) and np.isinf(want)


def test_iterating_over_a_tensor_gives_its_rows():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(aicf.jit(lambda x: sum(row * 2 for row in x))(m), sum(row * 2 for row in m))
    a, b, c = m
    got = aicf.jit(lambda x: (lambda p, q, r: p - r)(*x))(m)
    np.testing.assert_array_equal(got, a - c)


def test_item_assignment_is_a_located_error():
    def f(x):
        x[0] = 5.0
        return x

    with pytest.raises(CompileError, match=rf"{here(-3)}: error: item assignment .* tensors are immutable"):
        aicf.jit(f)(X4)


@pytest.mark.parametrize("method", ["item", "tolist"])
def test_concrete_values_are_a_located_error(method):
    with pytest.raises(CompileError, match=rf"{here(1)}: error: {method}\(\) of a traced tensor"):
        aicf.jit(lambda x: getattr(x, method)())(X4)


@pytest.mark.parametrize("index, words", [(np.s_[0.5:2], "slice indices must be integers"),
                                          (np.s_[::0], "slice step cannot be zero")])
def test_bad_slices_are_located_errors(index, words):
    with pytest.raises(CompileError, match=rf"{here(1)}: error: slice .* of axis 0: {words}"):
        aicf.jit(lambda x: x[index])(X4)


@pytest.mark.parametrize("shape, words", [
    # a 4 TiB splat is a 0-d constant broadcast (no memory taken), so the mismatch
    # with x's shape is what is reported, at the user's line
    ((2**40,), "'aicf_tensor.add' shapes 4, 1099511627776 are not broadcast-compatible"),
    ((2**62, 8), "'aicf_tensor.constant' .*more than int64 can count"),
])
def test_huge_constants_are_located_errors(shape, words):
    """A 4 TiB splat raised NumPy's MemoryError from inside the tracer."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: {words}"):
        aicf.jit(lambda x: x + aicf.ops.constant(1.0, shape=shape))(X4)


@pytest.mark.parametrize("shape, error, words", [
    ((3.5,), TypeError, "an int or None, got 3.5"),
    ("abc", TypeError, "a sequence of ints"),
    ((True,), TypeError, "an int or None, got True"),
    ((-3,), ValueError, ">= 0, got -3"),
    ((2**62,), ValueError, "more than can be allocated"),
    ((2**64,), ValueError, "more than int64 can count"),
    # empty, but its strides overflow and NumPy could not make such an array
    ((0, 2**62), ValueError, r"bytes \(nonzero extents\), more than can be allocated"),
])  # fmt: skip
def test_tensor_spec_checks_its_shape(shape, error, words):
    """3.5 and "abc" raised xDSL's VerifyException from the tracer; 2^62 and 2^64
    traced into a module with no complaint. Each is an ArgumentError too."""
    with pytest.raises(error, match=words) as e:
        aicf.TensorSpec(shape, "f32")
    assert isinstance(e.value, aicf.ArgumentError)
    assert aicf.TensorSpec((np.int64(3), None), "f32").shape == (3, None)


@pytest.mark.parametrize("options, words", [
    ({"target": "tpu"}, "unknown target 'tpu'"),
    ({"cache_size": -1}, "cache_size must be an int >= 0, got -1"),
    ({"cache_size": "a"}, "cache_size must be an int >= 0, got 'a'"),
])  # fmt: skip
def test_jit_checks_its_options(options, words):
    """cache_size=-1 raised KeyError and "a" TypeError from the cache, at the first call."""
    with pytest.raises(ArgumentError, match=words):
        aicf.jit(lambda x: x, **options)
    with pytest.raises(ArgumentError, match="expects a function, got int"):
        aicf.jit(3)


@pytest.mark.parametrize("force, words", [
    ('a"} x{', "unknown schedule kind 'a\"} x{'"),
    ("gpu.nope", "unknown schedule kind 'gpu.nope'"),
    ("gpu.rows", "is a gpu kind; the cpu target takes cpu kinds"),
])  # fmt: skip
def test_compile_checks_forced_kinds_before_they_reach_a_pipeline(force, words):
    """A quote and brace in a kind made a pipeline of its own: xDSL's
    ArgSpecParseError, a BaseException, escaped `except Exception`."""
    with pytest.raises(ArgumentError, match=words):
        aicf.compile(IDENTITY, force=force)


@pytest.mark.parametrize("tune", ["sometimes", 5, 1.0])
def test_compile_checks_tune_on_every_target(tune):
    with pytest.raises(ArgumentError, match="tune must be True, False or 'auto'"):
        aicf.compile(IDENTITY, target="cpu", tune=tune)


def test_a_malformed_pass_is_a_compile_error():
    module = parse_module(make_context(), IDENTITY)
    with pytest.raises(CompileError, match="malformed pass"):
        run_pipeline(module, ['aicf-plan{force="a"} x{"}'])


@pytest.mark.parametrize("fn", [
    lambda x: np.sum(x > 1),
    lambda x: (x > 1).sum(axis=0),
    lambda x: np.sum((x > 1)[None, :], axis=1, keepdims=True),
])  # fmt: skip
def test_a_sum_of_bools_counts_as_in_numpy(fn):
    x = np.array([0.5, 1.0, 2.0, 3.0, np.nan], np.float32)
    out = aicf.jit(fn)(x)
    want = fn(x)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(out, want)


def test_torch_sum_of_bools_counts_as_in_torch():
    from aicf.torch_backend.aten import ATEN

    x = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    out = aicf.jit(lambda x: ATEN["aten.sum.dim_IntList"](x > 1, [0]))(x)
    assert out.dtype == np.int64 and out == 2


@pytest.mark.parametrize("fn", [
    lambda x: np.sum(x),
    lambda x: x.sum(axis=1),
    lambda x: np.sum(x, axis=0, keepdims=True),
])  # fmt: skip
def test_a_sum_of_int32_is_int64_as_in_numpy(fn):
    # 4 * 2**30 wrapped to 0 in an i32 accumulator
    x = np.full((2, 4), 2**30, np.int32)
    out = aicf.jit(fn)(x)
    want = fn(x)
    assert out.dtype == want.dtype == np.int64
    np.testing.assert_array_equal(out, want)


def test_torch_sum_of_int32_is_int64_as_in_torch():
    from aicf.torch_backend.aten import ATEN

    x = np.full(4, 2**30, np.int32)
    out = aicf.jit(lambda x: ATEN["aten.sum.dim_IntList"](x, [0]))(x)
    assert out.dtype == np.int64 and out == 4 * 2**30


@pytest.mark.parametrize("values", [
    np.array([[2**31 - 1, -(2**31), 5], [3, -(2**31) + 1, 0]], np.int32),
    np.array([[2**63 - 1, -(2**63), 5], [3, -(2**63) + 1, 0]], np.int64),
    np.array([[True, False, True], [True, True, True]]),
    np.array([[np.inf, -np.inf, np.nan], [3.0, -0.5, 0.0]], np.float32),
], ids=["i32", "i64", "bool", "f32"])  # fmt: skip
@pytest.mark.parametrize("fn", [
    lambda x: np.min(x),
    lambda x: np.min(x, axis=1, keepdims=True),
    lambda x: x.min(axis=0),
    lambda x: np.minimum.reduce(x, axis=1),
])  # fmt: skip
def test_min_is_numpys_at_the_extremes(fn, values):
    # min was -max(-x): wrong where an integer tensor holds INT_MIN, and for bools
    out = aicf.jit(fn)(values)
    want = fn(values)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(out, want)


def test_negating_bools_is_a_located_error_as_in_numpy():
    # the tracer says it at the user's line (the verifier, for IR written by hand, has
    # its own: test/lit/aicf_tensor/verify-errors.mlir)
    with pytest.raises(CompileError, match=f"{here(1)}: error: numpy.negative .-x. of a bool tensor is not defined"):
        aicf.jit(lambda x: -(x > 0))(X4)


def test_square_root_as_a_power_is_numpys():
    x = np.array([-np.inf, -0.0, 0.0, 4.0, np.inf, -1.0, np.nan], np.float32)
    with np.errstate(invalid="ignore"):
        want = x ** 0.5
    out = aicf.jit(lambda x: x ** 0.5)(x)
    np.testing.assert_array_equal(out, want)
    assert np.signbit(out[1])
    # a 0-d array exponent is NumPy's scalar too (it took C's pow: +inf at -inf)
    for y in (np.array(0.5), np.array(0.5, np.float32)):
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(aicf.jit(lambda x: x ** y)(x), x ** y)


def test_torch_amin_is_exact_at_int_min():
    from aicf.torch_backend.aten import ATEN

    x = np.array([[2**63 - 1, -(2**63), 5]], np.int64)
    out = aicf.jit(lambda x: ATEN["aten.amin.default"](x, [1]))(x)
    np.testing.assert_array_equal(out, [-(2**63)])


@pytest.mark.parametrize("index", [np.s_[::2**70], np.s_[::-(2**70)], np.s_[3::2**63], np.s_[4:0:-(2**64)]])
def test_slice_steps_past_int64_are_numpys(index):
    # a step is an i64 attribute: 2**70 reached xDSL and raised its ValueError
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(aicf.jit(lambda a: a[index])(x), x[index])


@pytest.mark.parametrize("args, words", [
    (((-1, 3),), r"a TensorSpec extent is >= 0, got -1 in \(-1, 3\)"),
    (((3.5,),), r"a TensorSpec extent is an int or None, got 3.5 in \(3.5,\)"),
    (((True, 2),), r"a TensorSpec extent is an int or None, got True"),
    (("ab",), r"a TensorSpec shape is a sequence of ints \(None: dynamic\), got 'ab'"),
    (((3,), "complex64"), r"unsupported dtype 'complex64'"),
    (((2**40, 2**40),), r"TensorSpec\(1099511627776, 1099511627776\) of f32 has .* elements"),
    # weak="yes" was taken as true, a weak array took the dtype of what it met
    (((), "f32", "yes"), r"weak is True \(a Python scalar: shape \(\)\) or False, got 'yes'"),
    (((3,), "f64", True), r"weak is True .* got True with shape \(3,\)"),
])
def test_bad_tensor_specs_are_argument_errors(args, words):
    """A raw ValueError / TypeError came out of TensorSpec (ArgumentError is still a
    TypeError)."""
    with pytest.raises(aicf.ArgumentError, match=words):
        aicf.TensorSpec(*args)


def test_bad_example_arguments_and_pytrees_are_aicf_errors():
    """Found by the third attack (issue 10): raw TypeError / RecursionError."""
    with pytest.raises(aicf.AicfError, match="example arguments must be arrays or aicf.TensorSpec, got str"):
        aicf.trace(lambda x: x * 2, "abc")
    one = np.ones(3, np.float32)
    with pytest.raises(aicf.AicfError, match="dict keys of a pytree must be sortable .* int, str"):
        aicf.jit(lambda d: d[1] + d["a"])({1: one, "a": one})
    cycle: list = [one]
    cycle.append(cycle)
    with pytest.raises(aicf.AicfError, match="nested more than 100 deep"):
        aicf.jit(lambda a: a[0])(cycle)


def test_a_leaked_tensor_cannot_be_used_after_its_trace():
    """As JAX's UnexpectedTracerError: a traced tensor kept past its trace raises when
    used, instead of adding ops to a program compiled already."""
    leak = []

    def f(x):
        leak.append(x)
        return x * 2

    aicf.jit(f)(np.ones(3, np.float32))
    for use in (lambda t: t + 1, lambda t: t * 2, np.sin):
        with pytest.raises(aicf.CompileError, match="used after its trace ended"):
            use(leak[0])


@pytest.mark.parametrize("fn", [
    lambda x: np.var(x, axis=0, out=np.empty(6, np.float32)),
    lambda x: np.sum(x, axis=0, where=np.ones((4, 6), bool)),
    lambda x: np.max(x, axis=0, initial=np.zeros(1, np.float32)),
])  # fmt: skip
def test_array_valued_options_are_a_located_error(fn):
    """An array given as out=, where= or initial= compares elementwise: a located
    'not supported', not NumPy's 'truth value of an array is ambiguous' (a hostile
    attack)."""
    from aicf.errors import CompileError

    with pytest.raises(CompileError, match=r"test_traced_misuse.py:\d+: error: numpy\.\w+: \w+=an array"):
        aicf.jit(target="cpu")(fn)(np.ones((4, 6), np.float32))


def test_an_axis_out_of_range_is_a_located_error():
    from aicf.errors import CompileError

    with pytest.raises(CompileError, match=r"axis 7 is out of range for a tensor of rank 2"):
        aicf.jit(target="cpu")(lambda x: aicf.ops.reduce_sum(x, 7))(np.ones((4, 6), np.float32))


@pytest.mark.parametrize("name", ["i8", "f8", "f4", "u8"])
def test_dtype_names_in_bytes_are_refused(name):
    """aicf's dtype names count bits, as MLIR's ("i32", "i1"), but NumPy reads "i8"
    as 8 bytes: cast(x, "i8") gave int64 and TensorSpec(..., "f8") f64, silently."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: .*dtype '{name}' is ambiguous"):
        aicf.jit(lambda x: aicf.ops.cast(x, name))(X4)
    with pytest.raises(aicf.ArgumentError, match="ambiguous"):
        aicf.TensorSpec((2,), name)
    assert aicf.jit(lambda x: aicf.ops.cast(x, "i1"))(X4).dtype == np.bool_  # MLIR's names stay


@pytest.mark.parametrize("make, dtype", [
    (lambda x: np.full_like(x.astype(np.int32), 2**40), "i32"),
    (lambda x: aicf.ops.constant([1, 2**33], dtype="i32"), "i32"),
    (lambda x: aicf.ops.constant(2**70, dtype="i64", shape=(2,)), "i64"),
])  # fmt: skip
def test_integer_constants_out_of_range_are_located_errors(make, dtype):
    """full_like(an i32 tensor, 2**40) was 0 (wrapped); NumPy raises OverflowError."""
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: 'aicf_tensor.constant' .* is out of {dtype} range"):
        aicf.jit(make)(X4)
    ints = np.full_like(np.zeros(3, np.int32), 2**31 - 1)
    np.testing.assert_array_equal(aicf.jit(lambda x: np.full_like(x.astype(np.int32), 2**31 - 1))(X4[:3]), ints)


@pytest.mark.parametrize("fn, words", [
    (lambda x: x.reshape(2**64), "'aicf_tensor.reshape' an extent 18446744073709551616 is out of int64 range"),
    (lambda x: np.transpose(x[None], (0, 2**64)), "'aicf_tensor.transpose' a perm entry .* is out of int64 range"),
    (lambda x: np.array_split(x, 2**70), "numpy.array_split: 1180591620717411303424 sections .* too many"),
    (lambda x: x + aicf.ops.constant([[1], [1, 2]]), "'aicf_tensor.constant' the value is no array"),
    (lambda x: aicf.ops.attention(x[None], x[None], x[None], scale="a"), "'aicf_tensor.attention' scale must be a real number, got str"),
])  # fmt: skip
def test_unrepresentable_arguments_are_located_errors(fn, words):
    """Each raised a raw ValueError or OverflowError (xDSL's i64 attribute, NumPy's
    ragged array, float('a'), a list of 2**70 section sizes)."""
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {words}"):
        aicf.jit(fn)(X4)


@pytest.mark.parametrize("fn, name", [
    (lambda x: x.argsort(), "ndarray.argsort"),
    (lambda x: x.view(np.int32), "ndarray.view"),
    (lambda x: x.searchsorted(0.5), "ndarray.searchsorted"),
    (lambda x: x + x.strides[0], "ndarray.strides"),
    (lambda x: round(x), "round()"),
])  # fmt: skip
def test_ndarray_attributes_without_meaning_are_located_errors(fn, name):
    """They raised a bare AttributeError (TypeError for round()) from inside the
    tracer; item() and tolist() already said where."""
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {re.escape(name)} has no aicf meaning"):
        aicf.jit(fn)(X4)
    # probing still answers as for any missing attribute
    assert aicf.jit(lambda x: x + hasattr(x, "strides") + (getattr(x, "device", None) is None))(X4)[0] == 1.5
    with pytest.raises(AttributeError, match="no attribute 'no_such'"):
        aicf.jit(lambda x: x.no_such)(X4)


def test_a_tensor_of_another_threads_trace_is_refused():
    """A tensor of a trace under way in another thread, used where no trace is, added
    its ops to that thread's program, unsynchronised; now a located error, and the
    other trace is untouched."""
    import threading

    started, release, seen = threading.Event(), threading.Event(), {}

    def slow(x):
        seen["x"] = x
        started.set()
        release.wait(30)
        return x * 3

    worker = threading.Thread(target=lambda: seen.setdefault("out", aicf.jit(slow)(X4)))
    worker.start()
    try:
        assert started.wait(30)
        with pytest.raises(CompileError, match=rf"{here(1)}: error: .*used outside its trace .*another thread"):
            seen["x"] + 1
    finally:
        release.set()
        worker.join(30)
    np.testing.assert_array_equal(seen["out"], X4 * 3)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_ndarray_subclasses_whose_values_differ_are_refused(tmp_path):
    """A masked array's mask was ignored (np.sum of [1, --, 3] gave 6, NumPy 4) and a
    np.matrix was traced as a plain array (x * x gave the squares, NumPy the matrix
    product): silent wrong answers. A memmap is a plain array and is taken."""
    masked = np.ma.masked_array(X4, mask=[0, 1, 0, 0])
    with pytest.raises(ArgumentError, match="argument 'x': a numpy.ma.MaskedArray: .* ignore its mask"):
        aicf.jit(lambda x: np.sum(x))(masked)
    exe = aicf.compile(IDENTITY, target="cpu")
    with pytest.raises(ArgumentError, match=r"argument #0 \('%x'\) of @f: a numpy.ma.MaskedArray"):
        exe(masked)
    with pytest.raises(ArgumentError, match="argument 'x': a numpy.matrix: its `\\*`"):
        aicf.jit(lambda x: x * x)(np.matrix([[1.0, 2.0], [3.0, 4.0]], np.float32))
    mapped = np.memmap(tmp_path / "x.bin", dtype=np.float32, mode="w+", shape=(4,))
    mapped[:] = X4
    np.testing.assert_array_equal(aicf.jit(lambda x: x * 2)(mapped), X4 * 2)


class _Percent(np.ndarray):
    """An ndarray subclass with arithmetic of its own, as unit libraries have."""

    def __mul__(self, other):
        return np.asarray(self) * other / 100


class _Offset(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(v) if isinstance(v, _Offset) else v for v in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs) + 1


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_other_ndarray_subclasses_and_closed_over_ones_are_refused():
    """The masked-array and np.matrix refusals through other doors: any other subclass
    redefining arithmetic (__mul__) or ufuncs (__array_ufunc__) was traced as a plain
    array, and a masked array or a matrix closed over by the function became a
    constant of its data (x * m computed the masked elements, x * M was elementwise)."""
    for cls, what in ((_Percent, "__mul__"), (_Offset, "__array_ufunc__")):
        given = X4.view(cls)
        assert not np.array_equal(np.asarray(given * 2), X4 * 2)
        with pytest.raises(ArgumentError, match=f"argument 'x': a .*{cls.__name__} .*redefines {what}"):
            aicf.jit(lambda x: x * 2)(given)
    masked = np.ma.masked_array(X4, mask=[0, 1, 0, 0])
    with pytest.raises(CompileError, match=rf"{here(1)}: error: .*closed-over array: a numpy.ma.MaskedArray"):
        aicf.jit(lambda x: x * masked)(X4)
    matrix = np.matrix([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with pytest.raises(CompileError, match=rf"{here(1)}: error: .*closed-over array: a numpy.matrix"):
        aicf.jit(lambda x: x * matrix)(X4.reshape(2, 2))
    rec = np.rec.array(X4.reshape(2, 2))  # a subclass that only adds field access
    np.testing.assert_array_equal(aicf.jit(lambda x: x * 2)(rec), X4.reshape(2, 2) * 2)


def test_len_and_iteration_of_a_0d_tensor_are_located_type_errors():
    """A bare TypeError without the user's line; still a TypeError, as NumPy's "len() of
    unsized object", for code that probes for a length."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: len\(\) of a 0-d") as info:
        aicf.jit(lambda x: x * len(x.sum()))(X4)
    assert isinstance(info.value, TypeError)
    with pytest.raises(CompileError, match=rf"{here(1)}: error: iteration over a 0-d") as info:
        aicf.jit(lambda x: sum(x.sum()))(X4)
    assert isinstance(info.value, TypeError)


def test_assigning_a_shape_is_a_located_error():
    """NumPy's in-place reshape (x.shape = ...) raised AttributeError "property 'shape'
    of 'Tensor' object has no setter" from inside aicf."""

    def f(x):
        x.shape = (2, 2)
        return x

    with pytest.raises(CompileError, match=rf"{here(-3)}: error: assigning shape \(2, 2\) .* tensors are immutable"):
        aicf.jit(f)(X4)


def test_a_copied_tensor_is_the_tensor():
    """copy.deepcopy copied the tracer with its program, and returning the copy said
    "must return traced tensors ..., got Tensor"."""
    import copy

    got = aicf.jit(lambda x: (copy.deepcopy(x) * 2, copy.copy(x) + 1))(X4)
    np.testing.assert_array_equal(got[0], X4 * 2)
    np.testing.assert_array_equal(got[1], X4 + 1)


def test_a_dtype_option_names_the_dtype():
    """sum(dtype=np.float64) said "dtype=an array of shape <attribute 'shape' of
    'numpy.generic' objects>": a NumPy scalar type has a shape attribute."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: numpy.sum: dtype=<class 'numpy.float64'> is not"):
        aicf.jit(lambda x: x.sum(dtype=np.float64))(X4)


@pytest.mark.parametrize("fn, args, words", [
    (lambda a, b: a + b, (X4,), "<lambda>: missing a required argument: 'b'"),
    (lambda a: a, (X4, X4), "<lambda>: too many positional arguments"),
    (5, (X4,), "aicf.trace expects a function, got int 5"),
])  # fmt: skip
def test_trace_with_arguments_its_function_cannot_take_is_an_argument_error(fn, args, words):
    """Python's TypeError from inside trace_function, naming an inner frame."""
    with pytest.raises(ArgumentError, match=re.escape(words)):
        aicf.trace(fn, *args)


@pytest.mark.parametrize("value, words", [
    (1j, "1j \\(complex\\)"),
    (np.array([1 + 2j]), "complex"),
    ("abc", "'abc'"),
    (None, "None \\(object\\)"),
    ([1, None], "object"),
])  # fmt: skip
def test_a_constant_that_is_not_real_numbers_is_a_located_error(value, words):
    """ops.constant(1j) dropped the imaginary part (x + 1j gave x), None became NaN, and
    a string raised NumPy's ValueError from inside the conversion."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.constant' the value is not real numbers: .*{words}"):
        aicf.jit(lambda x: x + aicf.ops.constant(value))(X4)


@pytest.mark.parametrize("make", [
    lambda x: np.full_like(x, np.nan),
    lambda x: np.full_like(x, -np.inf),
    lambda x: np.full_like(x, 1e20),
    lambda x: x + aicf.ops.constant([2.0**31, 1.0], "i32"),
    lambda x: x.astype("i64") + aicf.ops.constant(float("inf"), "i64"),
])  # fmt: skip
def test_a_float_constant_with_no_integer_value_is_a_located_error(make):
    """np.full_like(an int tensor, nan) gave zeros and 1e20 / inf saturated, without a
    word (NumPy gives INT_MIN and warns; np.array(nan, int) raises)."""
    with pytest.raises(CompileError, match=rf"{HERE}:\d+: error: 'aicf_tensor.constant' a value of .* has no i(32|64) value"):
        aicf.jit(lambda x: make(x))(X4.astype(np.int32))


def test_a_float_constant_of_an_integer_type_truncates_as_astype():
    got = aicf.jit(lambda x: np.full_like(x, -2147483648.9) + aicf.ops.constant(2.9, "i32"))(X4.astype(np.int32))
    np.testing.assert_array_equal(got, np.full(X4.shape, -2147483648, np.int32) + 2)


@pytest.mark.parametrize("value, words", [
    (np.str_("1"), "got str_"),
    (np.datetime64(1, "s"), "got datetime64"),
    (np.timedelta64(1, "s"), "got timedelta64"),
    (np.array("1"), "unsupported dtype dtype\\('<U1'\\)"),
])  # fmt: skip
def test_a_numpy_scalar_that_is_no_number_is_a_located_error(value, words):
    """x + np.str_("1") and x + np.datetime64(1, "s") added 1 (a NumPy scalar of any kind
    was taken as a weak number); NumPy raises."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.add' .*{words}"):
        aicf.jit(lambda x: x + value)(X4)


def test_where_of_two_bools_is_a_bool_tensor():
    """np.where(c, True, False) is NumPy's bool array; it was int32 (a weak bool was an
    i32 constant), so ~ of it was an error and it was no mask."""
    got = aicf.jit(lambda x: np.where(x > 1, True, False))(X4)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, X4 > 1)
    np.testing.assert_array_equal(aicf.jit(lambda x: ~aicf.ops.where(x > 1, True, False))(X4), ~(X4 > 1))


def test_transpose_with_perm_and_axes_is_a_located_error():
    """Both given, axes was ignored."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.transpose' give `perm` or `axes`, not both"):
        aicf.jit(lambda x: aicf.ops.transpose(x.reshape(2, 2), [1, 0], axes=[0, 1]))(X4)


@pytest.mark.parametrize("fn", [
    lambda x: np.where(x > 1, 3, x > 2),
    lambda x: np.where(x > 1, x > 2, np.int64(-4)),
    lambda x: 3 * (x > 1),
    lambda x: (x > 1) - np.array([5], np.int32) * 0 + 2,
])  # fmt: skip
def test_a_weak_int_beside_a_bool_tensor_stays_an_int(fn):
    """np.where(mask, 3, other_mask) cast the 3 to the mask's bool: True, not 3."""
    got = aicf.jit(fn)(X4)
    want = fn(X4)
    assert got.dtype.kind == want.dtype.kind == "i"
    np.testing.assert_array_equal(got, want)


def test_assigning_a_dtype_is_a_located_error():
    """x.dtype = np.int32 (NumPy's reinterpretation of the bytes) raised AttributeError
    "property 'dtype' of 'Tensor' object has no setter" from inside aicf."""

    def f(x):
        x.dtype = np.int32
        return x

    with pytest.raises(CompileError, match=rf"{here(-3)}: error: assigning dtype .* tensors are immutable"):
        aicf.jit(f)(X4)


def test_jit_of_a_callable_without_a_signature_is_an_argument_error():
    """aicf.jit(max) raised inspect's raw ValueError "no signature found for builtin"."""
    with pytest.raises(ArgumentError, match="aicf.jit: cannot read the signature of max"):
        aicf.jit(max)


def test_formatting_a_tensor_with_a_spec_is_a_located_error():
    """f"{x.sum():.3f}" raised object's raw TypeError "unsupported format string
    passed to Tensor.__format__"; without a spec it prints the tensor as str() does."""
    with pytest.raises(CompileError, match=rf"{here(1)}: error: formatting with '.3f' of a traced tensor"):
        aicf.jit(lambda x: (f"{x.sum():.3f}", x)[1])(X4)
    seen = []
    aicf.jit(lambda x: (seen.append(f"{x}"), x)[1])(X4)
    assert seen == ["Tensor(shape=(4,), dtype=f32)"]


@pytest.mark.parametrize("fn, words", [
    (lambda x: x.reshape(shape=(2, 2)), r"ndarray.reshape: unexpected keyword argument\(s\) shape"),
    (lambda x: x.reshape(), "ndarray.reshape: missing the shape"),
    (lambda x: x.transpose(axes=(0,)), "ndarray.transpose: takes no keyword arguments, got axes"),
    (lambda x: np.clip(x, 0, 1, min=0), "numpy.clip: give a_min/a_max or min/max, not both"),
])  # fmt: skip
def test_ndarray_methods_called_as_numpy_refuses_are_located_errors(fn, words):
    """x.reshape(shape=...) and x.transpose(axes=...) raised raw TypeErrors naming
    Tensor's methods; np.clip(x, 0, 1, min=0) (NumPy's ValueError) dropped min."""
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {words}"):
        aicf.jit(fn)(X4)
    np.testing.assert_array_equal(aicf.jit(lambda x: x.reshape(2, 2, copy=True))(X4), X4.reshape(2, 2))


@pytest.mark.parametrize("fn, words", [
    (lambda x: np.take(x, [[0, 1], [2]]), "'numpy.take' the indices are no array"),
    (lambda x: x[[[0, 1], [2]]], "the indices are no array"),
    (lambda x: np.take(x, [0], axis="0"), "'numpy.take' axis must be an integer, got str"),
    (lambda x: np.take(x, None), "'numpy.take' indices must be integers, got an array of object"),
    (lambda x: np.einsum("i$,$j->ij", x[:, None], x[None]), r"numpy.einsum: invalid subscript '\$'"),
    (lambda x: np.einsum("iλ,λj->ij", x[:, None], x[None]), "numpy.einsum: invalid subscript 'λ'"),
])  # fmt: skip
def test_malformed_indices_and_subscripts_are_located_errors(fn, words):
    """A ragged index list raised NumPy's raw ValueError, a str axis or None indices a
    raw TypeError from comparing them with ints; einsum took '$' as an index name
    where NumPy raises."""
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {words}"):
        aicf.jit(fn)(X4)


def test_an_output_past_the_address_space_is_our_error():
    """A 512 TiB result (a broadcast view returned) cannot be allocated on any machine
    (past the 128 TiB user address space, whatever the overcommit policy): aicf's
    OutOfMemory naming the output, still a MemoryError, not NumPy's raw error."""
    from aicf.errors import OutOfMemory

    f = aicf.jit(lambda x: np.broadcast_to(x, (2, 2**44, 4)))
    with pytest.raises(OutOfMemory, match=r"output #0 \(2x17592186044416x4 float32"):
        f(np.ones(4, np.float32))


@pytest.mark.parametrize("exponent", [np.array(-1), np.array([-1, 2, 3, 1]), np.array([[2], [-2]], np.int64)])
def test_integer_to_a_negative_constant_array_power_is_an_error_as_in_numpy(exponent):
    """An integer array exponent (a 0-d one too) with a negative entry is NumPy's
    ValueError; I4 ** np.array(-1) gave [0, 0, 0, 0] (C's integer 1 / x)."""
    with pytest.raises(ValueError):
        I4 ** exponent
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.pow' integers to negative integer powers"):
        aicf.jit(lambda x: x**exponent)(I4)
    ok = np.abs(exponent)
    np.testing.assert_array_equal(aicf.jit(lambda x: x**ok)(I4), I4**ok)


@pytest.mark.parametrize("fn, words", [
    (lambda x: np.add(x, 1.5, casting="no"), "numpy.add: Cannot cast ufunc 'add' input 0 from dtype.'int32'."),
    (lambda x: np.negative(x, casting="equiv"), None),
    (lambda x: np.multiply(x, x, casting="bogus"), "numpy.multiply: casting must be one of"),
    (lambda x: np.add(x, 1, order="Q"), "numpy.add: order must be one of"),
    (lambda x: pow(x, 2, 3), r"pow\(\) with a modulus has no aicf meaning"),
])  # fmt: skip
def test_ufunc_casting_and_order_are_checked_as_numpy_checks_them(fn, words):
    """casting= and order= of a ufunc were skipped unread: np.add(i32, 1.5,
    casting='no') (NumPy's UFuncTypeError) added, a misspelt casting or order was
    ignored; pow(x, 2, 3) raised a raw TypeError naming Tensor.__pow__."""
    try:
        want = fn(I4)
    except (TypeError, ValueError):
        want = None
    if words is None:  # NumPy allows it: the same answer
        np.testing.assert_array_equal(aicf.jit(fn)(I4), want)
        return
    assert want is None
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {words}"):
        aicf.jit(fn)(I4)


def test_attention_causal_is_a_flag():
    """causal="no" (any truthy value) was taken as true: a causal attention, silently;
    keepdims already took only bools and integers."""
    q = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.attention' causal must be a bool, got str 'no'"):
        aicf.jit(lambda q: aicf.ops.attention(q, q, q, causal="no"))(q)
    plain = aicf.jit(lambda q: aicf.ops.attention(q, q, q, causal=np.False_))(q)
    np.testing.assert_array_equal(plain, aicf.jit(lambda q: aicf.ops.attention(q, q, q))(q))


def test_empty_index_lists_and_arrays_are_numpys():
    """np.take(x, []) (an empty list is NumPy's float64) was 'indices must be
    integers' where NumPy takes nothing; x[np.array([])] (an empty float array,
    NumPy's IndexError) took nothing silently."""
    np.testing.assert_array_equal(aicf.jit(lambda x: np.take(x, []))(X4), np.take(X4, []))
    np.testing.assert_array_equal(aicf.jit(lambda x: x[[]])(X4), X4[[]])
    with pytest.raises(IndexError):
        X4[np.array([])]
    with pytest.raises(CompileError, match=rf"{here(1)}: error: an index array must hold integers, got float64"):
        aicf.jit(lambda x: x[np.array([])])(X4)


@pytest.mark.parametrize("fn, words", [
    (lambda x: x.astype(np.float64, order="Q"), "order must be one of 'C', 'F', 'A' or 'K', got 'Q'"),
    (lambda x: np.astype(x, np.float64, device="gpu"), "device='gpu': NumPy's only device is 'cpu'"),
])  # fmt: skip
def test_astype_order_and_device_are_checked(fn, words):
    """NumPy raises ValueError for both; they were ignored."""
    with pytest.raises((ValueError, TypeError)):
        fn(X4)
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: 'numpy.astype' {words}"):
        aicf.jit(fn)(X4)
    np.testing.assert_array_equal(aicf.jit(lambda x: x.astype(np.float64, order="F"))(X4), X4)


@pytest.mark.parametrize("fn, words", [
    (lambda x: np.zeros_like(x, order="Q"), "'numpy.full_like' order must be one of"),
    (lambda x: np.ones_like(x, device="gpu"), "'numpy.full_like' device='gpu'"),
    (lambda x: np.einsum("i,i->", x, np.ones(4), casting="no"), "numpy.einsum: Iterator operand 0 dtype could not be cast"),
    (lambda x: np.einsum("i,i->", x, x, order="Q"), "numpy.einsum: order must be one of"),
])  # fmt: skip
def test_like_and_einsum_options_are_checked_as_numpy_checks_them(fn, words):
    """zeros_like/ones_like/full_like ignored order and device, einsum order and
    casting, where NumPy raises."""
    with pytest.raises((ValueError, TypeError)):
        fn(X4)
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: {words}"):
        aicf.jit(fn)(X4)
    np.testing.assert_array_equal(aicf.jit(lambda x: np.einsum("i,i->", x, x, casting="no"))(X4), X4 @ X4)


@pytest.mark.parametrize("fn", [
    lambda x: np.sum(x, axis=[0]),
    lambda x: np.mean(x, axis=np.array([0, 1])),
    lambda x: x.max(axis=[1]),
    lambda x: np.add.reduce(x, axis=[0]),
])  # fmt: skip
def test_a_reduction_axis_given_as_a_list_is_numpys_type_error(fn):
    """NumPy takes an int or a tuple of ints: np.sum(x, axis=[0]) raises TypeError
    there, and summed here; aicf.ops.reduce_sum takes lists, as its own API."""
    m = X4.reshape(2, 2)
    with pytest.raises(TypeError):
        fn(m)
    with pytest.raises(CompileError, match=rf"test_traced_misuse.py:\d+: error: '.*' axis must be an integer or a tuple of integers"):
        aicf.jit(fn)(m)
    np.testing.assert_array_equal(aicf.jit(lambda x: np.sum(x, axis=(0,)))(m), m.sum(axis=(0,)))


def test_a_decimal_scalar_is_a_located_error():
    """x + Decimal('1.5') is NumPy's TypeError on a float array (and exact Decimals
    on an integer one); it was an f32 1.5, as a jit argument Decimal is refused."""
    from decimal import Decimal

    with pytest.raises(TypeError):
        X4 + Decimal("1.5")
    with pytest.raises(CompileError, match=rf"{here(1)}: error: 'aicf_tensor.add' a Decimal scalar Decimal\('1.5'\) has no aicf element type"):
        aicf.jit(lambda x: x + Decimal("1.5"))(X4)


@gpu
def test_a_gpu_output_past_the_devices_memory_is_our_error():
    """On the cuda target a result larger than the device raised CuPy's own
    OutOfMemoryError from inside the call; it is aicf's OutOfMemory naming the entry
    (still a MemoryError), and the program stays usable."""
    from aicf.errors import OutOfMemory

    free, total = cp.cuda.runtime.memGetInfo()
    rows = 2 * total // (4 * 1024) + 1  # twice the device's memory in f32 rows of 1024
    f = aicf.jit(lambda x: np.broadcast_to(x + 1, (rows, 1024)), target="cuda")
    with pytest.raises(OutOfMemory, match=r"@\w+: a buffer of this call does not fit in the GPU's memory"):
        f(cp.ones(1024, cp.float32))
    g = aicf.jit(lambda x: x + 1, target="cuda")
    assert float(g(cp.ones(4, cp.float32))[0]) == 2.0
