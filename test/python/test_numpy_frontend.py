"""NumPy code traced unchanged: `np.tanh(x)`, `np.mean(x, axis=-1, keepdims=True)`,
`x.var()`, operators, weak typing of NumPy scalars and float64 constants, and the
located errors for what aicf cannot (yet) do. NumPy float64 is the reference."""

from __future__ import annotations

import numpy as np
import pytest
from trace_support import line_of, load_example
from xdsl.dialects import func

import aicf
from aicf.dialects import tensor as T

RNG = np.random.default_rng(7)
GPT2 = load_example("gpt2_numpy")


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def rel_err(out, ref) -> float:
    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    assert out.shape == ref.shape
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def as64(tree):
    if isinstance(tree, dict | list):
        return {k: as64(v) for k, v in tree.items()} if isinstance(tree, dict) else [as64(v) for v in tree]
    return tree.astype(np.float64) if isinstance(tree, np.ndarray) else tree


def signature(fn, *args):
    (f,) = [op for op in aicf.trace(fn, *args).walk() if isinstance(op, func.FuncOp)]
    return [str(t) for t in f.function_type.outputs.data]


def spec(*shape, dtype="f32"):
    return aicf.TensorSpec(shape, dtype)


# --- GPT-2 building blocks in picoGPT's NumPy idiom -------------------------------------------
# picoGPT's functions (examples/gpt2_numpy.py; each of them is tested in
# test_gpt2_numpy.py); here the heads are split by reshape and swapaxes instead.
softmax, layer_norm, linear, ffn = (
    getattr(GPT2, name) for name in ("softmax", "layer_norm", "linear", "ffn")
)
N_SEQ, N_EMBD = 12, 32


def _params(n_in, n_out):
    return {"w": rand(n_in, n_out) / np.float32(np.sqrt(n_in)), "b": rand(n_out)}


def mha_without_split(x, q, k, v, c_proj, n_head):
    """picoGPT's mha with separate q/k/v projections and the heads as a batch dim
    (reshape + swapaxes instead of np.split / np.hstack)."""
    n_seq, n_embd = x.shape
    heads = [linear(x, **p).reshape(n_seq, n_head, -1).swapaxes(0, 1) for p in (q, k, v)]
    causal_mask = (1 - np.tri(n_seq)) * -1e10
    scores = np.einsum("hqd,hkd->hqk", heads[0], heads[1]) / np.sqrt(n_embd // n_head)
    out = softmax(scores + causal_mask) @ heads[2]
    return linear(out.swapaxes(0, 1).reshape(n_seq, n_embd), **c_proj)


def transformer_block(x, mlp, attn, ln_1, ln_2, n_head):
    x = x + mha_without_split(layer_norm(x, **ln_1), **attn, n_head=n_head)
    return x + ffn(layer_norm(x, **ln_2), **mlp)


def test_transformer_block_without_split_matches_numpy_float64():
    ln = lambda: {"g": 1 + rand(N_EMBD) / 10, "b": rand(N_EMBD) / 10}  # noqa: E731
    params = {
        "mlp": {"c_fc": _params(N_EMBD, 4 * N_EMBD), "c_proj": _params(4 * N_EMBD, N_EMBD)},
        "attn": {**{p: _params(N_EMBD, N_EMBD) for p in "qkv"}, "c_proj": _params(N_EMBD, N_EMBD)},
        "ln_1": ln(), "ln_2": ln(),
    }  # fmt: skip
    x = rand(N_SEQ, N_EMBD)
    block = aicf.jit(transformer_block, static_argnames="n_head")
    out = block(x, **params, n_head=4)
    ref = transformer_block(x.astype(np.float64), **as64(params), n_head=4)
    assert out.dtype == np.float32 and rel_err(out, ref) < 1e-5


# --- every supported function against NumPy ----------------------------------------------------


def numpy_functions(x, y, w):
    """x: (3, 4, 5), y: (5,), w: (5, 6). Each entry is a NumPy function or method with
    an aicf meaning."""
    return {
        "add": np.add(x, y), "subtract": np.subtract(y, x), "multiply": np.multiply(x, y),
        "divide": np.divide(x, y * y + 1), "true_divide": np.true_divide(1.0, x * x + 1),
        "negative": np.negative(x), "positive": np.positive(x), "exp": np.exp(x),
        "log": np.log(x * x + 0.5), "sin": np.sin(x), "cos": np.cos(x), "tanh": np.tanh(x),
        "sqrt": np.sqrt(x * x), "abs": np.abs(x), "fabs": np.fabs(x),
        "maximum": np.maximum(x, y), "minimum": np.minimum(x, 0.25),
        "power": np.power(x * x + 1, 1.5), "square": np.square(x),
        "sum": np.sum(x), "sum_axis": np.sum(x, axis=(0, 2)), "max": np.max(x, axis=-1),
        "amax": np.amax(x, axis=0, keepdims=True), "min": np.min(x, axis=1),
        "amin": np.amin(x), "mean": np.mean(x, axis=-1, keepdims=True),
        "var": np.var(x, axis=(0, 1)), "var_ddof": np.var(x, ddof=1),
        "std": np.std(x, axis=-1), "add_reduce": np.add.reduce(x, axis=1),
        "reshape": np.reshape(x, (4, 15)), "transpose": np.transpose(x, (2, 0, 1)),
        "transpose_default": np.transpose(x), "swapaxes": np.swapaxes(x, 0, 2),
        "moveaxis": np.moveaxis(x, 0, -1), "expand_dims": np.expand_dims(y, (0, 2)),
        "squeeze": np.squeeze(np.expand_dims(x, 1), axis=1), "ravel": np.ravel(x),
        "broadcast_to": np.broadcast_to(y, (2, 5)), "clip": np.clip(x, -0.5, 0.5),
        "matmul": np.matmul(x, w), "dot": np.dot(x.reshape(12, 5), w), "dot_vec": np.dot(y, w),
        "einsum": np.einsum("bij,jk->bik", x, w),
        "einsum_bt": np.einsum("abi,cbi->bac", x, x),
        "einsum_ellipsis": np.einsum("...ij,kj->...ik", x, w.T),
        "einsum_vec": np.einsum("bij,j->bi", x, y),
        "einsum_rowdot": np.einsum("bij,bij->bi", x, x), "einsum_ibk": np.einsum("ibj,jk->kbi", x, w),
        "zeros_like": np.zeros_like(x) + x, "ones_like": np.ones_like(y) * y,
        "full_like": np.full_like(y, 2.5) - y,
        # methods and operators
        "m_sum": x.sum(axis=-1), "m_max": x.max(), "m_min": x.min(axis=0),
        "m_mean": x.mean(axis=(1, 2), keepdims=True), "m_var": x.var(axis=-1),
        "m_std": x.std(), "m_reshape": x.reshape(5, -1), "m_reshape_tuple": x.reshape((60,)),
        "m_transpose": x.transpose(1, 0, 2), "m_T": w.T, "m_mT": x.mT,
        "m_swapaxes": x.swapaxes(1, 2), "m_squeeze": x[None].squeeze(0),
        "m_ravel": x.ravel(), "m_flatten": x.flatten(), "m_clip": x.clip(min=0.0),
        "m_dot": y.dot(w), "m_astype": x.astype(np.float16).astype(np.float32),
        "op_matmul": x @ w, "op_pow": (x * x) ** 0.5, "op_rpow": 2.0**x, "op_abs": abs(x),
        "op_neg": -x, "op_pos": +x, "op_rsub": 1 - x, "op_rdiv": 1 / (x * x + 1),
        "index_all": x[...] + x[:] + x[:, :, :], "index_none": y[None, :, None],
    }  # fmt: skip


def test_numpy_functions_methods_and_operators_match_numpy():
    x, y, w = rand(3, 4, 5), rand(5), rand(5, 6)
    out = aicf.jit(numpy_functions)(x, y, w)
    ref = numpy_functions(*as64([x, y, w]))
    assert out.keys() == ref.keys()
    for name in ref:
        got = np.asarray(out[name])
        assert got.dtype == np.float32, name
        tol = 1e-3 if name == "m_astype" else 2e-6  # m_astype goes through f16
        assert rel_err(got, ref[name]) < tol, name


def test_shape_size_ndim_and_len_are_python_values():
    seen = {}

    def f(x):
        seen.update(shape=np.shape(x), ndim=np.ndim(x), size=np.size(x), len=len(x),
                    size0=np.size(x, 0), attr=x.size)  # fmt: skip
        return x

    aicf.trace(f, spec(3, 4))
    assert seen == dict(shape=(3, 4), ndim=2, size=12, len=3, size0=3, attr=12)


# --- weak typing ------------------------------------------------------------------------------


def test_numpy_float64_scalars_keep_the_program_dtype():
    def f(x):
        return x * np.float64(2.5) + np.sqrt(2 / np.pi) - np.float32(1) + np.array(3.0)

    assert signature(f, spec(4, dtype="f16")) == ["tensor<4xf16>"]
    assert signature(f, spec(4, dtype="bf16")) == ["tensor<4xbf16>"]
    consts = [op for op in aicf.trace(f, spec(4, dtype="f16")).walk() if isinstance(op, T.ConstantOp)]
    assert consts and all(str(c.result.type) == "tensor<f16>" for c in consts)


def test_float64_arrays_take_the_float_type_they_meet_other_arrays_keep_theirs():
    w64 = rand(4, dtype=np.float64)
    assert signature(lambda x: x * w64, spec(4, dtype="f16")) == ["tensor<4xf16>"]
    assert signature(lambda x: w64 @ x, spec(4, 2, dtype="bf16")) == ["tensor<2xbf16>"]
    assert signature(lambda x: x * w64, spec(4, dtype="i32")) == ["tensor<4xf32>"]
    w32 = rand(4)
    assert signature(lambda x: x + w32, spec(4, dtype="f16")) == ["tensor<4xf32>"]
    i64 = np.arange(4)
    assert signature(lambda x: x + i64, spec(4, dtype="i32")) == ["tensor<4xi32>"]
    assert signature(lambda x: x + i64, spec(4, dtype="f16")) == ["tensor<4xf16>"]


@pytest.mark.parametrize("f", [lambda x: x * 2.0, lambda x: x + 2.0, lambda x: x ** 2.0, lambda x: np.maximum(x, 1.0),
                               lambda x: 0.5 < x, lambda x: x * 0.5, lambda x: x / 2])
def test_a_float_scalar_beside_an_integer_tensor_computes_in_float(f):
    """JAX's rule (int32 with a weak float gives float32), whatever the float's value:
    2.0 was an integer constant, and x * 2.0 wrapped at 2**31."""
    x = np.array([1, 2, 2**31 - 1, -7], np.int32)
    got = aicf.jit(f)(x)
    want = f(x.astype(np.float64))
    assert got.dtype in (np.float32, np.bool_)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-6)


def test_python_scalar_arguments_are_weak():
    def scale(x, s):
        return x * s

    f = aicf.jit(scale)
    x = rand(6).astype(np.float16)
    out = f(x, 0.5)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, x * np.float16(0.5))
    out = f(x, 3)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, x * np.float16(3))
    xi = np.arange(6, dtype=np.int32)
    np.testing.assert_array_equal(f(xi, 3), xi * 3)
    assert f(xi, 0.5).dtype == np.float32  # a weak float beside an int tensor: float
    assert f.num_compilations == 4


# --- located errors -----------------------------------------------------------------------------


def _error_of(fn, *args) -> str:
    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(fn, *args)
    return str(err.value)


@pytest.mark.parametrize(
    "marker, body, words",
    [
        ("E-TAKE", lambda x: np.take(x, [0.5]), "indices must be integers, got an array of float64"),  # E-TAKE
        ("E-TAKEAXIS", lambda x: np.take(x, [0], axis=2), "axis 2 is out of range for rank 2"),  # E-TAKEAXIS
        ("E-ALONG", lambda x: np.take_along_axis(x, x, 0), "numpy.take_along_axis: indices must be an integer tensor, got f32"),  # E-ALONG
        ("E-MASK", lambda x: x[x > 0], "with a boolean mask is not supported yet"),  # E-MASK
        ("E-FIDX", lambda x: x[x], "an index tensor must be i32 or i64, got f32"),  # E-FIDX
        ("E-TWOARR", lambda x: x[[0], [1]], "several integer arrays is not supported yet"),  # E-TWOARR
        ("E-INTARR", lambda x: x[0, [1]], "mixing integer and array indices is not supported yet"),  # E-INTARR
        ("E-WHERE1", lambda x: np.where(x), "numpy.where with one argument"),  # E-WHERE1
        ("E-TRIL1", lambda x: np.tril(x[0]), "numpy.tril: needs a matrix"),  # E-TRIL1
        ("E-INDEX", lambda x: x[:, 8], "index 8 is out of bounds for axis 1 with size 8"),  # E-INDEX
        ("E-SPLIT", lambda x: np.split(x, 3, axis=1), "3 sections do not divide axis 1"),  # E-SPLIT
        ("E-CONCAT", lambda x: np.concatenate([x, x.T]), "shapes 4x8, 8x4 differ off the axis"),  # E-CONCAT
        ("E-ARGAXIS", lambda x: np.argmax(x, axis=2), "axis 2 is out of range for rank 2"),  # E-ARGAXIS
        ("E-BOOLADD", lambda x: (x > 0) - (x < 1), "arithmetic on i1 (bool) tensors"),  # E-BOOLADD
        ("E-GELU", lambda x: aicf.ops.gelu(x, approximate="fast"), "approximate must be"),  # E-GELU
        ("E-IOTA", lambda x: aicf.ops.iota([4, 8], 2), "dim 2 is out of range for rank 2"),  # E-IOTA
        ("E-LOGAND", lambda x: np.logical_and(x > 0, x) << 1, "numpy.left_shift (<<) of i32 tensors is not supported yet"),  # E-LOGAND
        ("E-FFT", lambda x: np.fft.fft(x), "numpy.fft.fft has no aicf meaning"),  # E-FFT
        ("E-SORT", lambda x: np.sort(x), "numpy.sort has no aicf meaning"),  # E-SORT
        ("E-LOG1P", lambda x: np.frexp(x), "numpy.frexp has no aicf meaning"),  # E-LOG1P
        ("E-ACCUM", lambda x: np.add.accumulate(x), "numpy.add.accumulate has no aicf"),  # E-ACCUM
        ("E-OUT", lambda x: np.tanh(x, out=np.empty((4, 8))), "numpy.tanh: out="),  # E-OUT
        ("E-SUMOUT", lambda x: np.sum(x, dtype=np.float64), "numpy.sum: dtype="),  # E-SUMOUT
        ("E-DOT3", lambda x: np.dot(x[None], x.T), "numpy.dot of an operand of rank > 2"),  # E-DOT3
        ("E-EINSUM", lambda x: np.einsum("ij,kl->ijkl", x, x), "numpy.einsum('ij,kl->ijkl')"),  # E-EINSUM
        ("E-EINSUMREP", lambda x: np.einsum("ij,jk->iik", x, x.T), "names output subscript 'i' more than once"),  # E-EINSUMREP
        ("E-SQUEEZE2", lambda x: np.squeeze(x[None], (0, -3)), "repeated axis in (0, -3)"),  # E-SQUEEZE2
        ("E-ASARRAY", lambda x: np.asarray(x), "conversion to a NumPy array of a traced"),  # E-ASARRAY
        ("E-FLOAT", lambda x: float(np.sum(x)), "float() of a traced tensor"),  # E-FLOAT
        ("E-AXIS", lambda x: np.sum(x, axis=1.7), "axis must be an integer, got float 1.7"),  # E-AXIS
        ("E-MAXAXIS", lambda x: x.max(axis=(0, 0.5)), "axis must be an integer"),  # E-MAXAXIS
        ("E-PERM", lambda x: np.transpose(x, (1, 0.0)), "a perm entry must be an integer"),  # E-PERM
        ("E-TPERM", lambda x: x.transpose(1.5, 0), "a perm entry must be an integer"),  # E-TPERM
        ("E-SHAPE", lambda x: x.reshape(8, 4.0), "an extent must be an integer"),  # E-SHAPE
        ("E-SWAP", lambda x: np.swapaxes(x, 0, 2), "axis 2 is out of range for rank 2"),  # E-SWAP
        ("E-EXPAND", lambda x: np.expand_dims(x, (0, -4)), "repeated axis in (0, -4)"),  # E-EXPAND
        ("E-MOVEDST", lambda x: np.moveaxis(x, [0, 1], [1, -1]), "repeated axis in destination [1, -1]"),  # E-MOVEDST
        ("E-MOVESRC", lambda x: np.moveaxis(x, [0, -2], [0, 1]), "repeated axis in source [0, -2]"),  # E-MOVESRC
        ("E-VARDDOF", lambda x: np.var(x, axis=0, ddof=4), "ddof=4 with only 4 elements"),  # E-VARDDOF
        ("E-DDOFNONE", lambda x: np.var(x, axis=0, ddof=None), "ddof must be a number, got NoneType None"),  # E-DDOFNONE
        ("E-DDOFSTR", lambda x: np.std(x, ddof="1"), "ddof must be a number, got str '1'"),  # E-DDOFSTR
        ("E-KEEPSTR", lambda x: np.max(x, axis=0, keepdims="no"), "keepdims must be a bool, got str 'no'"),  # E-KEEPSTR
        ("E-KEEPVAR", lambda x: np.var(x, keepdims=None), "keepdims must be a bool, got NoneType None"),  # E-KEEPVAR
        ("E-KEEPARG", lambda x: np.argmin(x, axis=1, keepdims="yes"), "keepdims must be a bool, got str 'yes'"),  # E-KEEPARG
        ("E-METHKW", lambda x: x.sum(keepdim=True), "ndarray.sum: got an unexpected keyword argument 'keepdim'"),  # E-METHKW
        ("E-METHPOS", lambda x: x.clip(1, 2, 3, 4), "ndarray.clip: too many positional arguments"),  # E-METHPOS
        ("E-AXIS0D", lambda x: np.sum(x, axis=np.array(2)), "axis 2 is out of range"),  # E-AXIS0D
        ("E-BIGINT", lambda x: x.astype(np.int32) + 2**40, "out of i32 range"),  # E-BIGINT
        ("E-HUGEI32", lambda x: x.astype("i32") - 10**400, "(401 digits) is out of i32 range"),  # E-HUGEI32
        ("E-HUGEINT", lambda x: x * 10**400, "(401 digits) is out of f32 range"),  # E-HUGEINT
        ("E-F16INT", lambda x: x.astype(np.float16) + 70000, "scalar 70000 is out of f16 range"),  # E-F16INT
        ("E-COMPLEX", lambda x: x * 1j, "complex scalar 1j"),  # E-COMPLEX
        ("E-I64ARR", lambda x: x + np.array([2**64 - 1] * 8, np.uint64), "out of i64 range"),  # E-I64ARR
        # aicf.ops called as NumPy's reductions are: the op's signature, at the user's line
        ("E-OPSMAX", lambda x: aicf.ops.max(x, axis=-1), "aicf.ops.reduce_max(x, axis=...)"),  # E-OPSMAX
        ("E-OPSKW", lambda x: aicf.ops.reduce_sum(x, keepdim=True), "unexpected keyword argument 'keepdim'"),  # E-OPSKW
        ("E-OPSARGS", lambda x: aicf.ops.exp(x, 2), "aicf.ops.exp(x): too many positional"),  # E-OPSARGS
    ],
)
def test_unsupported_numpy_names_the_function_and_the_users_line(marker, body, words):
    msg = _error_of(body, spec(4, 8))
    assert msg.startswith(f"{__file__}:{line_of(__file__, marker)}: error: "), msg
    assert words in msg, msg


def test_a_0d_array_axis_is_an_axis():
    """NumPy takes axis=np.array(1); iterating it (it is an Iterable) raised a raw TypeError."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for f in (lambda a: np.sum(a, axis=np.array(1)), lambda a: np.max(a, axis=np.array(-2), keepdims=True)):
        np.testing.assert_array_equal(aicf.jit(f, target="cpu")(x), f(x))


def test_max_and_min_take_numpys_positional_arguments():
    """np.max and np.min have no dtype: np.max(x, 0, None, True) is keepdims=True (it
    was read as sum's dtype, out, so out=True was refused)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for f in (lambda a: np.max(a, 0, None, True), lambda a: np.min(a, 1, None, True),
              lambda a: a.max(1, None, True), lambda a: np.sum(a, 0, None, None, True)):
        got, want = aicf.jit(f, target="cpu")(x), f(x)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_equality_never_compares_identity():
    def f(x, y):
        if x == y:  # EQ-IN-IF
            return x
        return y

    msg = _error_of(f, spec(2), spec(2))
    assert msg.startswith(f"{__file__}:{line_of(__file__, 'EQ-IN-IF')}: error: ")
    assert "the truth value (data-dependent control flow) of a traced tensor" in msg


def test_a_traced_dtype_is_a_numpy_dtype():
    """picoGPT's mha builds its mask with `np.tri(n, dtype=x.dtype)`: a traced
    tensor's dtype is one NumPy takes (and compares equal to, as on an array), and
    it still equals aicf's spelling."""

    def f(x):
        mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
        eps = np.finfo(x.dtype).eps
        return x + mask + np.zeros(x.shape, dtype=x.dtype) + eps

    def traced(x):
        assert x.dtype == np.float32 and x.dtype == "f32" and x.dtype != np.float64
        assert np.dtype(x.dtype) == np.float32 and str(x.dtype) == "f32"
        assert np.issubdtype(x.dtype, np.floating) and (x.itemsize, x.nbytes) == (4, 100)
        assert (x.dtype.type, x.dtype.char, x.dtype.str) == (np.float32, "f", "<f4")
        return f(x)

    x = np.random.default_rng(0).standard_normal((5, 5)).astype(np.float32)
    got = aicf.jit(traced, target="cpu")(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, f(x), rtol=1e-6)
    assert "f64" not in str(aicf.trace(f, aicf.TensorSpec((5, 5), "f32")))


def test_take_modes():
    """'clip' is what aicf computes; 'raise' with constant indices out of range raises
    as NumPy does; 'wrap' would give other values than NumPy's, so it is refused."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    clip = aicf.jit(lambda x: np.take(x, [5, 1], axis=0, mode="clip"))(x)
    np.testing.assert_array_equal(clip, np.take(x, [5, 1], axis=0, mode="clip"))
    np.testing.assert_array_equal(aicf.jit(lambda x: np.take(x, [3, -4], axis=0))(x), np.take(x, [3, -4], axis=0))
    with pytest.raises(aicf.CompileError, match="out of bounds"):
        aicf.jit(lambda x: np.take(x, [4], axis=0))(x)
    with pytest.raises(aicf.CompileError, match="mode='wrap' is not supported"):
        aicf.jit(lambda x: np.take(x, [5], axis=0, mode="wrap"))(x)


def test_python_ints_beside_i64_tensors_take_the_i64_range():
    x = np.array([1, -5, 2**40], dtype=np.int64)
    for c in (2**62, 2**63 - 1, -(2**63), 2**32):
        np.testing.assert_array_equal(aicf.jit(lambda x: np.minimum(x, c))(x), np.minimum(x, c))
    np.testing.assert_array_equal(aicf.jit(lambda x: x + 2**33)(x), x + 2**33)
    with pytest.raises(aicf.CompileError, match="out of i64 range"):
        aicf.jit(lambda x: x + 2**63)(x)
    with pytest.raises(aicf.CompileError, match="out of i32 range"):
        aicf.jit(lambda x: x + 2**31)(x.astype(np.int32))


def test_int64_arrays_out_of_i32_range_stay_i64():
    """A closed-over int64 array becomes i32 where its values fit; one that does not fit
    raised "cannot be a constant", even beside an i64 tensor, where a Python int of the
    same value worked (above). It is an i64 constant, as NumPy has it."""
    x = np.array([1, -5, 2**40, -(2**35)], dtype=np.int64)
    big = np.array([2**40, 1, -(2**62), 3])
    for arg in (x, (x % 7).astype(np.int32)):
        got = aicf.jit(lambda x: x + big)(arg)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, arg + big)
    with pytest.raises(aicf.CompileError, match="out of i64 range"):
        aicf.jit(lambda x: x + np.array([2**64 - 1, 0], np.uint64))(x)


def test_astype_casting_follows_numpy():
    x = np.ones(3, np.float32)
    assert aicf.jit(lambda x: x.astype(np.float64, casting="safe"))(x).dtype == np.float64
    assert aicf.jit(lambda x: x.astype(np.int32))(x).dtype == np.int32  # unsafe, the default
    with pytest.raises(aicf.CompileError, match="cannot cast f32 to i32 under casting='safe'"):
        aicf.jit(lambda x: x.astype(np.int32, casting="safe"))(x)


@pytest.mark.parametrize("func", [np.tril, np.triu])
@pytest.mark.parametrize("k", [10**12, -10**12, 2**31, -(2**31) - 1, 4, -3, 5, -4])
def test_triangle_diagonal_past_the_edges(func, k):
    """NumPy takes any k: one past i32 range keeps or drops the whole matrix, as a
    diagonal just past the edge does (it was an i32-range error)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    got = aicf.jit(lambda a: func(a, k))(x)
    np.testing.assert_array_equal(got, func(x, k))


@pytest.mark.parametrize("func", [np.tril, np.triu])
def test_triangle_of_a_bool_matrix_stays_bool(func):
    """The zeros were a weak 0 beside the bool: the result was i32, so ~np.tril(mask)
    gave -1 - x (-2 and -1) where NumPy gives the logical not."""
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    got = aicf.jit(lambda a: ~func(a > 0, 1))(x)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, ~func(x > 0, 1))


def test_fabs_of_integers_is_a_float():
    """np.fabs is float-only: of an i32 it was abs in i32, INT_MIN staying INT_MIN."""
    x = np.array([-(2**31), -5, 0, 3, 2**31 - 1], np.int32)
    got = aicf.jit(np.fabs)(x)
    assert got.dtype.kind == "f"
    np.testing.assert_allclose(got, np.fabs(x), rtol=1e-7)


def test_positive_of_a_bool_tensor_is_an_error_as_in_numpy():
    x = np.array([1.0, -1.0], np.float32)
    for f in (lambda a: np.positive(a > 0), lambda a: +(a > 0)):
        with pytest.raises(aicf.CompileError, match=r"test_numpy_frontend.py:\d+: error: numpy.positive"):
            aicf.jit(f)(x)


@pytest.mark.parametrize("make", [
    lambda a, d: a.astype(d),
    lambda a, d: np.astype(a, d),
    lambda a, d: np.zeros_like(a, dtype=d),
    lambda a, d: np.full_like(a, 3, d),
])  # fmt: skip
@pytest.mark.parametrize("name", ["i1", "f16"])
def test_dtype_strings_numpy_reads_otherwise_are_refused(make, name):
    """NumPy reads "i1" as int8 and "f16" as float128; aicf's MLIR names were taken:
    (x * 10).astype("i1") gave bools where NumPy code meant int8."""
    x = np.array([1.5, -2.0, 0.0], np.float32)
    with pytest.raises(aicf.CompileError, match=rf"test_numpy_frontend.py:\d+: error: .*dtype '{name}' is ambiguous"):
        aicf.jit(lambda a: make(a * 10, name))(x)
    assert aicf.jit(lambda a: aicf.ops.cast(a, "i1"))(x).dtype == np.bool_  # aicf.ops: MLIR's names


def test_transpose_counts_negative_axes_from_the_end():
    """NumPy takes x.transpose(-1, 0, 1); it was "not a permutation"."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for f in (lambda a: a.transpose(-1, 0, 1), lambda a: np.transpose(a, (-3, -1, -2)), lambda a: a.transpose((2, -3, 1))):
        np.testing.assert_array_equal(aicf.jit(f)(x), f(x))
    for bad in ((-4, 0, 1), (-1, 2, 0)):
        with pytest.raises(aicf.CompileError, match=r"test_numpy_frontend.py:\d+: error: .*not a permutation"):
            aicf.jit(lambda a: a.transpose(*bad))(x)


# --- numpy.linalg.norm ------------------------------------------------------------------------
_NORM_X = rand(4, 5, 6)
_NORM_X[0, 0, :3] = 0.0  # zeros: ord 0 counts them, negative orders meet 0 ** -p


@pytest.mark.parametrize("kw", [
    {}, {"keepdims": True}, {"axis": -1}, {"axis": (1,), "keepdims": True},
    *({"ord": o, "axis": a} for o in (None, 2, 1, np.inf, -np.inf, 0, 3, 0.5, -1) for a in (0, -1)),
    *({"ord": o, "axis": a, "keepdims": k} for o in (None, "fro", 1, -1, np.inf, -np.inf)
      for a in ((0, 1), (2, 0)) for k in (False, True)),
])  # fmt: skip
def test_linalg_norm_matches_numpy(kw):
    out = aicf.jit(lambda a: np.linalg.norm(a, **kw))(_NORM_X)
    ref = np.linalg.norm(_NORM_X.astype(np.float64), **kw)
    assert out.dtype == np.float32 and out.shape == np.shape(ref)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_linalg_norm_of_a_matrix_without_axis_and_of_ints():
    m = _NORM_X[1]
    for o in (None, "fro", 1, np.inf):
        np.testing.assert_allclose(aicf.jit(lambda a: np.linalg.norm(a, o))(m),
                                   np.linalg.norm(m.astype(np.float64), o), rtol=1e-5)  # fmt: skip
    i = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    out = aicf.jit(lambda a: np.linalg.norm(a, axis=1))(i)
    assert out.dtype == np.float64  # NumPy's: integers as float64
    np.testing.assert_allclose(out, np.linalg.norm(i, axis=1), rtol=1e-12)


def test_linalg_norm_spectral_is_a_located_error():
    with pytest.raises(aicf.CompileError, match=rf"test_numpy_frontend.py:{line_of(__file__, 'spectral')}: "
                       r"error: numpy.linalg.norm: ord=2 over two axes is not supported"):  # fmt: skip
        aicf.jit(lambda a: np.linalg.norm(a, 2))(_NORM_X[0])  # spectral


def test_mean_var_and_std_of_integers_and_bools_are_floats():
    """(argmax(logits, -1) == y).mean(), an accuracy, and np.mean / var / std of an int
    array are floats in NumPy: they raised `'aicf_tensor.reduce_mean' operand must be a
    float tensor`. They compute in f32, as true_divide does (JAX's promotion)."""
    ints = np.array([[-7, 0, 3, 2147483647], [5, 1, -2147483648, 9]], np.int32)

    def f(a, b, logits, y):
        acc = (np.argmax(logits, axis=-1) == y).mean()
        return acc, a.mean(), np.mean(b, axis=0, keepdims=True), a.var(-1), np.std(b, ddof=1)

    logits, y = rand(10, 3), np.arange(10) % 3
    args = (ints, ints.astype(np.int64), logits, y)
    out = aicf.jit(f)(*args)
    ref = f(*(np.asarray(v) for v in args))
    for got, want in zip(out, ref):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_argmax_argmin_and_take_are_ndarray_methods_too():
    """logits.argmax(-1), as tutorials write it, said `ndarray.argmax has no aicf
    meaning` while np.argmax(logits, -1) worked; x.take(idx, axis) likewise."""
    x = rand(5, 7)
    idx = np.array([0, 6, 3], np.int32)

    def f(x, idx):
        return x.argmax(-1), x.argmin(axis=0, keepdims=True), x.argmax(), x.take(idx, axis=1)

    for got, want in zip(aicf.jit(f)(x, idx), f(x, idx)):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_sums_products_and_extrema_of_two_bool_tensors_are_logical():
    """mask1 * mask2 and mask1 + mask2 combine masks in NumPy (bool results: and, or),
    as do np.minimum / np.maximum; they raised `'aicf_tensor.mul' arithmetic on i1
    (bool) tensors is not defined`. np.square of a mask counts in integers."""
    x = rand(4, 6)

    def f(x):
        a, b = x > 0, x < 0.5
        return a * b, a + b, np.maximum(a, b), np.minimum(a, True), a + False, (a * b) * x, np.square(a)

    got, want = aicf.jit(f)(x), f(x)
    for g, w in zip(got, want):
        if w.dtype == np.int8:  # aicf has no int8: counts are i32
            w = w.astype(np.int32)
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_ndarray_copy_method_in_a_time_stepping_loop():
    # u.copy() before a loop (a wave equation's previous step) raised "ndarray.copy has no
    # aicf meaning"
    def wave(u):
        prev = u.copy()
        for _ in range(3):
            new = 2 * u[1:-1] - prev[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
            prev, u = u, np.concatenate([u[:1] * 0, new, u[-1:] * 0])
        return u, prev.copy()

    u = rand(9).astype(np.float64)
    got = aicf.jit(wave)(u)
    for g, e in zip(got, wave(u)):
        np.testing.assert_allclose(g, e, rtol=1e-12)
