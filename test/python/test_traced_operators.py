"""Python's operators and NumPy's ufuncs on traced tensors beyond + - * / @: floor
division and remainder (NumPy's sign conventions), bitwise and logical ops, ~, unary
minus and abs on bools, and Python scalars on either side of a comparison. Each
either has NumPy's meaning, checked against NumPy on the cpu target, or is an aicf
error naming the operator and the user's line (never a raw TypeError)."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from trace_support import line_of

import aicf


def run(fn, *args):
    return aicf.jit(fn, target="cpu")(*args)


def numpy(fn, *args):
    with warnings.catch_warnings():  # NumPy warns of x // 0 and MIN // -1
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args)


def int_operands(dtype):
    """Every sign combination, division by 0 and by -1, and MIN // -1 (which wraps)."""
    lo = np.iinfo(dtype).min
    x = np.array([7, -7, 7, -7, 6, -6, 0, 5, -5, lo, lo, lo, 1, np.iinfo(dtype).max], dtype)
    y = np.array([2, 2, -2, -2, 3, 3, 3, 0, 0, -1, 1, 7, 1, -3], dtype)
    return x, y


def check(out, ref):
    out, ref = np.asarray(out), np.asarray(ref)
    assert out.dtype == ref.dtype and out.shape == ref.shape
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "fn",
    [
        operator.floordiv, operator.mod, np.floor_divide, np.remainder, np.mod, np.fmod,
        lambda x, y: divmod(x, y), np.divmod,
        lambda x, y: x // 3, lambda x, y: x % -3, lambda x, y: -7 // y, lambda x, y: 7 % y,
    ],
    ids=["//", "%", "floor_divide", "remainder", "mod", "fmod", "divmod", "np.divmod",
         "x//3", "x%-3", "-7//y", "7%y"],
)  # fmt: skip
def test_integer_floor_division_and_remainder_match_numpy(fn, dtype):
    x, y = int_operands(dtype)
    out = run(fn, x, y)
    ref = numpy(fn, x, y)
    if isinstance(ref, tuple):
        for o, r in zip(out, ref, strict=True):
            check(o, r)
    else:
        check(out, ref)


def test_floor_division_broadcasts_mixed_integer_widths():
    x = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    y = np.array([-4, -3, 3, 5], np.int64)
    check(run(operator.floordiv, x, y), x // y)
    check(run(operator.mod, x, y), x % y)


BOOLS = np.array([True, True, False, False]), np.array([True, False, True, False])


@pytest.mark.parametrize(
    "fn",
    [
        operator.and_, operator.or_, operator.xor, np.bitwise_and, np.bitwise_or,
        np.bitwise_xor, np.logical_and, np.logical_or, np.logical_xor,
        lambda x, y: ~x, lambda x, y: np.invert(y), lambda x, y: np.logical_not(x),
        lambda x, y: np.bitwise_not(x), lambda x, y: abs(x), lambda x, y: x & True,
        lambda x, y: False | y,
    ],
    ids=["&", "|", "^", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
         "logical_or", "logical_xor", "~", "invert", "logical_not", "bitwise_not", "abs",
         "x&True", "False|y"],
)  # fmt: skip
def test_bool_bitwise_and_logical_ops_match_numpy(fn):
    check(run(fn, *BOOLS), fn(*BOOLS))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("fn", [np.logical_and, np.logical_or, np.logical_xor])
def test_logical_ops_take_nonzero_as_true(fn, dtype):
    x = np.array([0, 1, -2, 0, 3], dtype)
    y = np.array([0, 0, 5, 7, -1], dtype)
    if dtype == np.float32:
        x[3], y[4] = np.nan, -0.0  # NaN is true, -0.0 false
    check(run(fn, x, y), fn(x, y))
    check(run(np.logical_not, x), np.logical_not(x))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_invert_is_twos_complement(dtype):
    x = np.array([0, 5, -1, -6, np.iinfo(dtype).min, np.iinfo(dtype).max], dtype)
    check(run(operator.invert, x), ~x)
    check(run(np.invert, x), np.invert(x))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_pow_abs_and_negation_match_numpy(dtype):
    x = np.array([2, -3, 5, -1, 0], dtype)
    y = np.array([3, 2, 0, 7, 2], dtype)
    check(run(operator.pow, x, y), x**y)
    check(run(abs, x), abs(x))
    check(run(operator.neg, x), -x)


INT_SCALARS = [
    lambda x: 2 < x, lambda x: 2 <= x, lambda x: 2 > x, lambda x: 2 >= x, lambda x: 2 == x,
    lambda x: 2 != x, lambda x: 0 == x, lambda x: 1 == x, lambda x: x == True,  # noqa: E712
]  # fmt: skip
FLOAT_SCALARS = [lambda x: 0.5 < x, lambda x: np.float64(0.5) > x, lambda x: 2.0 == x]


@pytest.mark.parametrize(
    "fn, dtype",
    [(fn, dtype) for fn in INT_SCALARS for dtype in (np.float32, np.int32, np.bool_)]
    + [(fn, dtype) for fn in FLOAT_SCALARS for dtype in (np.float32, np.bool_)],
)
def test_python_scalars_on_either_side_of_a_comparison(fn, dtype):
    """(A float scalar beside an int tensor is an error, tested below.)"""
    x = np.array([-3, 0, 1, 2, 5], dtype)
    check(run(fn, x), fn(x))


def test_bool_tensor_plus_an_int_is_integer():
    """A weak int beside a bool tensor stays an int (NumPy and JAX promote), rather
    than becoming a bool and the addition an i1 error."""
    x = np.array([True, False])
    out = run(lambda x: x + 2, x)
    np.testing.assert_array_equal(out, [3, 2])
    assert np.asarray(out).dtype.kind == "i"


def _error_of(fn, *args) -> str:
    with pytest.raises(aicf.CompileError) as err:
        aicf.jit(fn, target="cpu")(*args)
    return str(err.value)


F = np.ones(4, np.float32)
I = np.ones(4, np.int32)  # noqa: E741
B = np.ones(4, bool)


@pytest.mark.parametrize(
    "marker, body, args, words",
    [
        ("E-BOOLFLOOR", lambda x: x // x, (B,), "numpy.floor_divide (//) of bool tensors is not defined"),  # E-BOOLFLOOR
        ("E-BOOLMOD", lambda x: np.mod(x, x), (B,), "numpy.remainder (%) of bool tensors is not defined"),  # E-BOOLMOD
        ("E-FAND", lambda x: x & x, (F,), "numpy.bitwise_and (&) is not defined on f32 tensors"),  # E-FAND
        ("E-FINV", lambda x: ~x, (F,), "numpy.invert (~) is not defined on f32 tensors"),  # E-FINV
        ("E-IAND", lambda x: x & 3, (I,), "numpy.bitwise_and (&) of i32 tensors is not supported yet"),  # E-IAND
        ("E-IOR", lambda x: np.bitwise_or(x, x), (I,), "numpy.bitwise_or (|) of i32 tensors is not"),  # E-IOR
        ("E-IXOR", lambda x: 1 ^ x, (I,), "numpy.bitwise_xor (^) of i32 tensors is not"),  # E-IXOR
        ("E-SHL", lambda x: x << 2, (I,), "numpy.left_shift (<<) of i32 tensors is not supported yet"),  # E-SHL
        ("E-SHR", lambda x: 8 >> x, (I,), "numpy.right_shift (>>) of i32 tensors is not supported"),  # E-SHR
        ("E-BSHL", lambda x: x << x, (B,), "numpy.left_shift (<<) of bool tensors is not supported"),  # E-BSHL
        ("E-FSHL", lambda x: x >> 1, (F,), "numpy.right_shift (>>) is not defined on f32 tensors"),  # E-FSHL
        ("E-BOOLNEG", lambda x: -x, (B,), "numpy.negative (-x) of a bool tensor is not defined"),  # E-BOOLNEG
        ("E-NPBOOLNEG", lambda x: np.negative(x), (B,), "numpy.negative (-x) of a bool"),  # E-NPBOOLNEG
    ],
)  # fmt: skip
def test_operators_without_an_aicf_meaning_name_the_operator_and_the_line(marker, body, args, words):
    msg = _error_of(body, *args)
    assert msg.startswith(f"{__file__}:{line_of(__file__, marker)}: error: "), msg
    assert words in msg, msg


@pytest.mark.parametrize("name", ["mod", "alloc", "divsi32", "expf", "f32_to_bf16"])
def test_a_function_may_share_its_name_with_a_helper_of_the_c_prelude(name):
    """A traced function's C symbol is aicf_<name>: `operator.mod` (named "mod") once
    collided with the prelude's aicf_mod and the C compiler failed."""

    def fn(x):
        return x * 2

    fn.__name__ = fn.__qualname__ = name
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(fn, x), x * 2)
