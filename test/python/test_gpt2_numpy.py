"""picoGPT's gpt2.py functions (examples/gpt2_numpy.py), traced unchanged by aicf.jit,
against the same functions run by NumPy in float64: each function alone, then the
whole model with its embedding lookup (wte[inputs] + wpe[range(len(inputs))]) on
int64 token ids. cpu here; cuda marked gpu:

    python3 -m pytest -m gpu test/python/test_gpt2_numpy.py
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_support import load_example

import aicf

from gpu_support import cp, gpu

G = load_example("gpt2_numpy")
RNG = np.random.default_rng(5)
N_SEQ, N_EMBD, N_HEAD = 12, 32, 4
TINY = G.CONFIGS["tiny"]


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def lin(n_in, n_out):
    return {"w": rand(n_in, n_out) / np.float32(np.sqrt(n_in)), "b": rand(n_out)}


def block_params():
    return G.init_params(**{**TINY, "n_layer": 1}, seed=3)["blocks"][0]


CASES = {  # function -> (positional arrays, keyword arrays, static keywords)
    "gelu": ((rand(N_SEQ, N_EMBD),), {}, {}),
    "softmax": ((rand(N_SEQ, N_EMBD) * 3,), {}, {}),
    "layer_norm": ((rand(N_SEQ, N_EMBD) * 2 + 1, rand(N_EMBD), rand(N_EMBD)), {}, {}),
    "linear": ((rand(N_SEQ, N_EMBD),), lin(N_EMBD, 3 * N_EMBD), {}),
    "ffn": ((rand(N_SEQ, N_EMBD),), {"c_fc": lin(N_EMBD, 4 * N_EMBD), "c_proj": lin(4 * N_EMBD, N_EMBD)}, {}),
    "attention": ((rand(N_SEQ, 8), rand(N_SEQ, 8), rand(N_SEQ, 8), rand(N_SEQ, N_SEQ)), {}, {}),
    "mha": ((rand(N_SEQ, N_EMBD),), {"c_attn": lin(N_EMBD, 3 * N_EMBD), "c_proj": lin(N_EMBD, N_EMBD)},
            {"n_head": N_HEAD}),
    "transformer_block": ((rand(TINY["n_ctx"], TINY["n_embd"]),), block_params(), {"n_head": TINY["n_head"]}),
}  # fmt: skip


def run(name, target):
    args, kwargs, static = CASES[name]
    fn = getattr(G, name)
    jitted = aicf.jit(fn, target=target, static_argnames=tuple(static))
    out = jitted(*args, **kwargs, **static)  # NumPy arrays: copied to the GPU on cuda
    if target == "cuda":
        out = cp.asnumpy(out)
    ref = fn(*G.as_float64(list(args)), **G.as_float64(kwargs), **static)
    return out, ref


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_matches_numpy_float64(name):
    out, ref = run(name, "cpu")
    assert out.dtype == np.float32  # NumPy's float64 scalars and constants kept it f32
    assert np.isfinite(out).all()
    assert G.rel_err(out, ref) < 1e-5


def gpt2_case(seq: int, n_layer: int = TINY["n_layer"]):
    cfg = {**TINY, "n_layer": n_layer}
    params = G.init_params(**cfg, seed=4)
    # int64 ids, NumPy's default integers, as picoGPT's encoder gives them
    inputs = RNG.integers(0, cfg["n_vocab"], seq)
    return cfg, params, inputs


@pytest.mark.parametrize("seq", [1, 7, TINY["n_ctx"]])
def test_gpt2_matches_numpy_float64(seq):
    cfg, params, inputs = gpt2_case(seq)
    model = aicf.jit(G.gpt2, static_argnames="n_head")
    logits = model(inputs, **params, n_head=cfg["n_head"])
    ref = G.gpt2(inputs, **G.as_float64(params), n_head=cfg["n_head"])
    assert logits.shape == (seq, cfg["n_vocab"]) and logits.dtype == np.float32
    assert G.rel_err(logits, ref) < 1e-5
    assert (np.argmax(logits, -1) == np.argmax(ref, -1)).all()


def test_gpt2_example_runs():
    G.main(["--config", "tiny", "--seq", "9", "--target", "cpu"])


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES))
def test_function_matches_numpy_float64_cuda(name):
    out, ref = run(name, "cuda")
    assert out.dtype == np.float32 and G.rel_err(out, ref) < 1e-5


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("seq", [7, TINY["n_ctx"]])
def test_gpt2_matches_numpy_float64_cuda(seq):
    cfg, params, inputs = gpt2_case(seq)
    model = aicf.jit(G.gpt2, target="cuda", static_argnames="n_head")
    logits = cp.asnumpy(model(cp.asarray(inputs), **params, n_head=cfg["n_head"]))
    ref = G.gpt2(inputs, **G.as_float64(params), n_head=cfg["n_head"])
    assert G.rel_err(logits, ref) < 1e-5
    assert (np.argmax(logits, -1) == np.argmax(ref, -1)).all()
