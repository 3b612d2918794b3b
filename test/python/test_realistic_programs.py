"""NumPy programs the way tutorials and model code write them, unchanged, through
`aicf.jit` on both targets: softmax and its log forms, the norms, activations,
attention with a causal mask, an MLP, distances, k-means assignment, losses, integer
floor division. The reference is NumPy itself on float64 copies of the inputs (int
programs: NumPy on the same ints); the GPU half runs where CuPy sees a GPU."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_support import cp, gpu

import aicf

RNG = np.random.default_rng(2026)


def normal(*shape, dtype=np.float32, scale=1.0):
    return (scale * RNG.standard_normal(shape)).astype(dtype)


# --- the programs -----------------------------------------------------------------------------


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


def logsumexp(x):
    m = np.max(x, axis=1)
    return m + np.log(np.exp(x - m[:, None]).sum(axis=1))


def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    return g * (x - mean) / np.sqrt(variance + eps) + b


def rms_norm(x, w):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + 1e-6) * w


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def swiglu(x, w1, w3):
    a = x @ w1
    return a * (1 / (1 + np.exp(-a))) * (x @ w3)


def causal_attention(q, k, v):
    n, d = q.shape
    mask = (1 - np.tri(n, dtype=x_dtype(q))) * -1e10
    scores = q @ k.T / np.sqrt(d) + mask
    return softmax(scores) @ v


def batched_heads_attention(x, w_qkv):
    n_seq, n_embd = x.shape
    q, k, v = np.split(x @ w_qkv, 3, axis=-1)
    heads = lambda t: t.reshape(n_seq, 4, n_embd // 4).transpose(1, 0, 2)  # noqa: E731
    q, k, v = heads(q), heads(k), heads(v)
    att = q @ k.transpose(0, 2, 1) / np.sqrt(n_embd // 4)
    att = np.where(np.tril(np.ones((n_seq, n_seq), dtype=bool)), att, -np.inf)
    return (softmax(att) @ v).transpose(1, 0, 2).reshape(n_seq, n_embd)


def mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    return h @ w2 + b2


def pairwise_sq_dist(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)


def kmeans_assign(points, centroids):
    d = np.sqrt(((points[:, np.newaxis] - centroids) ** 2).sum(axis=2))
    return np.argmin(d, axis=1)


def cosine_similarity(a, b):
    na = np.linalg.norm(a, axis=1, keepdims=True)
    nb = np.linalg.norm(b, axis=1, keepdims=True)
    return (a @ b.T) / (na * nb.T)


def one_hot_cross_entropy(logits, labels):
    n, c = logits.shape
    onehot = (labels[:, None] == np.arange(c)[None, :]).astype(logits.dtype)
    return -np.mean(np.sum(onehot * log_softmax(logits), axis=1))


def batch_norm_eval(x, mean, var, gamma, beta):
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


def huber(pred, y, delta: float = 1.0):
    r = np.abs(pred - y)
    return np.mean(np.where(r <= delta, 0.5 * r**2, delta * (r - 0.5 * delta)))


def sigmoid_bce_with_logits(x, z):
    return np.mean(np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))))


def leaky_relu_clip(x):
    return np.clip(np.where(x > 0, x, 0.01 * x), -1.0, 1.0)


def batched_matmul_einsum(a, b):
    return np.einsum("bij,bjk->bik", a, b)


def outer_plus(a, b, c):
    return np.outer(a, b) + c


def floor_div_mod(i, j):
    return (i // j) * j + i % j, i // j, np.remainder(i, j)


def x_dtype(a):
    return a.dtype


# --- inputs and tolerances --------------------------------------------------------------------

F16 = np.float16
CASES = {
    "softmax": (softmax, lambda: [normal(64, 300, scale=3.0)]),
    "softmax_f16": (softmax, lambda: [normal(32, 1000, dtype=F16, scale=3.0)]),
    "log_softmax": (log_softmax, lambda: [normal(16, 257, scale=5.0)]),
    "logsumexp": (logsumexp, lambda: [normal(33, 70, scale=10.0)]),
    "layer_norm": (layer_norm, lambda: [normal(24, 768), normal(768), normal(768)]),
    "layer_norm_f16": (layer_norm, lambda: [normal(8, 512, dtype=F16), normal(512, dtype=F16), normal(512, dtype=F16)]),
    "rms_norm": (rms_norm, lambda: [normal(5, 7, 96), normal(96)]),
    "gelu": (gelu, lambda: [normal(1000, scale=4.0)]),
    "swiglu": (swiglu, lambda: [normal(12, 64), normal(64, 96, scale=0.1), normal(64, 96, scale=0.1)]),
    "causal_attention": (causal_attention, lambda: [normal(10, 16), normal(10, 16), normal(10, 16)]),
    "batched_heads_attention": (batched_heads_attention, lambda: [normal(9, 32), normal(32, 96, scale=0.2)]),
    "mlp": (mlp, lambda: [normal(20, 30), normal(30, 50, scale=0.2), normal(50), normal(50, 10, scale=0.2), normal(10)]),
    "pairwise_sq_dist": (pairwise_sq_dist, lambda: [normal(40, 3), normal(17, 3)]),
    "kmeans_assign": (kmeans_assign, lambda: [normal(200, 2), normal(5, 2, scale=2.0)]),
    "cosine_similarity": (cosine_similarity, lambda: [normal(11, 8), normal(13, 8)]),
    "one_hot_cross_entropy": (one_hot_cross_entropy, lambda: [normal(32, 10, scale=2.0),
                                                              RNG.integers(0, 10, 32).astype(np.int32)]),
    "batch_norm_eval": (batch_norm_eval, lambda: [normal(8, 16, 5, 5), normal(16, 1, 1), np.abs(normal(16, 1, 1)),
                                                  normal(16, 1, 1), normal(16, 1, 1)]),
    "standardize": (standardize, lambda: [normal(100, 6, scale=3.0) + 10]),
    "huber": (huber, lambda: [normal(500, scale=2.0), normal(500)]),
    "sigmoid_bce_with_logits": (sigmoid_bce_with_logits, lambda: [normal(300, scale=20.0),
                                                                  (RNG.random(300) > 0.5).astype(np.float32)]),
    "leaky_relu_clip": (leaky_relu_clip, lambda: [normal(3, 4, 50, scale=2.0)]),
    "batched_matmul_einsum": (batched_matmul_einsum, lambda: [normal(3, 7, 5), normal(3, 5, 9)]),
    "outer_plus": (outer_plus, lambda: [normal(31), normal(17), normal(31, 17)]),
    "floor_div_mod": (floor_div_mod, lambda: [RNG.integers(-1000, 1000, (6, 50)).astype(np.int32),
                                              np.where(RNG.random(50) > 0.5, 1, -1).astype(np.int32)
                                              * RNG.integers(1, 40, 50).astype(np.int32)]),
}  # fmt: skip


def _reference(fn, inputs):
    as64 = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in inputs]
    return fn(*as64)


def _check(name, out, ref, inputs):
    outs, refs = (out, ref) if isinstance(ref, tuple) else ((out,), (ref,))
    assert len(outs) == len(refs), name
    floats = [a.dtype for a in inputs if a.dtype.kind == "f"]
    f16 = any(d == np.float16 for d in floats)
    for o, r in zip(outs, refs):
        o, r = np.asarray(o), np.asarray(r)
        assert o.shape == r.shape, f"{name}: shape {o.shape}, NumPy's {r.shape}"
        if r.dtype.kind in "iub":
            assert o.dtype.kind == r.dtype.kind, f"{name}: dtype {o.dtype}, NumPy's {r.dtype}"
            np.testing.assert_array_equal(o, r, err_msg=name)
            continue
        assert o.dtype == (np.float16 if f16 else np.float32), f"{name}: dtype {o.dtype}"
        o = o.astype(np.float64)
        scale = np.maximum(np.abs(r), 1.0)
        err = float(np.max(np.abs(o - r) / scale)) if r.size else 0.0
        assert err < (8e-3 if f16 else 2e-5), f"{name}: max error {err:.3g} relative to max(|ref|, 1)"


@pytest.mark.parametrize("name", list(CASES))
def test_cpu(name):
    fn, make = CASES[name]
    inputs = make()
    out = aicf.jit(fn)(*inputs)
    _check(name, out, _reference(fn, inputs), inputs)


@gpu
@pytest.mark.parametrize("name", list(CASES))
def test_cuda(name):
    fn, make = CASES[name]
    inputs = make()
    out = aicf.jit(fn, target="cuda")(*[cp.asarray(a) for a in inputs])
    out = tuple(cp.asnumpy(o) for o in out) if isinstance(out, tuple) else cp.asnumpy(out)
    _check(name, out, _reference(fn, inputs), inputs)
