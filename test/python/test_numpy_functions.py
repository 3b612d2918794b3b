"""NumPy functions built from aicf's operators (layout: flip, roll, tile, repeat, pad,
diff, diagonal/diag/trace; contractions: tensordot, inner, outer; statistics: average,
ptp, count_nonzero, prod, min, cumsum, cumprod; predicates: any, all, isclose; round, fix, nan_to_num), on both
targets, against NumPy on the same inputs: values, dtypes and shapes."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from gpu_support import cp, gpu

import aicf

rng = np.random.default_rng(0)
x = rng.standard_normal((3, 4, 5)).astype(np.float32)
m = rng.standard_normal((4, 6)).astype(np.float32)
v = rng.standard_normal(5).astype(np.float32)
i = np.arange(12, dtype=np.int32).reshape(3, 4)
b = x > 0
s = np.array([[0.5, 1.5, 2.5, -0.5, np.nan], [np.inf, -np.inf, 0, -0.0, 1.23456]], np.float32)
y = np.array([[0.5, 1.5, 2.6, -0.5, np.nan], [np.inf, np.inf, 1e-9, 0.0, 1.23457]], np.float32)
w6 = np.abs(rng.standard_normal(6)).astype(np.float32)
CASES = [("flip",lambda a: np.flip(a),[x]),("flip1",lambda a: np.flip(a,1),[x]),("flip02",lambda a: np.flip(a,(0,2)),[x]),("flipud",lambda a: np.flipud(a),[m]),("fliplr",lambda a: np.fliplr(a),[m]),
("roll",lambda a: np.roll(a,2),[x]),("roll1",lambda a: np.roll(a,-3,axis=1),[x]),("roll2",lambda a: np.roll(a,(1,7),axis=(0,2)),[x]),("rollbig",lambda a: np.roll(a,23,axis=2),[x]),
("tile",lambda a: np.tile(a,2),[v]),("tile2",lambda a: np.tile(a,(2,1,3)),[m]),("tile3",lambda a: np.tile(a,(2,)),[m]),
("rep",lambda a: np.repeat(a,3),[m]),("rep1",lambda a: np.repeat(a,2,axis=1),[m]),("repv",lambda a: np.repeat(a,[1,0,2,3],axis=0),[m]),
("padc",lambda a: np.pad(a,1),[m]),("padc2",lambda a: np.pad(a,((1,2),(0,3)),constant_values=-1.5),[m]),("pade",lambda a: np.pad(a,(2,1),mode="edge"),[m]),
("padr",lambda a: np.pad(a,((3,2),(1,4)),mode="reflect"),[m]),("pads",lambda a: np.pad(a,((4,2),(1,6)),mode="symmetric"),[m]),("padw",lambda a: np.pad(a,((1,4),(6,2)),mode="wrap"),[m]),
("padi",lambda a: np.pad(a,1),[i]),("padb",lambda a: np.pad(a,1),[b]),
("diff",lambda a: np.diff(a),[x]),("diff2",lambda a: np.diff(a,2,axis=0),[m]),("diffb",lambda a: np.diff(a),[b]),("diffi",lambda a: np.diff(a,axis=0),[i]),
("diag",lambda a: np.diag(a),[m]),("diagk",lambda a: np.diag(a,2),[m]),("diagk-",lambda a: np.diag(a,-1),[m]),("diagk9",lambda a: np.diag(a,9),[m]),("diagv",lambda a: np.diag(a),[v]),("diagv2",lambda a: np.diag(a,2),[v]),("diagv-",lambda a: np.diag(a,-3),[v]),
("diagonal3",lambda a: np.diagonal(a,1,0,2),[x]),("diagm",lambda a: a.diagonal() if hasattr(a,'diagonal') else np.diagonal(a),[m]),
("trace",lambda a: np.trace(a),[m]),("tracei",lambda a: np.trace(a),[i]),("trace3",lambda a: np.trace(a,axis1=1,axis2=2),[x]),
("td",lambda a,c: np.tensordot(a,c,axes=([1,2],[0,1])),[x, rng.standard_normal((4, 5, 2)).astype(np.float32)]),("td1",lambda a,c: np.tensordot(a,c,1),[m,rng.standard_normal((6,3)).astype(np.float32)]),("td0",lambda a,c: np.tensordot(a,c,0),[v,v]),
("inner",lambda a,c: np.inner(a,c),[m,rng.standard_normal((2,6)).astype(np.float32)]),("innerv",lambda a,c: np.inner(a,c),[v,v]),
("avg",lambda a: np.average(a),[x]),("avgw",lambda a,w: np.average(a,axis=1,weights=w),[m,np.abs(v[:4]) if False else np.abs(rng.standard_normal(6)).astype(np.float32)]),("avgi",lambda a: np.average(a,axis=0),[i]),
("avgr",lambda a,w: np.average(a,axis=1,weights=w,returned=True),[m,np.abs(rng.standard_normal(6)).astype(np.float32)]),
("ptp",lambda a: np.ptp(a,axis=1),[x]),("copy",lambda a: np.copy(a)+1,[x]),
("a1",lambda a: np.atleast_2d(a),[v]),("a3",lambda a: np.atleast_3d(a),[m]),("a3v",lambda a: np.atleast_3d(a),[v]),
("cs",lambda a,c: np.column_stack([a,c]),[v,v]),("cs2",lambda a,c: np.column_stack((a,c)),[m[:, :2],m[:, 0]]),("ds",lambda a,c: np.dstack([a,c]),[m,m]),
]
CASES += [("any",lambda a: np.any(a>1), [s]),("any1",lambda a: np.any(a>1, axis=1), [s]),("all",lambda a: np.all(a>-1,axis=0,keepdims=True),[s]),
("anym",lambda a: (a>0).any(axis=-1),[s]),("allm",lambda a: a.all(),[s]),("cnt",lambda a: np.count_nonzero(a),[s]),("cnt1",lambda a: np.count_nonzero(a,axis=1),[s]),
("round",lambda a: np.round(a),[s]),("round2",lambda a: np.round(a,2),[s]),("round-1",lambda a: np.round(a*100,-1),[s]),("roundm",lambda a: a.round(1),[s]),("around",lambda a: np.around(a),[s]),
("fix",lambda a: np.fix(a),[s]),("n2n",lambda a: np.nan_to_num(a),[s]),("n2n2",lambda a: np.nan_to_num(a, nan=-1.0, posinf=9.0),[s]),
("isclose",lambda a,c: np.isclose(a,c),[s,y]),("isclose_nan",lambda a,c: np.isclose(a,c,equal_nan=True),[s,y]),("isclose_tol",lambda a,c: np.isclose(a,c,rtol=0.1,atol=0.01),[s,y]),
("outer",lambda a,c: np.outer(a,c),[s[0],y[1]]),("outer2d",lambda a,c: np.outer(a,c),[s,y]),
("anyint",lambda a: np.any(a), [np.array([0,0,3],np.int32)]),("roundint",lambda a: np.round(a), [np.array([1,2],np.int32)]),
("n2n16",lambda a: np.nan_to_num(a),[s.astype(np.float16)]),
]

_logp = np.log(np.abs(rng.standard_normal((8, 10)))).astype(np.float32)
CASES += [
    ("take_along_axis", lambda a, i: np.take_along_axis(a, i, 1), [x, rng.integers(-4, 4, (3, 7, 5))]),
    ("take_along_axis_bcast", lambda a, i: np.take_along_axis(a, i, 2), [x, rng.integers(0, 5, (1, 4, 2)).astype(np.int32)]),
    ("take_along_axis_none", lambda a, i: np.take_along_axis(a, i, None), [v, np.array([4, 0, 3])]),
    ("cross_entropy", lambda lp, y: -np.mean(np.take_along_axis(lp, y[:, None], axis=1)), [_logp, rng.integers(0, 10, 8)]),
    ("methods", lambda a: (a.diagonal(1), a.trace(), a.repeat(2, axis=0), a.round(1), (a > 0).any(0)), [m]),
]

# products and minima: reduce_prod and reduce_min (NumPy's dtypes: int32 and bool
# products are int64; an empty product is 1), NaN, infinities, zeros and INT_MIN
_big = np.array([[-2**31, 7, 2**31 - 1], [3, -5, 2**16]], np.int32)
CASES += [
    ("prod", lambda a: np.prod(a, axis=1), [x]), ("prod_all", lambda a: np.prod(a), [v]),
    ("prod_keep", lambda a: np.prod(a, axis=(0, 2), keepdims=True), [x[:, :, :2]]),
    ("prod_s", lambda a: np.prod(a, axis=1), [s]), ("prod_int", lambda a: np.prod(a + 1, axis=1), [i]),
    ("prod_int_wraps", lambda a: a.prod(axis=1), [_big.astype(np.int64)]), ("prod_i32", lambda a: a.prod(0), [_big]),
    ("prod_bool", lambda a: np.prod(a, axis=-1), [b]), ("prod_empty", lambda a: np.prod(a, axis=0), [np.zeros((0, 3), np.float32)]),
    ("prod_f16", lambda a: np.prod(a, axis=-1), [(1 + x / 8).astype(np.float16)]),
    ("min", lambda a: np.min(a, axis=1), [s]), ("min_int", lambda a: a.min(axis=1), [_big]), ("min_bool", lambda a: np.min(a, 0), [b]),
    # np._NoValue is NumPy's own "not given" (wrappers pass their defaults through)
    ("min_novalue", lambda a: np.min(a, 1, initial=np._NoValue, where=np._NoValue) + np.sum(a, initial=np._NoValue), [x]),
    ("min_all", lambda a: np.amin(a), [x]), ("min_rows", lambda a: a - a.min(-1, keepdims=True) * a.prod(-1, keepdims=True), [x]),
]
# running sums and products: cumsum and cumprod (flattened without an axis; bools and
# int32 as int64); the position ids of a padded batch, as HF models compute them
_mask = np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 0, 1]], np.int64)
CASES += [
    ("cumsum", lambda a: np.cumsum(a), [x]), ("cumsum1", lambda a: np.cumsum(a, axis=1), [x]),
    ("cumsum_m", lambda a: a.cumsum(-1) + a.cumsum(0), [m]), ("cumprod", lambda a: np.cumprod(1 + a / 4, axis=2), [x]),
    ("cumsum_s", lambda a: np.cumsum(a, 1), [s]), ("cumprod_s", lambda a: np.cumprod(a, 1), [s]),
    ("cumsum_i", lambda a: np.cumsum(a, 0), [i]), ("cumprod_i", lambda a: a.cumprod(1), [_big]), ("cumsum_b", lambda a: np.cumsum(a), [b]),
    ("positions", lambda k: np.where(k == 0, 1, np.cumsum(k, -1) - 1), [_mask]),
    ("cumsum_empty", lambda a: np.cumsum(a, 0), [np.zeros((0, 3), np.float32)]),
    # axis 0 and -1 of a 0-d array are no axis to NumPy (they were "out of range")
    ("axis0_of_0d", lambda a: (np.min(a, axis=0), np.prod(a, axis=-1), np.sum(a, 0), np.cumsum(a, axis=0)),
     [np.float32(2.5) * np.ones((), np.float32)]), ("cumsum_0d", lambda a: np.cumsum(a), [np.float32(2.5) * np.ones((), np.float32)]),
]

# sums over many elements, whose rounding NumPy's sequential f32 order shows (the cpu
# target adds f32 in f64): against the float64 sums, within eps per summed magnitude
_LONG_SUMS = {"cumsum": (None,), "cumsum1": (1,)}


def _run(f, args, target):
    if target == "cpu":
        return aicf.jit(f)(*args)
    out = aicf.jit(f, target="cuda")(*[cp.asarray(a) for a in args])
    return tuple(cp.asnumpy(o) for o in out) if isinstance(out, tuple) else cp.asnumpy(out)


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=gpu)])
@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, f, args, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = f(*args)
    out = _run(f, args, target)
    refs, outs = (ref, out) if isinstance(ref, tuple) else ((ref,), (out,))
    assert len(outs) == len(refs)
    for r, o in zip(refs, outs):
        r, o = np.asarray(r), np.asarray(o)
        assert (o.dtype, o.shape) == (r.dtype, r.shape), name
        if r.dtype.kind == "f" and name in _LONG_SUMS:
            exact = f(*(a.astype(np.float64) if a.dtype == np.float32 else a for a in args))
            tol = np.finfo(r.dtype).eps * np.cumsum(np.abs(args[0].astype(np.float64)), *_LONG_SUMS[name])
            assert np.all(np.abs(o - exact) <= tol), name  # NumPy's f32 sums are further off
        elif r.dtype.kind == "f":
            np.testing.assert_allclose(o, r, rtol=2e-6, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(o, r, err_msg=name)


@pytest.mark.parametrize("f, words", [
    (lambda a: np.pad(a, 1, mode="median"), "numpy.pad: mode='median' is not supported"),
    (lambda a: np.pad(a, ((5, 0), (0, 0)), mode="reflect"), "numpy.pad: mode='reflect' pads of 5 on an axis of 4"),
    (lambda a: np.repeat(a, [1, 2]), "numpy.repeat: repeats must be an integer or 24 integers"),
    (lambda a: np.tensordot(a, a, ([0], [0, 1])), "numpy.tensordot: 1 axes of a against 2 of b"),
    (lambda a: np.diagonal(a, 0, 1, -1), "numpy.diagonal: axis1 and axis2 cannot be the same"),
    (lambda a: np.round(a.astype(np.int32), -1), "numpy.round: integers to decimals=-1"),
    # NumPy's errors: they were accepted (diff returned x, flip flipped once), or raised
    # a raw MemoryError building 2**35 indices
    (lambda a: np.diff(a, -1), "numpy.diff: order must be non-negative but got -1"),
    (lambda a: np.flip(a, (0, 0)), r"numpy.flip: repeated axis in \(0, 0\)"),
    (lambda a: np.repeat(a, 2**33), "numpy.repeat: 206158430208 repeated elements along an axis"),
    (lambda a: np.take_along_axis(a, np.full((4, 2), 6), 1), "numpy.take_along_axis: index 6 is out of bounds for axis 1 with size 6"),
])  # fmt: skip
def test_what_is_not_supported_is_a_located_error(f, words):
    with pytest.raises(aicf.CompileError, match=rf"test_numpy_functions.py:\d+: error: {words}"):
        aicf.jit(f)(m)


_EMPTY = np.zeros((0, 3), np.float32)


@pytest.mark.parametrize("name, f", [
    ("any", lambda a: np.any(a)), ("all0", lambda a: np.all(a, axis=0)), ("any_keep", lambda a: np.any(a > 0, 0, keepdims=True)),
    ("norm_inf", lambda a: np.linalg.norm(a, np.inf, axis=0)), ("norm_matrix_inf", lambda a: np.linalg.norm(a, np.inf)),
    ("norm_2", lambda a: np.linalg.norm(a, axis=0)), ("round_400", lambda a: np.round(a + 1.5, 400)),
])  # fmt: skip
def test_empty_axes_and_extreme_decimals_match_numpy(name, f):
    """any/all over an empty axis (False/True) and NumPy's inf norms of empty axes (0)
    were refused as "a reduction with no identity (NumPy raises here too)"; round to
    400 decimals raised a raw OverflowError (NumPy's result is NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = f(_EMPTY) if not name.startswith("round") else f(m)
    out = aicf.jit(f)(_EMPTY if not name.startswith("round") else m)
    assert (out.dtype, out.shape) == (np.asarray(ref).dtype, np.shape(ref))
    np.testing.assert_array_equal(out, ref)


_DIVMOD_VALUES = np.array([0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 2.5, -2.5, 7.0, -7.0, 1e30, -1e30,
                           np.inf, -np.inf, np.nan, 3.0, 1e-30, 0.3])  # fmt: skip


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=gpu)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_float_floor_division_and_remainders_are_numpys_bit_for_bit(dtype, target):
    """x // y, x % y, np.fmod and np.divmod of floats were refused ("no floating-point
    remainder operator"); they are NumPy's npy_divmod on an exact fmod: 1 // 0.1 is 9,
    zeros keep NumPy's signs, x % 0 is NaN, x // 0 is x / 0."""
    a, b = (v.ravel().astype(dtype) for v in np.meshgrid(_DIVMOD_VALUES, _DIVMOD_VALUES))

    def f(x, y):
        return x // y, x % y, np.fmod(x, y), *np.divmod(x, y), x % 1.0 + x // 0.25

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refs = f(a, b)
    for out, ref in zip(_run(f, [a, b], target), refs):
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)
        np.testing.assert_array_equal(np.signbit(out[ref == 0]), np.signbit(ref[ref == 0]))


@pytest.mark.parametrize("weights", [None, np.ones(5000, np.float32)])
def test_average_of_bools_is_f64(weights):
    """np.average of a mask (an accuracy) is f64 in NumPy; aicf computed it in the bool's
    f16 (0.6963 for 0.6965, a weighted one f32)."""
    mask = np.random.default_rng(5).random(5000) > 0.3
    ref = np.average(mask, weights=weights)
    out = aicf.jit(lambda a, w: np.average(a, weights=w))(mask, weights) if weights is not None else aicf.jit(lambda a: np.average(a))(mask)
    assert out.dtype == ref.dtype == np.float64
    np.testing.assert_allclose(out, ref, rtol=1e-12)


@pytest.mark.parametrize("kw", [{"rtol": np.nan}, {"atol": np.inf}, {"atol": np.nan, "equal_nan": True}])
def test_isclose_is_numpys_formula_at_any_tolerance(kw):
    """Equal values are close under rtol=nan, and inf is close to a finite value with
    atol=inf, in NumPy (|a - b| <= tol and b finite, or a == b); aicf took the
    tolerance only for two finite values (all False for rtol=nan)."""
    a = np.array([1.0, np.inf, -np.inf, np.nan, 2.0, 0.0], np.float32)
    b = np.array([1.0, 3.0, -np.inf, np.nan, 2.5, -0.0], np.float32)
    out = aicf.jit(lambda x, y: np.isclose(x, y, **kw))(a, b)
    np.testing.assert_array_equal(out, np.isclose(a, b, **kw))


@pytest.mark.parametrize("x_dtype, w_dtype", [(np.float32, np.float16), (np.int32, np.float32), (np.bool_, np.float16)])
def test_average_sums_weights_in_the_result_dtype(x_dtype, w_dtype):
    """NumPy's average sums the weights in the result's dtype (f32 for f32 values and f16
    weights, f64 for integer values); aicf summed them in the weights' own dtype, which
    lost digits where the weights cancel (3.10841 for 3.10910)."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 40)) * 10).astype(x_dtype)
    w = rng.standard_normal(40).astype(w_dtype)
    ref = np.average(a, axis=-1, weights=w)
    out = aicf.jit(lambda a, w: np.average(a, axis=-1, weights=w))(a, w)
    assert out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=1e-12 if ref.dtype == np.float64 else 2e-6)


@pytest.mark.parametrize("traced", [False, True])
def test_take_clip_mode_clamps_negative_indices_to_zero(traced):
    """np.take(..., mode='clip') clamps a negative index to 0 (NumPy: clip mode
    "disables indexing with negative numbers"); aicf counted it from the end."""
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([-1, -7, 2, 100])
    ref = np.take(a, idx, axis=1, mode="clip")
    if traced:
        out = aicf.jit(lambda a, i: np.take(a, i, axis=1, mode="clip"))(a, idx)
    else:
        out = aicf.jit(lambda a: np.take(a, [-1, -7, 2, 100], axis=1, mode="clip"))(a)
    np.testing.assert_array_equal(out, ref)


def test_take_along_axis_default_axis():
    """NumPy 2's take_along_axis has axis=-1 by default; aicf's required it (a raw
    TypeError from a lambda)."""
    a = np.random.default_rng(3).standard_normal((3, 5))
    i = np.argsort(a)
    np.testing.assert_array_equal(aicf.jit(lambda a, i: np.take_along_axis(a, i))(a, i), np.take_along_axis(a, i))


def test_round_of_bools_is_f16():
    """np.round of a bool array is f16 in NumPy (its rint loop for bools); aicf returned
    the bools. np.round(bools, 1) raises in NumPy: a located error here."""
    b = np.array([True, False, True])
    ref = np.round(b)
    out = aicf.jit(lambda b: np.round(b))(b)
    assert out.dtype == ref.dtype == np.float16
    np.testing.assert_array_equal(out, ref)
    with pytest.raises(aicf.CompileError, match="test_numpy_functions.py"):
        aicf.jit(lambda b: np.round(b, 1))(b)


def test_float_power_with_a_closed_over_array():
    """np.float_power(array, tensor) (a closed-over NumPy array on either side) raised
    a raw TypeError (float() of the array); it is f64 beside the tensor, as NumPy's."""
    c = np.array([0.5, -2.0, 3.0])
    x = np.array([1.0, 2.0, 3.0], np.float32)
    out = aicf.jit(lambda a: (np.float_power(c, a), np.float_power(a, c)))(x)
    for o, r in zip(out, (np.float_power(c, x), np.float_power(x, c))):
        assert o.dtype == r.dtype == np.float64
        np.testing.assert_allclose(o, r, rtol=1e-15)


def test_roll_shifts_and_axes_of_different_lengths_is_located():
    """np.roll(x, (1, 2, 3), (0, 1)) raised NumPy's raw broadcast ValueError."""
    with pytest.raises(aicf.CompileError, match=r"test_numpy_functions.py.*numpy.roll: 3 shifts for 2 axes"):
        aicf.jit(lambda a: np.roll(a, (1, 2, 3), (0, 1)))(np.zeros((3, 4)))


def test_bf16_compositions_without_ml_dtypes(monkeypatch):
    """A cast to a traced bf16 tensor's dtype (x.astype(y.dtype), and hypot/logaddexp of
    bf16, which compute in f32 and cast back) asked NumPy for the bf16 dtype and raised
    "bf16 has no NumPy dtype without the ml_dtypes package"; bf16 bits (uint16) work
    without it everywhere else."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes raises ImportError
    bits = lambda v: (np.array(v, np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact in bf16
    a, b = bits([3.0, 0.0, -1.5]), bits([4.0, -2.0, 2.0])
    out = aicf.jit(lambda x, y: (np.hypot(x, y), (x * 2).astype(y.dtype)))(a, b)
    np.testing.assert_array_equal(out[0], bits(np.hypot([3.0, 0.0, -1.5], [4.0, -2.0, 2.0])))
    np.testing.assert_array_equal(out[1], bits([6.0, 0.0, -3.0]))


def test_stack_types_a_closed_over_array_beside_the_tensors():
    """np.stack([c, x]) of a closed-over float64 array and an f64 tensor: the array was
    converted alone (f32, the default for a float64 array meeting no tensor) and the
    concatenate refused f32 beside f64; np.concatenate([c, x]) worked."""
    c = np.array([0.1, -2.0, 3.0])
    x = np.array([1.0, 2.0, 1e-300])
    out = aicf.jit(lambda a: np.stack([c, a], axis=-1))(x)
    ref = np.stack([c, x], axis=-1)
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)


def test_a_folded_cumsum_keeps_the_ops_zero_sign():
    """cumsum of a constant is folded by the interpreter; it gave NumPy's -0.0 for a
    prefix of -0.0 where the compiled fold (from +0.0) gives +0.0 (attack40)."""
    t = "tensor<4xf32>"
    body = f"%s = aicf_tensor.cumsum %c axis = 0 : ({t}) -> {t}\n  func.return %s : {t}\n}}"
    folded = aicf.compile(f"func.func @f() -> {t} {{\n  %c = aicf_tensor.constant "
                          f"dense<[-0.0, -0.0, 0.0, -1.0]> : {t}\n  {body}", target="cpu")
    compiled = aicf.compile(f"func.func @f(%c: {t}) -> {t} {{\n  {body}", target="cpu")
    z = np.array([-0.0, -0.0, 0.0, -1.0], np.float32)
    assert np.array_equal(np.signbit(folded()), np.signbit(compiled(z))), (folded(), compiled(z))
