"""aicf.jit: keyword and static arguments, pytrees in and out, the bounded
specialisation cache, explain(), nested jit, tracing from several threads, and the
errors for arguments aicf cannot take."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from trace_support import line_of

import aicf
from aicf.errors import ArgumentError
from aicf.frontend import jitted as jit_module

RNG = np.random.default_rng(3)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


class _Fake:
    """Stands in for an Executable where only the caching is tested."""

    def __init__(self, module):
        self.module = module

    def __call__(self, *arrays):
        return arrays[0]

    def explain(self):
        return "fake"


@pytest.fixture
def fake_compile(monkeypatch):
    compiled = []

    def compile_(module, target, options):
        compiled.append(module)
        return _Fake(module)

    monkeypatch.setattr(jit_module, "_compile", compile_)
    return compiled


# --- arguments -------------------------------------------------------------------------------


def test_keyword_arguments_bind_to_one_specialisation():
    @aicf.jit
    def f(x, w, eps=1e-3):
        return x @ w + eps

    x, w = rand(3, 4), rand(4, 2)
    ref = x.astype(np.float64) @ w + 1e-3
    for out in (f(x, w), f(x, w=w), f(w=w, x=x)):
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    assert f.num_compilations == 1
    np.testing.assert_allclose(f(x, w, eps=0.5), x.astype(np.float64) @ w + 0.5, rtol=1e-5)
    with pytest.raises(aicf.ArgumentError, match="f: missing a required argument: 'w'"):
        f(x)


@pytest.mark.parametrize("static", [dict(static_argnames="n"), dict(static_argnums=1)])
def test_static_arguments_are_python_values_and_part_of_the_key(static):
    @aicf.jit(**static)
    def power(x, n, scale=1.0):
        y = x
        for _ in range(n - 1):  # a Python loop over a static value
            y = y * x
        return y * scale

    x = rand(5)
    np.testing.assert_allclose(power(x, 3), x.astype(np.float64) ** 3, rtol=1e-6)
    np.testing.assert_allclose(power(x, n=2), x.astype(np.float64) ** 2, rtol=1e-6)
    power(x, 3)
    assert power.num_compilations == 2
    assert power.static_argnames == ("n",)


def test_unhashable_static_argument_is_named():
    f = aicf.jit(lambda x, dims: x.sum(axis=dims), static_argnames="dims")
    with pytest.raises(aicf.ArgumentError, match=r"static argument 'dims' must be hashable, got list"):
        f(rand(2, 3), [0])
    np.testing.assert_allclose(f(rand(2, 3) * 0 + 1, (0,)), [2, 2, 2])


def test_static_argument_names_are_checked():
    with pytest.raises(aicf.ArgumentError, match=r"has no parameter \['m'\]"):
        aicf.jit(lambda x, n: x, static_argnames="m")
    with pytest.raises(aicf.ArgumentError, match="static_argnums: 2 is out of range"):
        aicf.jit(lambda x, n: x, static_argnums=2)
    for bad in ("1", 1.5, [True], ["n"]):
        with pytest.raises(aicf.ArgumentError, match="static_argnums takes a parameter index"):
            aicf.jit(lambda x, n: x, static_argnums=bad)
    with pytest.raises(aicf.ArgumentError, match="static_argnames takes a parameter name"):
        aicf.jit(lambda x, n: x, static_argnames=[1])
    assert aicf.jit(lambda x, n: x, static_argnums=np.int64(1)).static_argnames == ("n",)


def test_pytrees_of_arrays_in_and_out():
    @aicf.jit
    def block(x, params, extra):
        h = x @ params["w1"] + params["b"][0]
        outs = [h, np.tanh(h) * extra[1]]
        return {"h": h, "pair": (outs[1], extra[0] * 2.0), "n": [x.sum()]}

    x, w1 = rand(2, 3), rand(3, 4)
    params = {"w1": w1, "b": [rand(4)]}
    extra = (rand(5), rand(4))
    out = block(x, params, extra)
    h = x.astype(np.float64) @ w1 + params["b"][0]
    assert set(out) == {"h", "pair", "n"} and isinstance(out["pair"], tuple)
    np.testing.assert_allclose(out["h"], h, rtol=1e-5)
    np.testing.assert_allclose(out["pair"][0], np.tanh(h) * extra[1], rtol=1e-5)
    np.testing.assert_allclose(out["pair"][1], extra[0] * 2.0, rtol=1e-6)
    assert isinstance(out["n"], list)
    np.testing.assert_allclose(out["n"][0], x.astype(np.float64).sum(), rtol=1e-5)
    block(x + 1, {"b": [rand(4)], "w1": rand(3, 4)}, (rand(5), rand(4)))
    assert block.num_compilations == 1  # same structure, shapes and dtypes
    block(x, {"w1": w1, "b": [rand(4)], "c": rand(1)}, extra)  # a new key: new structure
    assert block.num_compilations == 2


def test_bf16_goes_in_as_uint16_bits_and_comes_back_as_them():
    """A bf16 result (uint16 bits) is the next jitted call's bf16 argument."""
    bits = np.array([0x3F80, 0x4020, 0xC040], np.uint16)  # 1.0, 2.5, -3.0
    double = aicf.jit(lambda x: x * 2)
    once = double(bits)
    assert once.dtype == np.uint16
    twice = double(once)
    as_f32 = (twice.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(as_f32, [4.0, 10.0, -12.0])
    module = double.lower(bits)
    assert "tensor<3xbf16>" in str(module)


def test_bf16_from_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5, -2.0, 3.0], ml_dtypes.bfloat16)
    y = aicf.jit(lambda x: x * 2)(x)
    np.testing.assert_array_equal(y.view(ml_dtypes.bfloat16).astype(np.float32), [3.0, -4.0, 6.0])


def test_numbers_in_the_result_come_back_as_arrays():
    """As jax.jit: a Python number (or NumPy constant) among the results is returned as
    a 0-d array, weakly typed (f32, i32; a bool stays a bool); None stays None."""

    @aicf.jit
    def f(x):
        return {"y": x * 2, "n": 3, "flag": True, "s": 0.25, "c": np.arange(3), "none": None}

    x = rand(4)
    out = f(x)
    np.testing.assert_allclose(out["y"], x * 2)
    assert out["none"] is None
    for key, value, dtype in [("n", 3, np.int32), ("flag", True, np.bool_), ("s", 0.25, np.float32)]:
        assert isinstance(out[key], np.ndarray) and out[key].shape == (), key
        assert out[key].dtype == dtype and out[key] == value, key
    np.testing.assert_array_equal(out["c"], [0, 1, 2])

    pair = aicf.jit(lambda x: (x, 1.5))(rand(2, dtype=np.float16))
    assert isinstance(pair, tuple) and pair[1].dtype == np.float32 and pair[1] == 1.5


def test_a_result_leaf_that_is_no_array_is_named_by_its_path():
    def f(x):  # RESULT-DEF
        return [x, {"name": "relu"}]

    with pytest.raises(aicf.CompileError) as err:
        aicf.jit(f)(rand(2))
    msg = str(err.value)
    assert msg.startswith(f"{__file__}:{line_of(__file__, 'RESULT-DEF')}: error: f returned a str at "
                          "result[1]['name']"), msg  # fmt: skip


@pytest.mark.parametrize(
    "args, words",
    [
        ((rand(4), {"k": "relu"}), r"argument 'p\['k'\]': a str is not an array.*static"),
        # "make it a static argument, or make it static" said it twice
        ((True, {}), r"argument 'x': a bool scalar has no weak aicf type \(np.array\(flag\) is a bool tensor\), or make it static \(static_argnames\)$"),
        ((2**40, {}), r"argument 'x': the int 1099511627776 is out of i32 range"),
        ((1j, {}), r"argument 'x': a complex scalar"),
        ((np.ones(3, np.uint8), {}), r"argument 'x': unsupported dtype"),
    ],
)
def test_arguments_aicf_cannot_take_are_named(args, words):
    f = aicf.jit(lambda x, p: x)
    with pytest.raises(aicf.ArgumentError, match=words):
        f(*args)


# --- the specialisation cache ----------------------------------------------------------------


def test_cache_is_bounded_and_least_recently_used_goes_first(fake_compile):
    f = aicf.jit(lambda x: -x, cache_size=2)
    a, b, c = rand(1), rand(2), rand(3)
    f(a), f(b), f(a), f(c)  # b is the least recently used when c comes
    assert f.num_compilations == 3
    f(a)
    assert f.num_compilations == 3
    f(b)
    assert f.num_compilations == 4
    assert len(f._cache) == 2
    assert jit_module.DEFAULT_CACHE_SIZE == aicf.jit(lambda x: x).cache_size == 64


def test_a_repeated_call_is_served_while_its_entry_lives_and_compiled_again_after_eviction(fake_compile):
    f = aicf.jit(lambda x: -x, cache_size=1)
    a, b = rand(1), rand(2)
    f(a), f(a), f(a)  # the last call's entry, found again
    assert f.num_compilations == 1
    f(b)  # evicts a's specialisation
    f(a)
    assert f.num_compilations == 3 and len(f._cache) == 1


def test_the_last_call_shortcut_keeps_the_lru_order(fake_compile):
    """A call served by the last-call shortcut is still the most recently used: after
    a, a, b, a, the entry c evicts is b's."""
    f = aicf.jit(lambda x: -x, cache_size=2)
    a, b, c = rand(1), rand(2), rand(3)
    f(a), f(a), f(b), f(a), f(c)
    assert f.num_compilations == 3
    f(a)
    assert f.num_compilations == 3


def test_explain_delegates_to_each_specialisation():
    @aicf.jit(static_argnames="axis")
    def f(x, axis):
        return np.exp(x).sum(axis=axis)

    assert "no specialisation compiled yet" in f.explain()
    f(rand(4, 8), axis=1)
    f(rand(2, 3), axis=0)
    text = f.explain()
    assert "# <lambda>" not in text and "# f(f32[4, 8], axis=1)" in text
    assert text.index("f32[4, 8]") < text.index("f32[2, 3], axis=0")
    assert text.count("<aicf.Executable @f(") == 2
    assert f.explain(rand(4, 8), axis=1) == f.executable(rand(4, 8), axis=1).explain()
    assert "nest domain=[4, 8]" in f.explain(rand(4, 8), axis=1)


# --- nesting and threads ---------------------------------------------------------------------


def test_nested_jit_is_inlined():
    @aicf.jit
    def inner(x, s):
        return np.tanh(x) * s

    @aicf.jit
    def outer(x):
        return inner(x, 2.0) + inner(x * 3.0, 0.5)

    x = rand(6)
    ref = np.tanh(x.astype(np.float64)) * 2 + np.tanh(3 * x.astype(np.float64)) * 0.5
    np.testing.assert_allclose(outer(x), ref, rtol=1e-5)
    assert inner.num_compilations == 0 and outer.num_compilations == 1
    names = [op.name for op in outer.lower(x).walk()]
    assert names.count("aicf_tensor.tanh") == 2


def test_threads_trace_at_the_same_time():
    """Each thread's trace is in progress while the others' are: with one trace stack
    for the process, their operands would mix ("operands come from different traces")."""
    n = 4
    barrier = threading.Barrier(n)
    results, errors = {}, []

    def model(x, w):
        h = x @ w
        barrier.wait(timeout=30)  # every thread is inside its trace here
        return np.maximum(h, 0.0).sum(axis=-1)

    f = aicf.jit(model)

    def work(i):
        try:
            x, w = rand(2 + i, 3), rand(3, 4)
            results[i] = (f(x, w), np.maximum(x.astype(np.float64) @ w, 0).sum(axis=-1))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for out, ref in results.values():
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    assert f.num_compilations == n


def test_threads_with_the_same_new_arguments_compile_once():
    """Threads that call with arguments no specialisation has yet wait for the first
    one's compile; each traced and compiled the program itself before."""
    n = 4
    barrier = threading.Barrier(n)
    traces, results, errors = [], [], []

    def model(x):
        traces.append(threading.get_ident())
        return np.tanh(x) * 2.0

    f = aicf.jit(model)
    x = rand(5, 3)

    def work():
        try:
            barrier.wait(timeout=30)
            results.append(f(x))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(results) == n
    for out in results:
        np.testing.assert_allclose(out, np.tanh(x.astype(np.float64)) * 2.0, rtol=1e-6)
    assert f.num_compilations == 1 and len(traces) == 1


def test_a_failed_compile_does_not_block_the_next_caller():
    calls = []

    def model(x):
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("first trace fails")
        return x + 1.0

    f = aicf.jit(model)
    with pytest.raises(ValueError, match="first trace fails"):
        f(rand(3))
    np.testing.assert_allclose(f(np.ones(3, np.float32)), 2.0)


def test_tensor_from_another_trace_is_a_located_error():
    saved = []

    def first(x):
        saved.append(x)
        return x

    aicf.trace(first, aicf.TensorSpec((2,)))
    with pytest.raises(aicf.CompileError) as err:
        aicf.trace(lambda y: y + saved[0], aicf.TensorSpec((2,)))  # OTHER-TRACE
    assert f":{line_of(__file__, 'OTHER-TRACE')}: error: " in str(err.value)
    assert "operands come from different traces" in str(err.value)


def test_plain_array_calls_take_the_same_specialisations(fake_compile):
    """The plain-array fast path keys on (type, shape, dtype) exactly as the general
    path does: a new dtype (int64 included) or shape compiles."""
    f = aicf.jit(lambda x: -x)
    a = rand(3)
    f(a), f(a)
    assert f.num_compilations == 1
    f(a.astype(np.float16))
    assert f.num_compilations == 2
    f(rand(4))
    assert f.num_compilations == 3
    f(np.arange(3))
    assert f.num_compilations == 4
    f(np.arange(3))
    assert f.num_compilations == 4


def test_jit_takes_a_partial_and_a_callable_object():
    import functools

    class Scale:
        def __call__(self, x):
            return x * 2

    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(aicf.jit(functools.partial(lambda x, k: x * k, k=4))(x), x * 4)
    np.testing.assert_array_equal(aicf.jit(Scale())(x), x * 2)


def test_equal_static_values_of_other_types_are_other_specialisations():
    """2 == 2.0 == True, with one hash, but a function traces each its own way: a * 2.0
    is a float array as NumPy's, not the int array a * 2 compiled first."""
    a = np.array([7, -7, 5], np.int32)
    f = aicf.jit(lambda a, n: a * n, static_argnums=1)
    g = aicf.jit(lambda a, t: a * t[0], static_argnums=1)  # the types inside a tuple too
    for n in (2, 2.0, True):
        for got in (f(a, n), g(a, (n,))):
            np.testing.assert_array_equal(got, a * n)
            assert got.dtype.kind == (a * n).dtype.kind, (n, got.dtype)
    assert f.num_compilations == g.num_compilations == 3


def test_numpy_float_scalars_are_strong_python_floats_weak():
    """NumPy 2 (NEP 50): an np.float64 argument is an f64 (np.float64 subclasses float;
    taken as a weak Python float it was rounded to f32: 1e300 became inf, 0 * inf nan);
    a Python float stays weak, and the f32 array keeps its type."""
    x = np.arange(3, dtype=np.float32)
    f = aicf.jit(lambda a, s: a * s)
    strong = f(x, np.float64(1e300))
    assert strong.dtype == np.float64
    np.testing.assert_array_equal(strong, x * np.float64(1e300))
    weak = f(x, 0.5)
    assert weak.dtype == np.float32
    np.testing.assert_array_equal(weak, x * np.float32(0.5))


def test_compile_options_reach_each_compile():
    """force / fuse go to aicf.compile: the forced kind is the one that runs, and an
    unfused function runs every op as its own nest; results unchanged."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((64, 48), np.float32), rng.standard_normal((48, 32), np.float32)

    def f(x, w):
        return np.tanh(x @ w) + 1.0

    picks = {}
    for kw in ({}, {"force": "cpu.nest"}, {"force": ["cpu.nest"], "fuse": False}):
        j = aicf.jit(f, **kw)
        np.testing.assert_allclose(j(x, w), np.tanh(x.astype(np.float64) @ w) + 1.0, rtol=1e-5, atol=1e-5)
        text = j.executable(x, w).explain()
        picks[str(kw)] = [line.split()[1] for line in text.splitlines() if line.lstrip().startswith("->")]
    assert picks["{}"][0] == "cpu.blas_gemm"
    assert picks["{'force': 'cpu.nest'}"][0] == "cpu.nest"
    assert len(picks["{'force': ['cpu.nest'], 'fuse': False}"]) > len(picks["{'force': 'cpu.nest'}"])


@pytest.mark.parametrize("kw", [
    {"force": "gpu.nope"}, {"force": "gpu.cublas_gemm"}, {"force": 5}, {"fuse": "yes"},
    {"tune": "sometimes"}, {"matmul_precision": "low"}, {"debug": 3},
])
def test_bad_compile_options_fail_at_the_decorator(kw):
    with pytest.raises(ArgumentError, match="force|fuse|tune|matmul_precision|debug"):
        aicf.jit(lambda x: x + 1, **kw)


def test_static_zeros_of_either_sign_are_other_specialisations():
    """-0.0 == 0.0 with one hash, but x / s is -inf for one and inf for the other: the
    second call got the first's program."""
    x = np.ones(3, np.float32)
    f = aicf.jit(lambda a, s: a / s, static_argnames="s")
    g = aicf.jit(lambda a, t: a * t[0], static_argnums=1)  # inside a tuple too
    with np.errstate(divide="ignore"):
        for s in (0.0, -0.0, np.float32(-0.0)):
            np.testing.assert_array_equal(f(x, s=s), x / s)
            assert np.array_equal(np.signbit(g(x, (s,))), np.signbit(x * s)), s
    assert f.num_compilations == g.num_compilations == 3


def test_a_nested_call_with_wrong_arguments_is_named_at_its_line():
    """Inlined into the outer trace, the jitted function was called as it was: Python's
    TypeError from inside jitted.py, without the caller's line."""
    inner = aicf.jit(lambda a: a * 2)
    x = np.ones(3, np.float32)
    with pytest.raises(aicf.ArgumentError) as err:
        aicf.jit(lambda a: inner(a, a))(x)  # NESTED-CALL
    assert str(err.value).startswith(f"{__file__}:{line_of(__file__, 'NESTED-CALL')}: error: <lambda>: too many")


class _ArrayEq:
    """Hashable, but == gives an array (as a wrapper of NumPy arrays might)."""

    def __hash__(self):
        return 1

    def __eq__(self, other):
        return np.array([True, False])


def test_a_static_value_without_a_bool_equality_is_an_argument_error():
    """The cache compared it with the earlier key: NumPy's raw ValueError ("truth value
    of an array is ambiguous") from the cache lookup, on the second call."""
    f = aicf.jit(lambda a, k: a, static_argnums=1)
    x = np.ones(3, np.float32)
    for _ in range(2):
        with pytest.raises(aicf.ArgumentError, match="static argument 'k' must compare equal as a bool"):
            f(x, _ArrayEq())


class _HashRaises:
    """A static value whose __hash__ raises something other than TypeError (a frozen
    config hashing a field that is not ready)."""

    def __hash__(self):
        raise RuntimeError("not ready")


def test_a_static_value_whose_hash_raises_is_an_argument_error():
    """Its RuntimeError came out of the jit call raw; == raising was already an
    ArgumentError."""
    f = aicf.jit(lambda a, k: a, static_argnums=1)
    with pytest.raises(aicf.ArgumentError, match=r"static argument 'k' must be hashable \(its hash\(\) raised RuntimeError: not ready"):
        f(np.ones(3, np.float32), _HashRaises())


@pytest.mark.parametrize("top", ["a", -1, None, 2.5])
def test_explain_checks_top(top):
    exe = aicf.jit(lambda a: a + 1).executable(np.ones(3, np.float32))
    with pytest.raises(aicf.ArgumentError, match="explain: top must be an int >= 0"):
        exe.explain(top=top)


def test_a_python_float_argument_keeps_its_precision_beside_f64():
    """A Python float argument was an f32 array: beside an f64 array, x * 1e300 was inf
    and x * 0.1 off by ~1e-9 relative. It keeps f64 now, and is still f32 beside f32
    and integer arrays and alone (weak, as JAX types it)."""
    f = aicf.jit(lambda a, s: a * s)
    x = np.array([1e-290, 1.0, 3.0], np.float64)
    for s in (1e300, 0.1):
        got = f(x, s)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, x * s)
    x32 = np.array([1.5, 3.0], np.float32)
    assert f(x32, 0.1).dtype == np.float32
    np.testing.assert_array_equal(f(x32, 0.1), x32 * np.float32(0.1))
    assert f(np.array([3, 4], np.int32), 0.5).dtype == np.float32
    assert aicf.jit(lambda s: s * 2)(0.1).dtype == np.float32
    # a weak scalar beside an array constant takes the array's type (it promoted both)
    got = aicf.jit(lambda s: s * np.array([0.5, 2.0], np.float16))(3.0)
    assert got.dtype == np.float16


def test_force_as_bytes_is_named_as_given():
    """bytes are not kind names: the error shows the value passed, not its list of ints."""
    with pytest.raises(ArgumentError, match=r"aicf\.jit: force takes schedule kind names \(str\), got b'cpu.nest'"):
        aicf.jit(lambda x: x + 1, force=b"cpu.nest")


def test_a_closed_over_array_changed_in_place_is_traced_again():
    """A training loop's `W -= lr * dW` on a NumPy array the jitted function closes
    over kept returning x @ (the old W), silently: the array was a constant of the
    compiled program. A change in place now traces and compiles again, on every path
    of the call (the last-call shortcut, the fast key, keyword arguments)."""
    W = rand(3, 3)
    mask = np.array([True, False, True])
    f = aicf.jit(lambda x, s: np.where(mask, x @ W, 0.0) * s)
    x = rand(2, 3)
    np.testing.assert_allclose(f(x, 1.0), np.where(mask, x @ W, 0), rtol=1e-6)
    f(x, 1.0), f(x, s=1.0)
    assert f.num_compilations == 1  # unchanged: served from the cache
    W *= 2
    np.testing.assert_allclose(f(x, 1.0), np.where(mask, x @ W, 0), rtol=1e-6)
    mask[1] = True
    np.testing.assert_allclose(f(x, s=2.0), 2 * (x @ W), rtol=1e-6)
    np.testing.assert_allclose(f(x, 1.0), x @ W, rtol=1e-6)
    assert f.num_compilations == 3
    g = aicf.jit(lambda x: x @ W)  # plain arrays: the fast key and the last-call shortcut
    g(x), g(x)
    W -= 1
    np.testing.assert_allclose(g(x), x @ W, rtol=1e-6)
    assert g.num_compilations == 2



def test_a_closed_over_array_changed_during_the_compile_is_traced_again(monkeypatch):
    """The checksum of a closed-over array was taken after the compile, while the
    program holds its value at the trace: another thread's `W -= lr * dW` landing
    during the compile (hundreds of ms) left the program computing with the old W and
    its checksum saying the new one, so every later call returned x @ (the old W)."""
    from aicf.frontend import jitted

    W = rand(3, 3)
    compile_ = jitted._compile

    def compile_while_w_changes(*args, **kwargs):
        W[:] *= 2  # as a training thread would, between the trace and the checksum
        return compile_(*args, **kwargs)

    f = aicf.jit(lambda x: x @ W)
    x = rand(2, 3)
    monkeypatch.setattr(jitted, "_compile", compile_while_w_changes)
    f(x)  # traced with the old W (the first call's result may be either)
    monkeypatch.setattr(jitted, "_compile", compile_)
    np.testing.assert_allclose(f(x), x @ W, rtol=1e-6)
    assert f.num_compilations == 2


@aicf.jit(static_argnums=1)
def _decorated_double_plus(x, k):
    return x * 2 + k


def test_a_decorated_jit_function_pickles_by_its_name():
    """`@aicf.jit` at module level, the common form, raised the raw PicklingError
    "Can't pickle <function ...>: it's not the same object as module.name": the module
    attribute is the jit function, not the function it wraps. It pickles by name now,
    as a function does, and loads as that module's jit function."""
    import pickle
    import subprocess
    import sys

    f = _decorated_double_plus
    assert pickle.loads(pickle.dumps(f)) is f
    x = np.arange(4, dtype=np.float32)
    code = ("import pickle, sys, numpy as np; f = pickle.loads(sys.stdin.buffer.read()); "
            "print(f(np.arange(4, dtype=np.float32), 5).tolist())")
    r = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(f), capture_output=True,
                       cwd=Path(__file__).parent, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert r.stdout.decode().strip() == str((x * 2 + 5).tolist())



def test_a_closed_over_array_reshaped_or_retyped_in_place_is_traced_again():
    """`w.shape = (2, 2)` and `w.dtype = ...` keep the array's bytes, which were all the
    in-place check compared: x + w kept broadcasting against the old (4,) w, silently."""
    w = np.arange(4, dtype=np.float32)
    f = aicf.jit(lambda x: x + w)
    x = np.ones((2, 1), np.float32)
    assert f(x).shape == (2, 4)
    w.shape = (2, 2)
    np.testing.assert_array_equal(f(x), x + w)
    v = np.arange(4, dtype=np.int32)
    g = aicf.jit(lambda x: x * v)
    g(np.ones(4, np.float32))
    v.dtype = np.float32  # the same bits, read as floats
    np.testing.assert_array_equal(g(np.ones(4, np.float32)), np.ones(4, np.float32) * v)


def _double_plus(x, k):
    return x * 2 + k


def test_a_jit_function_copies_as_itself_and_pickles_as_its_function_and_options():
    """deepcopy and pickle raised the raw "cannot pickle '_thread.lock' object"."""
    import copy
    import pickle

    f = aicf.jit(_double_plus, static_argnums=1, cache_size=3, fuse=False)
    x = np.arange(4, dtype=np.float32)
    f(x, 1)
    assert copy.deepcopy(f) is f
    g = pickle.loads(pickle.dumps(f))
    assert g is not f and g.num_compilations == 0
    assert (g.static_argnames, g.cache_size, g.compile_options) == (f.static_argnames, 3, f.compile_options)
    np.testing.assert_array_equal(g(x, 5), x * 2 + 5)


def test_a_closed_over_array_used_through_a_view_changed_in_place_is_traced_again():
    """`x @ W.T`, `b[::-1]`, `d.reshape(...)`: the view the function makes is a
    temporary, freed after the trace with the weak reference watching it, so that a
    later `W += 1` was not seen and every call returned x @ (the old W).T, silently."""
    W = rand(3, 3)
    b = rand(3)
    d = rand(3)
    f = aicf.jit(lambda x: x @ W.T + b[::-1] + d.reshape(1, 3))
    x = rand(2, 3)
    np.testing.assert_allclose(f(x), x @ W.T + b[::-1] + d, rtol=1e-6)
    W += 1
    np.testing.assert_allclose(f(x), x @ W.T + b[::-1] + d, rtol=1e-6)
    b[0] = 100
    np.testing.assert_allclose(f(x), x @ W.T + b[::-1] + d, rtol=1e-6)
    d *= 3
    np.testing.assert_allclose(f(x), x @ W.T + b[::-1] + d, rtol=1e-6)
    assert f.num_compilations == 4
    # only the bytes of the base the view spans are watched: a change outside them in a
    # large buffer neither traces again nor is checksummed whole on every call
    buf = rand(10, 3)
    g = aicf.jit(lambda y: y + buf[7:2:-2, ::-1])
    y = rand(3, 3)
    np.testing.assert_allclose(g(y), y + buf[7:2:-2, ::-1], rtol=1e-6)
    buf[8:] += 1
    buf[:3] += 1
    g(y)
    assert g.num_compilations == 1
    buf[5, 0] += 1
    np.testing.assert_allclose(g(y), y + buf[7:2:-2, ::-1], rtol=1e-6)
    assert g.num_compilations == 2


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_a_closed_over_array_viewed_by_stride_tricks_or_as_a_matrix_base_is_watched():
    """as_strided and sliding_window_view give a view whose base is a DummyArray
    holding the array: the watch stopped at the view, made in the function and freed
    after the trace, so `W += 100` went unseen. An np.matrix base was checksummed over
    rows of its 1 x n reshape, none of them in a view's span past its first bytes."""
    from numpy.lib.stride_tricks import as_strided, sliding_window_view

    W = rand(10)
    f = aicf.jit(lambda x: x + sliding_window_view(W, 3) + as_strided(W, (8, 3), (4, 4)))
    x = rand(8, 3)
    f(x)
    W += 100
    np.testing.assert_allclose(f(x), x + 2 * sliding_window_view(W, 3), rtol=1e-6)
    V = rand(4)
    h = aicf.jit(lambda x: x + np.asarray(memoryview(V)))
    h(V)
    V[2] += 100
    np.testing.assert_allclose(h(V), 2 * V, rtol=1e-6)
    M = np.matrix(rand(2, 3))
    g = aicf.jit(lambda y: y + np.asarray(M)[1])
    y = rand(3)
    g(y)
    M[1, 0] += 100
    np.testing.assert_allclose(g(y), y + np.asarray(M)[1], rtol=1e-6)


@pytest.mark.parametrize("use", ["result", "operand"])
def test_a_closed_over_object_array_is_a_located_error(use):
    """An object array met in a trace raised NumPy's raw "Cannot change data-type for
    array of references" (its checksum was taken before its dtype was checked)."""
    objects = np.array([None, 1.0])
    fn = (lambda x: (x, objects)) if use == "result" else (lambda x: x + objects)
    with pytest.raises(aicf.CompileError, match=r"test_jit\.py:\d+: error: .*unsupported dtype dtype\('O'\)"):
        aicf.jit(fn)(np.ones(2, np.float32))


class _Scaled:
    def __init__(self, w):
        self.w = w

    def __hash__(self):
        return hash(float(self.w))

    def __eq__(self, other):
        return isinstance(other, _Scaled) and self.w == other.w

    @aicf.jit(static_argnums=0)
    def scale(self, x):
        return x * self.w

    @aicf.jit
    def plain(self, x):
        return x


def test_a_jitted_method_is_bound_to_its_instance():
    """`@aicf.jit` on a method: `obj.scale(x)` called the function with x alone, and
    said "scale: missing a required argument: 'x'". The instance is the first argument
    now, as a method's (static here; otherwise an error naming 'self')."""
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(_Scaled(np.float32(2)).scale(x), x * 2)
    np.testing.assert_array_equal(_Scaled(np.float32(3)).scale(x), x * 3)
    np.testing.assert_array_equal(_Scaled.scale(_Scaled(np.float32(5)), x), x * 5)
    assert isinstance(_Scaled.__dict__["scale"], jit_module.JitFunction) and _Scaled.scale is _Scaled.__dict__["scale"]
    with pytest.raises(ArgumentError, match="argument 'self': a _Scaled is not an array"):
        _Scaled(np.float32(2)).plain(x)


def test_an_ordered_dict_keeps_its_order_and_a_defaultdict_its_factory():
    """An OrderedDict was flattened in sorted key order and handed to the function as a
    plain dict: `for w in layers.values()` over layer0..layer10 ran layer10 second,
    silently. It keeps its order now (and is returned as one), as in JAX; a
    defaultdict keeps its default_factory (it became a dict: KeyError)."""
    from collections import OrderedDict, defaultdict

    rng = np.random.default_rng(0)
    layers = OrderedDict((f"layer{i}", rng.standard_normal((3, 3)).astype(np.float32)) for i in range(11))

    def mlp(layers, x):
        for w in layers.values():
            x = np.tanh(x @ w)
        return x

    x = rng.standard_normal((2, 3)).astype(np.float32)
    ref = x.astype(np.float64)
    for w in layers.values():
        ref = np.tanh(ref @ w)
    np.testing.assert_allclose(aicf.jit(mlp)(layers, x), ref, rtol=1e-4, atol=1e-5)
    out = aicf.jit(lambda d: OrderedDict([("z", d["b"]), ("a", d["a"])]))(OrderedDict([("b", x), ("a", x + 1)]))
    assert type(out) is OrderedDict and list(out) == ["z", "a"]
    np.testing.assert_array_equal(out["z"], x)
    counts = defaultdict(list, {"x": x})
    np.testing.assert_array_equal(aicf.jit(lambda d: d["x"] * (len(d["missing"]) + 2))(counts), x * 2)


class _Derived(__import__("collections").namedtuple("_Derived", "a b")):
    """A namedtuple whose constructor derives a field: P(a) is (a, a + 1)."""

    __slots__ = ()

    def __new__(cls, a):
        return super().__new__(cls, a, a + 1)


def test_a_namedtuple_with_its_own_constructor_crosses_jit_as_its_fields():
    """Rebuilt by calling the class with every field, a namedtuple whose __new__ takes
    other arguments raised a raw TypeError, as an argument and as a result."""
    x = rand(3)
    out = aicf.jit(lambda x: _Derived(x))(x)
    assert type(out) is _Derived
    np.testing.assert_array_equal(out.b, x + 1)
    np.testing.assert_allclose(aicf.jit(lambda p: p.a * p.b)(_Derived(x)), x * (x + 1), rtol=1e-6)


def test_a_large_closed_over_array_is_emitted_from_its_bytes(monkeypatch):
    """A constant's C initialiser was made value by value in Python (a list of the
    values, a set of their reprs, an escape per byte): a 256 MB array a jitted
    function closed over took 6 minutes to compile. Its bytes are read whole now."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from aicf.backend.c.emit import emit_c_unit

    W = rand(64, 40)
    W[0, :2] = [-0.0, np.nan]
    Z = np.full((64, 40), -0.0, np.float32)
    I = np.arange(-2000, 2000, dtype=np.int64) * 2**33
    f = aicf.jit(lambda x, i: (x + W, x * Z, i + I))
    x, i = rand(64, 40), np.arange(4000, dtype=np.int64)
    got = f(x, i)
    np.testing.assert_array_equal(got[0], x + W)
    np.testing.assert_array_equal(np.signbit(got[1]), np.signbit(x * Z))
    np.testing.assert_array_equal(got[2], i + I)

    def one_by_one(self):
        raise AssertionError("a large constant read value by value")

    monkeypatch.setattr(DenseIntOrFPElementsAttr, "get_values", one_by_one)
    source = emit_c_unit(f.executable(x, i).module)[0]
    assert "unsigned char b[10240]; float v[2560];" in source  # W, as its bytes
