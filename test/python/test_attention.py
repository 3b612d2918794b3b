"""aicf_tensor.attention on the cpu target (cpu.attention: tiles and an online
softmax) against softmax(q k^T * scale + mask) v in NumPy float64, and the programs
that aicf-recognize-attention turns into it; GPU tests of the cuda path (the
decomposition) are marked gpu.

    python3 -m pytest test/python/test_attention.py
    python3 -m pytest -m gpu test/python/test_attention.py   # on a GPU machine
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from trace_support import load_example

import aicf
from aicf.dtypes import f32_to_bf16_bits
from aicf.reference import bf16_bits_to_f64

from gpu_support import cp, gpu

RNG = np.random.default_rng(11)


def reference(q, k, v, mask=None, scale=None, causal=False):
    """Scaled dot-product attention in float64, torch's semantics: a bool mask keeps
    where true, a float mask is added, causal keeps j <= i, a row with nothing kept
    gives 0."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask
    if causal:
        i, j = np.indices(s.shape[-2:])
        s = np.where(j <= i, s, -np.inf)
    out = np.zeros((*s.shape[:-1], v.shape[-1]))
    rows = np.isfinite(s).any(-1)
    with np.errstate(invalid="ignore"):
        m = np.where(rows, s.max(-1), 0)[..., None]
        e = np.exp(s - m)
        p = e / e.sum(-1, keepdims=True)
    out = np.where(rows[..., None], p @ v, 0.0)
    return out


def rel_err(out, ref) -> float:
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any()
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-300))


# dtype -> (MLIR name, how an f32 array is passed, the values it holds, the bar)
DTYPES = {
    "f32": (lambda a: a, lambda a: a.astype(np.float64), 1e-5),
    "f16": (lambda a: a.astype(np.float16), lambda a: a.astype(np.float64), 5e-3),
    "bf16": (f32_to_bf16_bits, bf16_bits_to_f64, 5e-3),
}


def tensor_type(shape, dt):
    return "tensor<" + "x".join(map(str, shape)) + f"x{dt}>"


def attention_program(qshape, kshape, vshape, dt, scale, causal=False, mask=None, perms=""):
    """A module of one aicf_tensor.attention; `mask` is (shape, dtype)."""
    args = [("%q", tensor_type(qshape, dt)), ("%k", tensor_type(kshape, dt)), ("%v", tensor_type(vshape, dt))]
    if mask is not None:
        args.append(("%m", tensor_type(*mask)))
    names = ", ".join(n for n, _ in args)
    types = ", ".join(t for _, t in args)
    flags = " causal" if causal else ""
    return (
        f"func.func @f({', '.join(f'{n}: {t}' for n, t in args)}) -> tensor<*x{dt}> {{\n"
        f"  %o = aicf_tensor.attention {names} scale = {float(scale)!r}{flags}{perms} : ({types}) -> tensor<*x{dt}>\n"
        f"  func.return %o : tensor<*x{dt}>\n}}\n"
    )


def random(shape, dt):
    to_arg, values, _ = DTYPES[dt]
    a = to_arg(RNG.standard_normal(shape).astype(np.float32))
    return a, values(a)


@pytest.mark.parametrize("dt", sorted(DTYPES))
@pytest.mark.parametrize("seq, head", [(1, 64), (7, 64), (7, 128), (1000, 64), (1000, 128)])
@pytest.mark.parametrize("causal", [False, True])
def test_cpu_matches_float64(dt, seq, head, causal):
    shape = (2, 2, seq, head) if seq < 1000 else (1, 2, seq, head)
    scale = 1 / math.sqrt(head)
    exe = aicf.compile(attention_program(shape, shape, shape, dt, scale, causal), target="cpu")
    (q, q64), (k, k64), (v, v64) = (random(shape, dt) for _ in range(3))
    out = exe(q, k, v)
    out64 = DTYPES[dt][1](out)
    assert rel_err(out64, reference(q64, k64, v64, scale=scale, causal=causal)) < DTYPES[dt][2]


def test_rows_that_keep_one_key_and_a_row_that_keeps_none():
    """Each row of an i1 mask keeps one key (chosen at random), the last keeps none
    (torch gives 0 there); the additive -inf form gives the same."""
    sq, sk, d = 9, 13, 64
    q, k, v = (RNG.standard_normal((2, n, d)).astype(np.float32) for n in (sq, sk, sk))
    keep = np.zeros((2, sq, sk), np.bool_)
    keep[:, np.arange(sq), RNG.integers(0, sk, sq)] = True
    keep[:, -1] = False
    ref = reference(q, k, v, keep, scale=0.125)
    assert np.all(ref[:, -1] == 0)
    for mask, mdt in ((keep, "i1"), (np.where(keep, 0, -np.inf).astype(np.float32), "f32")):
        src = attention_program((2, sq, d), (2, sk, d), (2, sk, d), "f32", 0.125, mask=((2, sq, sk), mdt))
        out = aicf.compile(src, target="cpu")(q, k, v, mask)
        assert rel_err(out, ref) < 1e-5
        assert np.all(out[:, -1] == 0)
        # a row keeping one key is that key's value row exactly (up to f32 rounding)
        j = keep[0, 0].argmax()
        np.testing.assert_allclose(out[0, 0], v[0, j], rtol=1e-6)


def test_all_but_one_masked_under_causal_and_f16():
    """f16 with f32 softmax: scores far apart (one row's kept key dominates) and a
    causal mask beside a key-padding mask that leaves one key in the first rows."""
    sq = sk = 33
    d = 64
    (q, q64), (k, k64), (v, v64) = (random((3, n, d), "f16") for n in (sq, sk, sk))
    pad = np.ones((3, 1, sk), np.bool_)
    pad[:, :, 1:5] = False  # rows 0..4 keep only key 0 (causal keeps j <= i)
    src = attention_program((3, sq, d), (3, sk, d), (3, sk, d), "f16", 1.0, causal=True, mask=((3, 1, sk), "i1"))
    out = aicf.compile(src, target="cpu")(q, k, v, pad)
    ref = reference(q64, k64, v64, pad, scale=1.0, causal=True)
    assert rel_err(out.astype(np.float64), ref) < 5e-3
    np.testing.assert_array_equal(out[:, :5], np.broadcast_to(v[:, :1], out[:, :5].shape))


def test_batch_dims_broadcast_and_layouts():
    """Q [batch, heads, Sq, D] against K, V shared over the batch, a key-padding mask
    per batch entry, V read as [heads, seq, dim] from [seq, heads, dim] storage."""
    b, h, sq, sk, d, dv = 2, 3, 10, 12, 16, 8
    q = RNG.standard_normal((b, h, sq, d)).astype(np.float32)
    k = RNG.standard_normal((h, sk, d)).astype(np.float32)
    v_shd = RNG.standard_normal((sk, h, dv)).astype(np.float32)
    mask = RNG.standard_normal((b, 1, 1, sk)).astype(np.float32)
    src = attention_program((b, h, sq, d), (h, sk, d), (sk, h, dv), "f32", 0.3, mask=((b, 1, 1, sk), "f32"),
                            perms=" v_perm = [1, 0, 2]")
    out = aicf.compile(src, target="cpu")(q, k, v_shd, mask)
    assert out.shape == (b, h, sq, dv)
    ref = reference(q, k, np.transpose(v_shd, (1, 0, 2)), mask, scale=0.3)
    assert rel_err(out, ref) < 1e-5


@pytest.mark.parametrize("block_q, block_k, parallel",
                         [(1, 1, 0), (5, 3, 1), (64, 256, 2), (7, 17, 3), (10**6, 1, 0), (2**40, 2**40, 1)])
def test_tiles_that_do_not_divide_the_sequences(block_q, block_k, parallel):
    """A hand-written cpu.attention schedule is what runs: every tiling gives the same
    result, causal tiles included; a tile longer than its sequence is the sequence (its
    stack arrays were sized by the tile: a segfault, or a C compiler error)."""
    sq, sk, d = 23, 31, 24
    src = f"""func.func @f(%q: memref<2x3x{sq}x{d}xf32>, %k: memref<2x3x{sk}x{d}xf32>, %v: memref<2x3x{sk}x{d}xf32>, %o: memref<2x3x{sq}x{d}xf32>) attributes {{aicf.num_outputs = 1 : i64}} {{
  aicf_loop.attention scale = 0.2 causal ins(%q, %k, %v : memref<2x3x{sq}x{d}xf32>, memref<2x3x{sk}x{d}xf32>, memref<2x3x{sk}x{d}xf32>) outs(%o : memref<2x3x{sq}x{d}xf32>) {{aicf.schedule = {{kind = "cpu.attention", block_q = {block_q} : i64, block_k = {block_k} : i64, parallel = {parallel} : i64}}}}
  func.return
}}"""
    q, k, v = (RNG.standard_normal((2, 3, n, d)).astype(np.float32) for n in (sq, sk, sk))
    out = aicf.compile(src, target="cpu")(q, k, v)
    assert rel_err(out, reference(q, k, v, scale=0.2, causal=True)) < 1e-5


# --- recognised programs ------------------------------------------------------------------


def _softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def picogpt_attention(q, k, v):
    mask = (1 - np.tri(q.shape[0])) * -1e10
    return _softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def unshifted_attention(q, k, v):
    e = np.exp(np.matmul(q * 0.125, np.swapaxes(k, -1, -2)))
    return e / e.sum(-1, keepdims=True) @ v


def where_attention(q, k, v, keep):
    s = np.where(keep, q @ np.transpose(k, (0, 2, 1)) * 0.25, -np.inf)
    return _softmax(s) @ v


def attention_nodes(exe) -> int:
    return sum(op.name == "aicf_loop.attention" for op in exe.module.walk())


def score_buffers(exe, n: int) -> list[str]:
    """Allocations of at least n x n elements (a score matrix)."""
    from xdsl.dialects import memref

    return [str(op.memref.type) for op in exe.module.walk()
            if isinstance(op, memref.AllocOp) and math.prod(op.memref.type.get_shape()) >= n * n]  # fmt: skip


@pytest.mark.parametrize("fn, shapes, extra", [
    (picogpt_attention, [(512, 64)] * 3, ()),
    (unshifted_attention, [(2, 65, 32)] * 3, ()),
    (where_attention, [(2, 40, 32)] * 3, (np.tri(40, dtype=np.bool_) | (RNG.random((40, 40)) < 0.5),)),
])  # fmt: skip
def test_recognised_programs_run_as_one_attention(fn, shapes, extra):
    args = [RNG.standard_normal(s).astype(np.float32) for s in shapes] + list(extra)
    jitted = aicf.jit(fn, target="cpu")
    out = jitted(*args)
    ref = fn(*[a.astype(np.float64) if a.dtype == np.float32 else a for a in args])
    assert rel_err(out, ref) < 1e-5
    exe = jitted.executable(*args)
    assert attention_nodes(exe) == 1
    n = shapes[0][-2]
    assert score_buffers(exe, n) == []  # no seq x seq buffer anywhere
    explain = exe.explain()
    assert "attention softmax" in explain and "cpu.attention" in explain


def test_near_miss_is_explained():
    """The mask added before the scale would be scaled by it: not matched, and
    exe.explain() says so at the user's line."""

    def mask_first(q, k, v, m):
        return _softmax((q @ k.T + m) * 0.125) @ v  # MASK-FIRST

    args = [RNG.standard_normal((8, 16)).astype(np.float32) for _ in range(3)]
    args.append(RNG.standard_normal((8, 8)).astype(np.float32))
    jitted = aicf.jit(mask_first, target="cpu")
    out = jitted(*args)
    assert rel_err(out, mask_first(*[a.astype(np.float64) for a in args])) < 1e-5
    exe = jitted.executable(*args)
    assert attention_nodes(exe) == 0
    from trace_support import line_of

    line = line_of(__file__, "MASK-FIRST")
    assert any(f"{__file__}:{line}:" in ln and "not matched: the mask is added before the scale" in ln
               for ln in exe.explain().splitlines())  # fmt: skip


def test_ops_attention_traces_to_the_op():
    from aicf import ops

    def f(q, k, v):
        return ops.attention(q, k, v, causal=True)

    q, k, v = (RNG.standard_normal((2, 5, 8)).astype(np.float32) for _ in range(3))
    module = aicf.trace(f, q, k, v)
    (att,) = [op for op in module.walk() if op.name == "aicf_tensor.attention"]
    assert att.is_causal and att.scale_value == 1 / math.sqrt(8)
    out = aicf.compile(module, target="cpu")(q, k, v)
    assert rel_err(out, reference(q, k, v, causal=True)) < 1e-5


def test_reference_semantics_of_the_op():
    """The golden reference (the tensor interpreter in float64) computes the op as
    the NumPy formula here does, fully masked rows and layouts included."""
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.reference import evaluate

    q = RNG.standard_normal((3, 4, 8))
    kt = RNG.standard_normal((3, 8, 6))
    v = RNG.standard_normal((3, 6, 5))
    keep = RNG.random((3, 4, 6)) < 0.5
    keep[1, 2] = False
    src = attention_program((3, 4, 8), (3, 8, 6), (3, 6, 5), "f64", 0.7, causal=True, mask=((3, 4, 6), "i1"),
                            perms=" k_perm = [0, 2, 1]")
    (out,) = evaluate(parse_module(make_context(), src), "f", q, kt, v, keep)
    ref = reference(q, np.swapaxes(kt, -1, -2), v, keep, scale=0.7, causal=True)
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-14)


def test_decomposition_keeps_the_semantics():
    """aicf-decompose-attention (the cuda target's attention) computes what the op
    does, a row masked out entirely (0) and f16 operands included: both through the
    float64 reference, so this holds without a GPU."""
    from aicf.compiler import run_pipeline
    from aicf.context import make_context
    from aicf.diagnostics import parse_module
    from aicf.reference import evaluate

    keep = RNG.random((2, 5, 7)) < 0.6
    keep[0, 3] = False
    src = attention_program((2, 5, 8), (2, 7, 8), (2, 7, 4), "f16", 0.4, causal=True, mask=((2, 5, 7), "i1"))
    args = [RNG.standard_normal(s).astype(np.float16) for s in ((2, 5, 8), (2, 7, 8), (2, 7, 4))] + [keep]
    module = parse_module(make_context(), src)
    run_pipeline(module, ["aicf-infer-shapes"])
    (op_value,) = evaluate(module, "f", *args)
    run_pipeline(module, ["aicf-decompose-attention"])
    assert not any(op.name == "aicf_tensor.attention" for op in module.walk())
    (decomposed,) = evaluate(module, "f", *args)
    assert np.all(decomposed[0, 3] == 0) and not np.isnan(decomposed).any()
    # the decomposition rounds the scores and the weights to f16 as the user's
    # spelling would; the op's value is the f32-softmax one
    assert rel_err(decomposed, op_value) < 5e-3


# --- the GPT-2 examples ---------------------------------------------------------------------


def test_picogpt_gets_one_attention_per_head():
    G = load_example("gpt2_numpy")
    cfg = {**G.CONFIGS["tiny"], "n_layer": 2}
    params = G.init_params(**cfg)
    inputs = RNG.integers(0, cfg["n_vocab"], 24)
    model = aicf.jit(G.gpt2, target="cpu", static_argnames="n_head")
    out = model(inputs, **params, n_head=cfg["n_head"])
    ref = G.gpt2(inputs, **G.as_float64(params), n_head=cfg["n_head"])
    assert rel_err(out, ref) < 1e-4
    exe = model.executable(inputs, **params, n_head=cfg["n_head"])
    assert attention_nodes(exe) == cfg["n_layer"] * cfg["n_head"]
    lines = [ln for ln in exe.explain().splitlines() if ": attention " in ln]
    assert len(lines) == cfg["n_layer"] * cfg["n_head"]
    assert all("causal (additive mask)" in ln and "gpt2_numpy.py" in ln for ln in lines)


def test_torch_gpt2_gets_the_op():
    torch = pytest.importorskip("torch")
    import aicf.torch_backend as backend

    G = load_example("gpt2_torch")
    torch.manual_seed(0)
    config = G.CONFIGS["tiny"]
    model = G.GPT(config).eval()
    idx = torch.randint(0, config.vocab_size, (2, 24))
    with torch.no_grad():
        ref = model(idx)
        out = torch.compile(model, backend="aicf", dynamic=False)(idx)
    assert G.rel_err(out, ref) < 1e-5
    (exe,) = backend.last_report().executables
    assert attention_nodes(exe) == config.n_layer


def test_torch_sdpa_masks_match_torch():
    """scaled_dot_product_attention with a bool mask that masks a row out entirely
    (torch gives 0 there) and with a float mask, through the torch backend."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    q, k, v = (torch.randn(2, 3, 6, 16) for _ in range(3))
    keep = torch.rand(6, 6) < 0.5
    keep[2] = False
    bias = torch.randn(2, 1, 6, 6)
    for mask in (keep, bias):
        with torch.no_grad():
            ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            out = torch.compile(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
                                backend="aicf", dynamic=False)(q, k, v, mask)  # fmt: skip
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_torch_eager_attention_is_recognised():
    """Attention written out as HF GPT-2's eager path does (matmul of 4-D tensors, a
    tril of ones filled with finfo.min, an additive padding mask, softmax, matmul)
    becomes one op through torch.compile(backend="aicf")."""
    torch = pytest.importorskip("torch")
    import aicf.torch_backend as backend

    class Eager(torch.nn.Module):
        def forward(self, q, k, v, pad):
            w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], math.sqrt(q.size(-1)))
            causal = torch.tril(torch.ones(q.size(-2), q.size(-2), dtype=torch.bool))
            w = torch.where(causal, w, torch.finfo(w.dtype).min) + pad
            return torch.matmul(torch.nn.functional.softmax(w, dim=-1), v)

    q, k, v = (torch.randn(2, 3, 10, 16) for _ in range(3))
    pad = torch.zeros(2, 1, 1, 10)
    pad[1, ..., 7:] = torch.finfo(torch.float32).min
    with torch.no_grad():
        ref = Eager()(q, k, v, pad)
        out = torch.compile(Eager(), backend="aicf", dynamic=False)(q, k, v, pad)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    (exe,) = backend.last_report().executables
    assert attention_nodes(exe) == 1
    assert any("causal (computed i1 mask)" in ln for ln in exe.explain().splitlines())


# --- cuda (the decomposition until a flash schedule exists) ----------------------------------


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("seq, head, causal", [(1, 64, True), (7, 128, False), (1000, 64, True), (1000, 128, False)])
def test_cuda_matches_float64(dt, seq, head, causal):
    shape = (2, 2, seq, head)
    scale = 1 / math.sqrt(head)
    src = attention_program(shape, shape, shape, dt, scale, causal)
    exe = aicf.compile(src, target="cuda")
    assert any(p.startswith("aicf-decompose-attention") for p in exe.pipeline)
    (q, q64), (k, k64), (v, v64) = (random(shape, dt) for _ in range(3))
    out = cp.asnumpy(exe(q, k, v))
    assert rel_err(DTYPES[dt][1](out), reference(q64, k64, v64, scale=scale, causal=causal)) < DTYPES[dt][2]
    cpu = aicf.compile(src, target="cpu")(q, k, v)
    assert rel_err(DTYPES[dt][1](out), DTYPES[dt][1](cpu)) < DTYPES[dt][2]


@gpu
@pytest.mark.gpu
def test_cuda_masked_rows_give_zero():
    sq, sk, d = 17, 29, 64
    q, k, v = (RNG.standard_normal((2, n, d)).astype(np.float32) for n in (sq, sk, sk))
    keep = np.zeros((2, sq, sk), np.bool_)
    keep[:, np.arange(sq), RNG.integers(0, sk, sq)] = True
    keep[:, 3] = False
    src = attention_program((2, sq, d), (2, sk, d), (2, sk, d), "f32", 0.125, mask=((2, sq, sk), "i1"))
    out = cp.asnumpy(aicf.compile(src, target="cuda")(q, k, v, keep))
    assert rel_err(out, reference(q, k, v, keep, scale=0.125)) < 1e-5
    assert np.all(out[:, 3] == 0)


@gpu
@pytest.mark.gpu
def test_cuda_picogpt_attention_matches_cpu():
    args = [RNG.standard_normal((256, 64)).astype(np.float32) for _ in range(3)]
    out = cp.asnumpy(aicf.jit(picogpt_attention, target="cuda")(*args))
    cpu = aicf.jit(picogpt_attention, target="cpu")(*args)
    assert rel_err(out, picogpt_attention(*[a.astype(np.float64) for a in args])) < 1e-5
    assert rel_err(out, cpu) < 1e-5
