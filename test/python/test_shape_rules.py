"""shape_rules against NumPy itself: on random shapes (0-size and 1-size dims included)
each rule gives NumPy's result shape, and fails (ShapeError) exactly where NumPy does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aicf.dialects import shape_rules as rules

DYN = rules.DYN
# Per-test settings (a profile would change other modules' hypothesis tests too).
fast = settings(max_examples=150, deadline=None)

# Small extents make equal and unequal dims, 0s and 1s all common.
dims = st.integers(0, 4)
shapes = st.lists(dims, min_size=0, max_size=4).map(tuple)


def numpy_or_error(fn):
    """NumPy's result shape, or the string 'error' where NumPy raises ValueError
    (AxisError is a ValueError)."""
    try:
        return tuple(fn())
    except ValueError:
        return "error"


def ours_or_error(fn, *args):
    try:
        return tuple(fn(*args))
    except rules.ShapeError:
        return "error"


@st.composite
def broadcastable(draw, n=2):
    """Shapes derived from one target shape by dropping leading dims and setting
    some dims to 1: always broadcast-compatible."""
    target = draw(shapes)
    out = []
    for _ in range(n):
        drop = draw(st.integers(0, len(target)))
        s = [1 if draw(st.booleans()) else d for d in target[drop:]]
        out.append(tuple(s))
    return out


def with_dynamic(draw, shape):
    """The shape with some extents made dynamic."""
    return tuple(DYN if draw(st.booleans()) else d for d in shape)


# --- broadcasting ----------------------------------------------------------------------


@fast
@given(st.one_of(broadcastable(), st.lists(shapes, min_size=1, max_size=3)))
def test_broadcast_shapes_is_numpys(shs):
    ref = numpy_or_error(lambda: np.broadcast_shapes(*shs))
    assert ours_or_error(rules.broadcast_shapes, *shs) == ref


@fast
@given(broadcastable(n=3))
def test_broadcast_of_compatible_shapes_never_fails(shs):
    assert rules.broadcast_shapes(*shs) == np.broadcast_shapes(*shs)


@fast
@given(st.data(), st.lists(shapes, min_size=2, max_size=3))
def test_broadcast_with_dynamic_dims_agrees_with_every_static_instance(data, shs):
    """Where NumPy accepts the static shapes, the dynamic version gives a shape that
    the static result fits (a `?` stays only where no static extent decides)."""
    ref = numpy_or_error(lambda: np.broadcast_shapes(*shs))
    dyn = [with_dynamic(data.draw, s) for s in shs]
    if ref == "error":
        return
    ours = rules.broadcast_shapes(*dyn)
    assert rules.compatible(ours, ref)


@fast
@given(shapes, shapes)
def test_broadcast_to_is_numpys(src, target):
    ref = numpy_or_error(lambda: np.broadcast_to(np.empty(src), target).shape)
    assert ours_or_error(rules.broadcast_to_shape, src, target) == ref


@fast
@given(broadcastable(n=1), st.lists(dims, max_size=2))
def test_broadcast_to_a_larger_shape(src, extra):
    (s,) = src
    target = (*extra, *[d if d != 1 else 3 for d in s])
    assert rules.broadcast_to_shape(s, target) == np.broadcast_to(np.empty(s), target).shape


# --- reductions ------------------------------------------------------------------------


@st.composite
def reduction(draw):
    shape = draw(shapes)
    r = len(shape)
    # Axes in [-r-1, r]: mostly valid, sometimes out of range or repeated, so that the
    # errors are compared too.
    axes = draw(st.lists(st.integers(-r - 1, r), max_size=r + 1))
    return shape, axes, draw(st.booleans())


@fast
@given(reduction())
def test_reduce_shape_is_numpys(case):
    shape, axes, keepdims = case
    ref = numpy_or_error(
        lambda: np.sum(np.empty(shape), axis=tuple(axes), keepdims=keepdims).shape
    )
    assert ours_or_error(rules.reduce_shape, shape, axes, keepdims) == ref


@fast
@given(st.data(), reduction())
def test_reduce_shape_with_dynamic_dims(data, case):
    shape, axes, keepdims = case
    ref = numpy_or_error(
        lambda: np.sum(np.empty(shape), axis=tuple(axes), keepdims=keepdims).shape
    )
    dyn = with_dynamic(data.draw, shape)
    ours = ours_or_error(rules.reduce_shape, dyn, axes, keepdims)
    if ref == "error":
        assert ours == "error"  # axis errors depend on the rank only
    else:
        assert rules.compatible(ours, ref)


def test_reduce_all_axes_of_a_matrix():
    x = np.empty((3, 0))
    assert rules.reduce_shape((3, 0), [0, 1], False) == np.max(x, axis=(0, 1), initial=0).shape
    assert rules.reduce_shape((3, 0), [-1, -2], True) == (1, 1)


# --- matmul ----------------------------------------------------------------------------


@st.composite
def matmul_operands(draw):
    """Mostly contractible operands (batch dims broadcastable), sometimes arbitrary."""
    if draw(st.integers(0, 3)) == 0:
        return draw(shapes), draw(shapes)
    m, k, n = draw(dims), draw(dims), draw(dims)
    batch_a, batch_b = draw(broadcastable())
    a = (k,) if draw(st.integers(0, 3)) == 0 else (*batch_a, m, k)
    b = (k,) if draw(st.integers(0, 3)) == 0 else (*batch_b, k, n)
    return a, b


@fast
@given(matmul_operands(), st.randoms(use_true_random=False))
def test_matmul_shape_is_numpys(operands, rnd):
    a, b = operands
    rng = np.random.default_rng(rnd.getrandbits(32))
    ref = numpy_or_error(
        lambda: np.matmul(rng.standard_normal(a), rng.standard_normal(b)).shape
    )
    assert ours_or_error(rules.matmul_shape, a, b) == ref


@fast
@given(st.data(), matmul_operands())
def test_matmul_with_dynamic_dims(data, operands):
    a, b = operands
    ref = numpy_or_error(lambda: np.matmul(np.zeros(a), np.zeros(b)).shape)
    if ref == "error":
        return
    ours = rules.matmul_shape(with_dynamic(data.draw, a), with_dynamic(data.draw, b))
    assert rules.compatible(ours, ref)


# --- reshape and transpose ---------------------------------------------------------------


@st.composite
def reshape_case(draw):
    shape = draw(shapes)
    n = int(np.prod(shape))
    if draw(st.booleans()):
        # A factorisation of the element count, one extent maybe replaced by -1.
        new, rest = [], n
        for _ in range(draw(st.integers(0, 3))):
            f = draw(st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0] or [0]))
            new.append(f)
            rest = rest // f if f else 0
        new.append(rest)
        if draw(st.booleans()):
            new[draw(st.integers(0, len(new) - 1))] = -1
        new = draw(st.permutations(new))
    else:
        new = draw(st.lists(st.integers(-1, 6), max_size=4))
    return shape, list(new)


@fast
@given(reshape_case())
def test_reshape_shape_is_numpys(case):
    shape, new = case
    ref = numpy_or_error(lambda: np.empty(shape).reshape(new).shape)
    assert ours_or_error(rules.reshape_shape, shape, new) == ref


def test_reshape_rejects_negative_extents_other_than_minus_one():
    # NumPy takes any negative extent as "unknown"; the IR only spells it -1.
    with pytest.raises(rules.ShapeError):
        rules.reshape_shape((2, 3), [-2, 3])


@fast
@given(shapes, st.data())
def test_transpose_shape_is_numpys(shape, data):
    r = len(shape)
    if data.draw(st.booleans()):
        perm = data.draw(st.permutations(range(r)))
    else:
        perm = data.draw(st.lists(st.integers(0, r), max_size=r + 1))
    ref = numpy_or_error(lambda: np.transpose(np.empty(shape), perm).shape)
    assert ours_or_error(rules.transpose_shape, shape, perm) == ref


def test_transpose_negative_axes_are_not_a_permutation():
    # NumPy allows perm=(-1, 0); the IR's perm is a permutation of 0..rank-1.
    assert np.transpose(np.empty((2, 3)), (-1, 0)).shape == (3, 2)
    with pytest.raises(rules.ShapeError):
        rules.transpose_shape((2, 3), (-1, 0))


# --- dtypes -----------------------------------------------------------------------------


@fast
@given(st.sampled_from(["f16", "f32", "f64"]), st.sampled_from(["f16", "f32", "f64"]))
def test_float_promotion_is_numpys(a, b):
    np_name = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
    ref = np.result_type(np_name[a], np_name[b])
    assert np_name[rules.promote_dtypes(a, b)] == ref


def test_documented_promotion_rules():
    # A float beats an integer (so f16 programs stay f16: NumPy would give f64 for
    # f16 + i32); f16 with bf16 gives f32; promotion is symmetric.
    assert rules.promote_dtypes("i32", "f16") == "f16"
    assert rules.promote_dtypes("f16", "bf16") == rules.promote_dtypes("bf16", "f16") == "f32"
    assert rules.promote_dtypes("bf16", "f32") == "f32"
    assert rules.promote_dtypes("i32", "i32") == "i32"


def test_errors_name_the_shapes():
    with pytest.raises(rules.ShapeError, match=r"4x8, 3 .*not broadcast-compatible"):
        rules.broadcast_shapes((4, 8), (3,))
    with pytest.raises(rules.ShapeError, match=r"2x3 @ 4x5"):
        rules.matmul_shape((2, 3), (4, 5))
    with pytest.raises(rules.ShapeError, match=r"axis 2 .* rank 2"):
        rules.reduce_shape((2, 3), [2], False)
