"""torch.compile(model, backend="aicf") on a small nanoGPT-style module
(examples/gpt2_torch.py): logits against torch eager, every ATen operator of the
model compiled by aicf (the backend's report), one log line for what is left to
torch. Skipped without torch (an optional extra: pip install -e '.[torch]').

    python3 -m pytest -m gpu test/python/test_torch_backend.py    # cuda, on the GPU machine
"""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")

from trace_support import load_example  # noqa: E402

import aicf.torch_backend as backend  # noqa: E402
from gpu_support import gpu  # noqa: E402

G = load_example("gpt2_torch")


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def tiny_model(device="cpu", dtype=torch.float32, **overrides):
    torch.manual_seed(0)
    config = G.GPTConfig(**{**G.CONFIGS["tiny"].__dict__, **overrides})
    return G.GPT(config).to(device, dtype).eval(), config


def test_backend_is_registered_by_name():
    assert "aicf" in torch._dynamo.list_backends()


@pytest.mark.parametrize("batch, seq", [(2, 16), (1, 5)])
def test_gpt_matches_eager_with_every_op_compiled(batch, seq, caplog):
    model, config = tiny_model()
    idx = torch.randint(0, config.vocab_size, (batch, seq))
    with torch.no_grad(), caplog.at_level(logging.WARNING, "aicf.torch_backend"):
        ref = model(idx)
        out = torch.compile(model, backend="aicf", dynamic=False)(idx)
    report = backend.last_report()
    assert report.fallback == {} and not caplog.records
    assert len(report.partitions) == 1  # the whole graph is one aicf program
    ops = report.compiled_ops
    # attention stays one ATen op (not torch's bmm/softmax decomposition): one
    # aicf_tensor.attention per layer
    for op in ("aten.embedding.default", "aten.addmm.default",
               "aten._scaled_dot_product_flash_attention_for_cpu.default",
               "aten.native_layer_norm.default", "aten.gelu.default"):
        assert ops[op] > 0, op  # fmt: skip
    assert "aten.bmm.default" not in ops and "aten._softmax.default" not in ops
    (exe,) = report.executables
    assert sum(op.name == "aicf_loop.attention" for op in exe.module.walk()) == config.n_layer
    assert out.shape == ref.shape and out.dtype == ref.dtype
    assert G.rel_err(out, ref) < 1e-5
    assert torch.equal(out.argmax(-1), ref.argmax(-1))


class WithLogcumsumexp(torch.nn.Module):
    def forward(self, x):
        return torch.logcumsumexp(torch.tanh(x) * 2, dim=-1) + 1


def test_unsupported_operator_is_left_to_torch_with_one_log_line(caplog):
    x = torch.randn(4, 8)
    with torch.no_grad(), caplog.at_level(logging.WARNING, "aicf.torch_backend"):
        out = torch.compile(WithLogcumsumexp(), backend="aicf", dynamic=False)(x)
    lines = [r.getMessage() for r in caplog.records if r.name == "aicf.torch_backend"]
    assert lines == ["aicf: left to torch: aten.logcumsumexp.default (no aicf lowering)"]
    report = backend.last_report()
    assert report.fallback == {"aten.logcumsumexp.default": "no aicf lowering"}
    assert report.compiled_ops["aten.tanh.default"] == 1 and report.compiled_ops["aten.add.Tensor"] == 1
    torch.testing.assert_close(out, WithLogcumsumexp()(x))


def test_graph_needing_gradients_runs_in_torch(caplog):
    model = torch.nn.Linear(8, 4)
    x = torch.randn(2, 8)
    with caplog.at_level(logging.WARNING, "aicf.torch_backend"):
        out = torch.compile(model, backend="aicf")(x)
    assert "needs gradients; aicf compiles inference only" in caplog.records[-1].getMessage()
    out.sum().backward()
    assert model.weight.grad is not None


@pytest.mark.parametrize("fn", [lambda a, b: a / b, lambda a, b: a / 2, lambda a, b: torch.true_divide(b, a + 10)])
def test_integer_true_division_is_torchs(fn):
    """aten.div.Tensor of int tensors went to aicf_tensor.div, C's truncating integer
    division: [-7, 3] / [2, 5] gave [-3., 0.] where torch gives [-3.5, 0.6]."""
    a = torch.tensor([-7, 0, 3, 9], dtype=torch.int32)
    b = torch.tensor([2, 4, 5, 3], dtype=torch.int32)
    with torch.no_grad():
        got = torch.compile(fn, backend="aicf")(a, b)
    want = fn(a, b)
    assert backend.last_report().compiled_ops  # aicf computed it, not torch
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want)


def test_example_runs():
    G.main(["--config", "tiny", "--seq", "8", "--batch", "1"])


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("fn", [lambda x: (x * 2).to("cuda") + 1, lambda x: (x.cuda() * 2).cpu() - 1,
                                lambda x: x.cuda() * torch.tensor(3.0)])  # fmt: skip
def test_a_tensor_moved_between_devices_lands_where_torch_puts_it(fn):
    """A partition runs on its inputs' device: `.to("cuda")` of a cpu tensor inside
    one came back on the cpu. A node whose tensors are on different devices is left to
    torch (a 0-d cpu tensor beside cuda ones is a number, as in torch)."""
    x = torch.randn(8)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x)
    ref = fn(x)
    assert out.device == ref.device
    torch.testing.assert_close(out, ref)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-5), (torch.float16, 1e-2)])
def test_gpt_on_cuda(dtype, tol):
    model, config = tiny_model("cuda", dtype)
    idx = torch.randint(0, config.vocab_size, (2, config.block_size), device="cuda")
    with torch.no_grad():
        ref = model(idx)
        out = torch.compile(model, backend="aicf", dynamic=False)(idx)
    report = backend.last_report()
    assert report.fallback == {} and report.target == "cuda"
    assert out.device.type == "cuda" and out.dtype == dtype
    assert G.rel_err(out, ref) < tol


@gpu
@pytest.mark.gpu
def test_a_forward_in_a_loop_replays_one_graph_into_torchs_outputs():
    """The backend hands the program torch's output tensors: called in a loop, the
    caching allocator gives the same blocks back, so one graph keyed on them replays
    (no graph of the program's own outputs, so nothing is copied out); a result kept
    by the caller is never overwritten by a later call."""
    model, config = tiny_model("cuda", torch.float32)
    compiled = torch.compile(model, backend="aicf", dynamic=False)
    idx = [torch.randint(0, config.vocab_size, (2, config.block_size), device="cuda") for _ in range(2)]
    with torch.no_grad():
        refs = [model(i) for i in idx]
        for _ in range(4):
            compiled(idx[0])
        kept = compiled(idx[0])
        other = compiled(idx[1])
    prog = backend.last_report().executables[0]._program
    assert len(prog._graphs) >= 1 and not prog._static_outs
    assert G.rel_err(kept, refs[0]) < 1e-5 and G.rel_err(other, refs[1]) < 1e-5


@gpu
@pytest.mark.gpu
def test_weights_updated_in_place_are_read_again():
    """The backend keeps CuPy views of the tensors it has met (a model's weights): a
    weight changed in place between two calls is read with its new values, and a new
    input tensor is its own."""
    model, config = tiny_model("cuda", torch.float32)
    compiled = torch.compile(model, backend="aicf", dynamic=False)
    idx = [torch.randint(0, config.vocab_size, (2, config.block_size), device="cuda") for _ in range(2)]
    with torch.no_grad():
        for _ in range(3):
            compiled(idx[0])
        for p in model.parameters():
            p.mul_(0.5).add_(0.01)
        got = [compiled(i) for i in idx]
        refs = [model(i) for i in idx]
    for g_, r in zip(got, refs):
        assert G.rel_err(g_, r) < 1e-5


@gpu
@pytest.mark.gpu
def test_fresh_inputs_are_not_kept_alive():
    """The views of input tensors the backend caches own nothing: a new input tensor
    each call (and the copy `.contiguous()` makes of a strided one) is freed when the
    caller lets it go, so torch's memory does not grow call after call."""
    compiled = torch.compile(lambda x: torch.tanh(x) * 2, backend="aicf", dynamic=False)
    with torch.no_grad():
        for _ in range(3):
            compiled(torch.randn(256, 1024, device="cuda").t())
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        for _ in range(200):
            x = torch.randn(256, 1024, device="cuda").t()  # a strided input: copied
            y = compiled(x)
            assert torch.allclose(y, torch.tanh(x) * 2)
        del x, y
        torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() - before < 8 * 256 * 1024 * 4


@gpu
@pytest.mark.gpu
def test_a_forward_on_a_side_stream_is_ordered_with_it():
    """Under `with torch.cuda.stream(s)` the program runs on s: torch's later work on s
    reads the outputs only after they are written."""
    model, config = tiny_model("cuda", torch.float32)
    compiled = torch.compile(model, backend="aicf", dynamic=False)
    idx = torch.randint(0, config.vocab_size, (2, config.block_size), device="cuda")
    s = torch.cuda.Stream()
    with torch.no_grad():
        ref = model(idx)
        compiled(idx)
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                out = compiled(idx)
                total = out.sum()  # on s, right after the call
        torch.cuda.synchronize()
    assert G.rel_err(out, ref) < 1e-5
    assert torch.isclose(total, ref.sum(), rtol=1e-4)


@pytest.mark.parametrize("op, extra", [
    ("aten._scaled_dot_product_flash_attention.default", {}),
    ("aten._scaled_dot_product_efficient_attention.default", {"attn_bias": None, "compute_log_sumexp": False}),
    ("aten._scaled_dot_product_cudnn_attention.default", {"attn_bias": None, "compute_log_sumexp": False}),
    ("aten.scaled_dot_product_attention.default", {"attn_mask": None}),
])  # fmt: skip
@pytest.mark.parametrize("causal", [True, False])
def test_fused_attention_ops_are_their_math(op, extra, causal):
    """The ops the GPU's dispatch picks for F.scaled_dot_product_attention (no GPU
    needed: traced here on the cpu target) against torch's SDPA."""
    from aicf.torch_backend.aten import ATEN

    import aicf

    q, k, v = (torch.randn(2, 3, 7, 8) for _ in range(3))

    def f(q, k, v):
        out = ATEN[op](q, k, v, *extra.values(), 0.0, causal)
        return out[0] if isinstance(out, tuple) else out

    got = aicf.jit(f)(q.numpy(), k.numpy(), v.numpy())
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert G.rel_err(torch.from_numpy(got), ref) < 1e-5


def test_tuning_is_off_under_torch_compile_unless_asked(monkeypatch):
    """A cold torch.compile does not time kernels (issue 9's compile-time bar) unless
    the user asks: mode="max-autotune", options={"tune": ...} or AICF_TUNE."""
    monkeypatch.delenv("AICF_TUNE", raising=False)
    assert backend.tune_setting(None, None) is False
    assert backend.tune_setting("max-autotune", None) == "auto"
    assert backend.tune_setting(None, {"tune": True}) is True
    assert backend.tune_setting("max-autotune", {"tune": False}) is False
    monkeypatch.setenv("AICF_TUNE", "1")
    assert backend.tune_setting(None, None) is None  # aicf.compile reads AICF_TUNE


def test_compile_options_reach_aicf_compile(monkeypatch):
    import aicf

    seen = []
    real = aicf.compile

    def spy(module, **kw):
        seen.append(kw.get("tune"))
        return real(module, **kw)

    monkeypatch.setattr(aicf, "compile", spy)
    monkeypatch.delenv("AICF_TUNE", raising=False)
    model, config = tiny_model()
    idx = torch.randint(0, config.vocab_size, (1, 8))
    with torch.no_grad():
        torch.compile(model, backend="aicf", dynamic=False)(idx)
        torch._dynamo.reset()
        torch.compile(model, backend="aicf", dynamic=False, options={"tune": "auto"})(idx)
    assert seen == [False, "auto"]


@pytest.mark.parametrize("options, message", [({"tunes": True}, "unknown option(s) tunes"),
                                              ({"tune": "fast"}, "tune must be True, False or 'auto'")])
def test_bad_backend_options_are_named(options, message):
    model, config = tiny_model()
    idx = torch.randint(0, config.vocab_size, (1, 8))
    with torch.no_grad(), pytest.raises(Exception, match=message.replace("(", r"\(").replace(")", r"\)")):
        torch.compile(model, backend="aicf", dynamic=False, options=options)(idx)


@pytest.mark.parametrize("fn", [lambda x: x * 1e5, lambda x: x * 1e-8, lambda x: x / 1e5, lambda x: 1e-3 * x])
def test_a_half_tensor_times_a_python_number_is_computed_in_f32(fn):
    """torch multiplies and divides an f16 tensor by a Python number in f32, rounding
    once: 0.19 * 1e5 is 19360. The number was rounded to f16 first (1e5 to inf, 1e-8
    to 0), so the result was inf or 0."""
    x = torch.tensor([0.19, -0.3, 1000.0, 6.5e4, 3e-3], dtype=torch.float16)
    with torch.no_grad():
        got = torch.compile(fn, backend="aicf")(x)
    assert backend.last_report().compiled_ops  # aicf computed it, not torch
    torch.testing.assert_close(got, fn(x), rtol=1e-3, atol=0)


def test_var_with_a_fractional_correction_is_left_to_torch():
    """torch.var takes a real correction: int() truncated 0.5 to 0 (the population
    variance, 10% off here)."""
    x = torch.randn(3, 5)
    fn = lambda x: torch.var(x * 2, dim=1, correction=0.5)  # noqa: E731
    with torch.no_grad():
        got = torch.compile(fn, backend="aicf")(x)
    torch.testing.assert_close(got, fn(x))


def test_addmm_with_beta_zero_ignores_the_bias():
    """torch.addmm(b, x, w, beta=0) ignores b, NaN and inf included; 0 * NaN made every
    element NaN."""
    bias = torch.tensor([float("nan"), float("inf"), 1.0])
    x, w = torch.randn(2, 4), torch.randn(4, 3)
    fn = lambda b, x, w: torch.addmm(b, x, w, beta=0)  # noqa: E731
    with torch.no_grad():
        got = torch.compile(fn, backend="aicf")(bias, x, w)
    assert backend.last_report().compiled_ops
    torch.testing.assert_close(got, fn(bias, x, w))


@pytest.mark.parametrize("x", [
    torch.tensor([[0.5, 0.0], [0.0, 0.0], [float("nan"), 0.0], [-0.25, 3.0]]),
    torch.tensor([[2**40, 0], [0, 0], [-(2**32), 1]]),
])  # fmt: skip
def test_any_is_true_for_every_nonzero_value(x):
    """aten.any cast its operand to i32 first: 0.5 and 2**40 became 0, so not any."""
    fn = lambda x: x.any(-1)  # noqa: E731
    with torch.no_grad():
        got = torch.compile(fn, backend="aicf")(x)
    assert backend.last_report().compiled_ops
    torch.testing.assert_close(got, fn(x))


def test_outputs_that_are_views_of_one_another_stay_views():
    """y and y.t() returned together share storage in eager (and under inductor):
    aicf computed each into its own array, so writing one no longer showed in the
    other. A view of an intermediate aicf does not lay out as torch does stays torch's."""

    def f(a):
        y = a * 2
        return y, y + 1, y.t(), y[1:]

    def g(a):
        y = a * 2
        return y.t(), y[1:]  # both views of an intermediate that is not returned

    x = torch.randn(4, 6)
    for fn in (f, g):
        torch._dynamo.reset()
        with torch.no_grad():
            got = torch.compile(fn, backend="aicf")(x)
            want = fn(x)
            got[0].add_(100)
            want[0].add_(100)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b)
    assert "laid out as aicf does not" in backend.fallback_line(backend.last_report().fallback)


def test_torch_tensors_and_dtypes_are_trace_examples_and_spec_dtypes():
    """aicf.trace(f, torch.ones(3)) and TensorSpec(shape, torch.float16) said
    "unsupported dtype torch.float32"."""
    import numpy as np

    import aicf

    exe = aicf.compile(aicf.trace(lambda a: a * 2, torch.ones(3)))
    np.testing.assert_array_equal(exe(np.ones(3, np.float32)), np.full(3, 2, np.float32))
    assert aicf.TensorSpec((2,), torch.float16).dtype == "f16"
    assert aicf.TensorSpec((2,), torch.bool).dtype == "i1"
    with pytest.raises(aicf.ArgumentError, match="unsupported dtype torch.int8"):
        aicf.TensorSpec((2,), torch.int8)


def test_a_half_layer_norm_is_computed_in_f32_as_torch_does():
    """torch's layer norm of f16 computes in f32; aicf's took the mean in f16, and
    x - mean carried its rounding error: rows about 100 came out ~14 ulps off (0.027
    at values ~3) where torch is within one."""
    torch.manual_seed(0)
    x = (torch.randn(4, 768) + 100).half()
    model = torch.nn.LayerNorm(768).half().eval()
    with torch.no_grad():
        got = torch.compile(model, backend="aicf")(x)
        want = torch.nn.functional.layer_norm(x.double(), (768,), model.weight.double(), model.bias.double())
    assert backend.last_report().compiled_ops["aten.native_layer_norm.default"] == 1
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.double(), want, rtol=0, atol=2e-3)


_X = torch.tensor([[float("nan"), float("inf"), -0.0, 0.5, -2.5, 1.5], [3.7, -1e-8, 100.0, -0.7, 2.5, -3.5]])
_I = torch.tensor([[-5, 0, 3], [7, -1, 2]])


@pytest.mark.parametrize("fn", [
    torch.log1p, torch.expm1, torch.floor, torch.ceil, torch.trunc, torch.round,
    lambda x: torch.round(x, decimals=1), torch.sign, torch.isnan, torch.sinh, torch.tan,
    torch.reciprocal, lambda x: torch.atan2(x, x.flip(0)), lambda x: torch.asin(torch.tanh(x)),
    lambda x: torch.copysign(torch.ones_like(x), x), lambda x: torch.log2(x.abs()),
    lambda x: torch.gather(x, 1, torch.tensor([[5, 0], [1, 1]])),
    lambda x: torch.gather(x, 0, torch.tensor([[1, 0, 1]])),  # an index smaller than x
    lambda x: torch.sqrt(_I.abs()) + x[:, :3], lambda x: torch.floor(_I) * x[:, :3],
    lambda x: torch.sign(_I) * x[:, :3],
])  # fmt: skip
def test_libm_and_gather_ops_match_eager(fn):
    """ATen's log1p ... round, sign, atan2, gather were left to torch (no lowering);
    each is aicf's now, with torch's semantics (sign of NaN 0, ints to f32, ints
    unchanged by floor)."""
    ref = fn(_X)
    out = torch.compile(fn, backend="aicf", dynamic=False)(_X)
    report = backend.last_report()
    assert report.fallback == {}, report.fallback
    assert out.dtype == ref.dtype and out.shape == ref.shape
    torch.testing.assert_close(out, ref, equal_nan=True, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", [lambda x, n: x * n + n // 2, lambda x, n: x.sum() * x.shape[0] + n])
def test_a_symbolic_scalar_is_left_to_torch_saying_so(fn):
    # a Python int made symbolic (the second value recompiles with it dynamic) reached
    # the partition as an input: "AttributeError: 'SymInt' object has no attribute 'shape'"
    compiled = torch.compile(fn, backend="aicf")
    x = torch.randn(5, 3)
    with torch.no_grad():
        for n in (3, 5):
            assert torch.allclose(compiled(x, n), fn(x, n))
    reasons = set(backend.last_report().fallback.values())
    assert not any("Error" in why for why in reasons), reasons
    assert "a symbolic scalar (compile with dynamic=False)" in reasons
    assert not any(op.startswith("<built-in") for op in backend.last_report().fallback)


@pytest.mark.parametrize("fn", [
    lambda n, x: n / 7 + x,                          # int / int: f64 in torch, was f32
    lambda n, x: n ** 0.5 + (n > 0) * 0.1 + x,       # int ** float, bool * float
    lambda n, x: x + torch.full((4,), 0.1) + torch.arange(0, 0.4, 0.1),  # creation without a dtype
    lambda n, x: torch.exp(n / 2**40) + x,
    lambda n, x: torch.log1p(n) + torch.reciprocal(n) + x,  # aten's _float took f32
])  # fmt: skip
def test_under_a_float64_default_dtype_integers_are_computed_in_float64(fn):
    # torch.set_default_dtype(torch.float64): a float result of integers is f64 and
    # computed so; aicf computed it in f32 and cast the result (2**40 + 1 came out 2**40)
    n = torch.tensor([2**40 + 1, 3, 2**53 - 1, 7])
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        x = torch.zeros(4)
        with torch.no_grad():
            out = torch.compile(fn, backend="aicf", dynamic=False)(n, x)
            ref = fn(n, x)
    finally:
        torch.set_default_dtype(before)
    assert not backend.last_report().fallback
    assert out.dtype == ref.dtype == torch.float64
    torch.testing.assert_close(out, ref, rtol=1e-15, atol=0)


@pytest.mark.parametrize("fn", [lambda n, y: n == y, lambda n, y: n * y])
def test_integers_meet_f16_in_torchs_common_dtype(fn):
    # NumPy's promotion (aicf's) took int64 with f16 to f64: 2049 == f16 2048 was false
    # where torch (which converts 2049 to f16 first: 2048) says true, and 2049 * f16
    # 0.9995 rounded to 2048, not torch's 2047
    n, other = torch.tensor([2049, 2049]), torch.tensor([2048.0, 0.99951171875]).half()
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(n, other)
    assert not backend.last_report().fallback
    assert torch.equal(out, fn(n, other))


def test_a_float_tensor_is_compared_with_a_0d_one_in_its_own_dtype():
    # torch compares f32 with an f64 0-d tensor in f32 (0.1f == 0.1 is true); NumPy's
    # promotion compared in f64, where it is false
    x, s = torch.tensor([0.1, 0.2]), torch.tensor(0.1, dtype=torch.float64)
    with torch.no_grad():
        out = torch.compile(lambda x, s: (x == s, x <= s), backend="aicf", dynamic=False)(x, s)
    assert not backend.last_report().fallback
    assert [o.tolist() for o in out] == [[True, False], [True, False]]


def test_a_float_arange_is_rounded_once():
    # start + i * step was computed in f32: -5 + 13 * 0.37 came out 20 ulps off (torch's
    # kernel, in f64, is within a few)
    import numpy as np

    from aicf.testing import assert_close

    x = torch.zeros(28)
    with torch.no_grad():
        out = torch.compile(lambda x: x + torch.arange(-5, 5, 0.37), backend="aicf", dynamic=False)(x)
    assert not backend.last_report().fallback
    assert_close(out.numpy(), -5 + np.arange(28) * 0.37, ulps=1)


@pytest.mark.parametrize("fn", [
    lambda x, w, i: x.sum(0) * 2, lambda x, w, i: x.softmax(-1) + x.log_softmax(0),
    lambda x, w, i: x.amax(0) + x.mean(-1) + x.var(0, unbiased=False), lambda x, w, i: (x > 0).any(0),
    lambda x, w, i: torch.index_select(w, 0, i) * 2,
])  # fmt: skip
def test_dim_0_of_a_0d_tensor_is_the_tensor_itself(fn):
    # torch reduces a 0-d tensor over dim 0 or -1 as over nothing (and index_select with
    # a 0-d index keeps the dim): "axis 0 is out of range for rank 0" left the whole
    # partition to torch
    args = torch.tensor(3.0), torch.randn(5, 4), torch.tensor(3)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(*args)
    assert not backend.last_report().fallback
    torch.testing.assert_close(out, fn(*args))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_sign_of_nan_is_torchs_zero(dtype):
    # torch.sign is (0 < x) - (x < 0): 0 for NaN on every dtype and path; the lowering
    # kept NaN (NumPy's sign)
    x = torch.tensor([float("nan"), -0.0, 2.0, -3.0, float("-inf")], dtype=dtype)
    with torch.no_grad():
        out = torch.compile(torch.sign, backend="aicf", dynamic=False)(x)
    assert not backend.last_report().fallback
    assert torch.equal(out, torch.sign(x)) and not torch.signbit(out[:2]).any()


@pytest.mark.parametrize("fn", [
    lambda a, b: (a > 0) + (b > 0), lambda a, b: (a > 0) * (b > 0) + True,
    lambda a, b: torch.maximum(a > 0, b > 0) * torch.minimum(a > 0, b < 0),
    lambda a, b: (torch.isfinite(a), torch.isfinite(b)),  # torch's decomposition multiplies bools
])  # fmt: skip
def test_arithmetic_on_bools_is_torchs_logic(fn):
    # aicf has no arithmetic on i1: these partitions were left to torch
    a = torch.tensor([1.0, -1.0, float("inf"), float("nan")])
    b = torch.tensor([1.0, 1.0, -2.0, float("-inf")])
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(a, b)
    assert not backend.last_report().fallback
    ref = fn(a, b)
    for o, r in zip(out if isinstance(out, tuple) else (out,), ref if isinstance(ref, tuple) else (ref,)):
        assert o.dtype == r.dtype and torch.equal(o, r)


_DV = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 2.5, -2.5, 7.0, 1e30, float("inf"), float("-inf"),
                    float("nan"), 3.0, -4.0, 4.0])  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
@pytest.mark.parametrize("fn", [
    torch.remainder, torch.fmod, lambda x, y: x // y, lambda x, y: x % 3,
    lambda x, y: torch.div(x, y, rounding_mode="floor"), lambda x, y: torch.div(x, y, rounding_mode="trunc"),
])  # fmt: skip
def test_float_and_integer_division_modes_match_eager(fn, dtype):
    """remainder, fmod, floor_divide and div with a rounding_mode were left to torch
    (float // and % had no aicf operator); they are torch's bit for bit, zeros' signs
    included (remainder keeps fmod's, where NumPy's takes the divisor's)."""
    if dtype == torch.int64:
        x = torch.arange(-12, 12)
        y = torch.tensor([5, -3, 2, -7]).repeat(6)
    else:
        x, y = _DV.repeat(len(_DV)).to(dtype), _DV.repeat_interleave(len(_DV)).to(dtype)
    ref = fn(x, y)
    out = torch.compile(fn, backend="aicf", dynamic=False)(x, y)
    assert backend.last_report().fallback == {}
    assert out.dtype == ref.dtype
    torch.testing.assert_close(out, ref, equal_nan=True, rtol=0, atol=0)
    zero = ref == 0
    assert torch.equal(torch.signbit(out[zero]), torch.signbit(ref[zero]))


@pytest.mark.parametrize("dtype,decimals", [
    (torch.float32, -3), (torch.float64, -1), (torch.float16, -2), (torch.float16, 2), (torch.float16, 1),
])  # fmt: skip
def test_round_with_decimals_scales_as_torch(dtype, decimals):
    # torch divides by 10**-decimals for negative decimals (x * 0.001 made 1234.5678
    # 999.99994, not 1000; -474.99999999999994 * 0.1 rounds to the tie -47.5) and scales
    # f16 in f32 (1234.5 * 100 overflowed f16 to inf)
    x = torch.linspace(-1000, 1000, 20001, dtype=torch.float64).to(dtype)
    x = torch.cat([x, torch.tensor([1234.5678, 2.5, 0.125], dtype=dtype)])
    fn = lambda x: torch.round(x, decimals=decimals)  # noqa: E731
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x)
    assert not backend.last_report().fallback
    assert torch.equal(out, fn(x))


@pytest.mark.parametrize("fn,dtype,other", [
    (lambda x, s: x * s, torch.float32, torch.float64), (lambda x, s: x + s, torch.float32, torch.float64),
    (lambda x, s: x / s, torch.float32, torch.float64), (lambda x, s: x + s, torch.float16, torch.float32),
    (lambda x, s: s * x, torch.float16, torch.float32), (lambda x, s: x * s, torch.float16, torch.float64),
])  # fmt: skip
def test_a_0d_tensor_of_another_float_dtype_is_converted_as_torch_does(fn, dtype, other):
    # torch converts the 0-d tensor to the result's dtype first (x * 0.1f for an f32 x),
    # except as mul's or div's second operand of an f16 tensor, taken in f32; NumPy's
    # promotion (aicf's) computed in the wider dtype and rounded: an ulp off torch
    x, s = torch.randn(2000).to(dtype), torch.tensor(1e-3 + 1e-7, dtype=other)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x, s)
    assert not backend.last_report().fallback
    assert torch.equal(out, fn(x, s))


@pytest.mark.parametrize("fn", [
    lambda x, z: torch.maximum(x, z), lambda x, z: torch.minimum(z, x), lambda x, z: torch.minimum(x, -z),
    lambda x, z: x.clamp(0.0, 1.0), lambda x, z: x.clamp(max=-0.0), lambda x, z: torch.maximum(z, x),
    lambda x, z: torch.relu(x), lambda x, z: torch.nn.functional.relu(x - z),
    lambda x, z: torch.nn.functional.relu(x * 1, inplace=True),
])  # fmt: skip
def test_maximum_minimum_and_clamp_keep_the_first_of_equal_zeros(fn):
    # torch keeps the first operand where they compare equal: maximum(-0.0, 0.0) is -0.0,
    # clamp(-0.0, 0.0) too, and relu(-0.0) (its clamp_min(x, 0)); aicf's maximum and
    # relu (NumPy's maximum(x, 0)) keep the second
    x, z = torch.tensor([-0.0, 0.0, float("nan"), -1.0, 2.0]), torch.tensor([0.0, -0.0, 0.0, -0.0, 0.0])
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x, z)
    assert not backend.last_report().fallback
    ref = fn(x, z)
    assert torch.equal(out.nan_to_num(), ref.nan_to_num()) and torch.equal(out.signbit(), ref.signbit())


@pytest.mark.parametrize("fn", [lambda x, i: x.gather(0, i), lambda x, i: x.gather(-1, i.expand(3)) * 2])
def test_gather_from_a_0d_tensor(fn):
    # torch gathers from a 0-d tensor (dim 0 or -1); its partition was left to torch
    # with "axis 0 is out of range for rank 0"
    x, i = torch.tensor(3.0), torch.tensor(0)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x, i)
    assert not backend.last_report().fallback, backend.last_report().fallback
    assert torch.equal(out, fn(x, i))


@pytest.mark.parametrize("fn", [
    torch.prod, lambda x: x.prod(1), lambda x: torch.prod(x, -1, keepdim=True), lambda x: x.amin(1),
    lambda x: torch.amin(x, (0, 1), keepdim=True), lambda x: _I.prod(0) + x[0, :3], lambda x: _I.prod(),
    lambda x: (x > 0).prod(1), lambda x: _I.to(torch.int32).prod(1), lambda x: _I.amin(-1),
    lambda x: x[:, :0].prod(1), lambda x: x.cumsum(1), lambda x: torch.cumprod(x, 0), lambda x: _I.cumsum(-1),
    lambda x: (x > 0).cumsum(1), lambda x: x[0, 0].cumsum(0), lambda x: x.cumsum(0, dtype=torch.float64),
    # position ids of a padded batch, as HF models compute them from the attention mask
    lambda x: (x.isfinite().long().cumsum(-1) - 1).masked_fill(x.isnan(), 1),
])  # fmt: skip
def test_prod_amin_and_cumsum_match_eager(fn):
    """aten.prod and aten.cumsum were left to torch; prod, amin, cumsum and cumprod are
    aicf's reduce_prod, reduce_min and scans, with torch's dtypes (bool and int32
    products and running sums are int64)."""
    ref = fn(_X)
    out = torch.compile(fn, backend="aicf", dynamic=False)(_X)
    assert backend.last_report().fallback == {}, backend.last_report().fallback
    assert out.dtype == ref.dtype and out.shape == ref.shape
    torch.testing.assert_close(out, ref, equal_nan=True, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", [
    lambda x, s: x.half(), lambda x, s: x.to(torch.float16) * 2,
    lambda x, s: torch.zeros(4, dtype=torch.float16) + s, lambda x, s: torch.maximum(x.half(), s),
])  # fmt: skip
def test_float64_becomes_float16_through_float32_as_in_torch(fn):
    # c10::Half is made from a float: torch rounds an f64 to f32 first, then to f16, so
    # 2049 + 1e-9 (above the f16 midpoint 2049, on it as an f32) is 2048; aicf's cast
    # rounds once (NumPy's: 2050)
    x = torch.tensor([2049.0, 1.00048828125, 65519.99, -2049.0], dtype=torch.float64) + 1e-9
    s = torch.tensor(2049.0 + 1e-9, dtype=torch.float64)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x, s)
    assert not backend.last_report().fallback, backend.last_report().fallback
    assert torch.equal(out, fn(x, s))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("exponent", [2, 3, -0.5, -1, -2.0])
def test_pow_of_the_exponents_torch_computes_otherwise(dtype, exponent):
    # torch's pow kernel computes these exponents as x * x, x * x * x, sqrt, rsqrt,
    # 1 / x and 1 / (x * x): C's pow gave (-0.0) ** -0.5 = inf (torch: -inf),
    # (-inf) ** -0.5 = 0 (torch: NaN), and x ** 3 and x ** -0.5 an ulp off (0.5 is not
    # here: aicf's x ** 0.5 was sqrt already, and torch's cpu sqrt (MKL's) is not always
    # correctly rounded)
    torch.manual_seed(0)
    x = torch.cat([torch.tensor([0.0, -0.0, float("inf"), float("-inf"), 1e-30, -2.0, 7.0]),
                   torch.randn(500) * 5]).to(dtype)  # fmt: skip
    fn = lambda x: x**exponent  # noqa: E731
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x)
    assert not backend.last_report().fallback, backend.last_report().fallback
    ref = fn(x)
    assert torch.equal(out.isnan(), ref.isnan())
    assert torch.equal(out.nan_to_num(), ref.nan_to_num())
    assert torch.equal(out.signbit() & ~out.isnan(), ref.signbit() & ~ref.isnan())


@pytest.mark.parametrize("op, ref", [
    (torch.ops.aten._softmax.default, torch.softmax), (torch.ops.aten._log_softmax.default, torch.log_softmax),
])  # fmt: skip
def test_a_half_softmax_asked_for_in_float_is_computed_in_float(op, ref):
    # CUDA's F.softmax(x_half, dim, dtype=torch.float32) is _softmax(x, dim, half_to_float=True):
    # aicf computed it in f16 and made only the result f32 (log_softmax 1e-2 off)
    from torch.fx.experimental.proxy_tensor import make_fx

    from aicf.torch_backend.partition import compile_graph

    torch.manual_seed(0)
    x = (torch.randn(4, 300) * 4).half()
    gm = make_fx(lambda x: op(x, -1, True), tracing_mode="fake")(x)
    report = backend.Report()
    out = compile_graph(gm, [x], report)(x)
    assert not report.fallback and len(report.partitions) == 1
    torch.testing.assert_close(out, ref(x.float(), -1), atol=1e-6, rtol=1e-5)


def _rotary_attention_mask(x, mask):
    # what HF llama-style code writes: inv_freq = 1 / base ** (arange / dim), the
    # attention mask inverted with ~ and combined with the causal one with &, relu6
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2, dtype=torch.int64).float() / 8))
    angles = (mask.long().cumsum(-1) - 1)[..., None].float() * inv_freq
    keep = torch.ones(5, 5, dtype=torch.bool).tril() & mask[:, None, :].bool()
    scores = (x[:, :, None, :4] * angles.cos()[:, None]).sum(-1).masked_fill(~keep, float("-inf"))
    return torch.softmax(scores, -1), torch.nn.functional.relu6(x * 4), keep ^ mask[:, :, None].bool()


@pytest.mark.parametrize("fn", [
    _rotary_attention_mask,
    lambda x, mask: (~mask, ~(x > 0), (x > 0) | mask[..., None].bool(), torch.nn.functional.hardtanh(x, -0.5, 0.5)),
    lambda x, mask: (2 ** x, 1.0 ** (x * float("nan")), 0.5 ** mask),
])  # fmt: skip
def test_bool_bitwise_ops_hardtanh_and_scalar_pow_compile(fn):
    # ~mask, mask & causal, 10000 ** (arange / dim) and relu6 were left to torch (no aicf
    # lowering), splitting a llama-style block into several partitions
    torch.manual_seed(0)
    x, mask = torch.randn(2, 5, 8), torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x, mask)
    assert backend.last_report().fallback == {}, backend.last_report().fallback
    assert len(backend.last_report().partitions) == 1
    for o, r in zip(out, fn(x, mask)):
        assert o.dtype == r.dtype
        torch.testing.assert_close(o, r, equal_nan=True, rtol=1e-6, atol=1e-7)


def test_integer_bitwise_and_is_left_to_torch_alone():
    # aicf has & | ^ on bools only: on integers the node is torch's, not its partition
    fn = lambda x: (x.long() & 3) + x.long().cumsum(0)  # noqa: E731
    x = torch.arange(-4.0, 4.0)
    with torch.no_grad():
        out = torch.compile(fn, backend="aicf", dynamic=False)(x)
    report = backend.last_report()
    assert report.fallback == {"aten.bitwise_and.Scalar": "bitwise operator on integers (aicf has it on bools only)"}
    assert report.compiled_ops["aten.cumsum.default"] == 1
    assert torch.equal(out, fn(x))
