"""GPT-2's forward pass written the way picoGPT (github.com/jaymody/picoGPT, MIT
licence) writes it, in plain NumPy, run unchanged under `aicf.jit` and checked against
NumPy in float64. The weights are random (no download); the widths are GPT-2 small's
or a configuration's given on the command line.

    python examples/gpt2_numpy.py --config tiny --target cpu
    python examples/gpt2_numpy.py --config small --seq 1024 --target cuda

The model functions below are NumPy code and nothing else: aicf traces them through
NumPy's `__array_ufunc__`/`__array_function__` protocols (aicf/frontend/numpy_api.py).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)
    return g * x + b


def linear(x, w, b):
    return x @ w + b


def ffn(x, c_fc, c_proj):
    a = gelu(linear(x, **c_fc))
    x = linear(a, **c_proj)
    return x


def attention(q, k, v, mask):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn, c_proj, n_head):
    x = linear(x, **c_attn)
    qkv = np.split(x, 3, axis=-1)
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]
    x = np.hstack(out_heads)
    x = linear(x, **c_proj)
    return x


def transformer_block(x, mlp, attn, ln_1, ln_2, n_head):
    x = x + mha(layer_norm(x, **ln_1), **attn, n_head=n_head)
    x = x + ffn(layer_norm(x, **ln_2), **mlp)
    return x


def gpt2(inputs, wte, wpe, blocks, ln_f, n_head):
    x = wte[inputs] + wpe[range(len(inputs))]
    for block in blocks:
        x = transformer_block(x, **block, n_head=n_head)
    x = layer_norm(x, **ln_f)
    return x @ wte.T


# --- random weights in GPT-2's layout ----------------------------------------------------------

CONFIGS = {
    "small": dict(n_vocab=50257, n_ctx=1024, n_embd=768, n_head=12, n_layer=12),
    "tiny": dict(n_vocab=97, n_ctx=32, n_embd=32, n_head=4, n_layer=2),
}


def init_params(n_vocab, n_ctx, n_embd, n_head, n_layer, dtype=np.float32, seed=0):
    """GPT-2's parameter pytree (as picoGPT loads it) with random values of GPT-2's
    initial scale (0.02; layer norms near identity)."""
    del n_head
    rng = np.random.default_rng(seed)

    def normal(*shape, scale=0.02):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    def ln():
        return {"g": (1 + normal(n_embd, scale=0.1)).astype(dtype), "b": normal(n_embd)}

    def lin(n_in, n_out):
        return {"w": normal(n_in, n_out), "b": normal(n_out)}

    blocks = [
        {
            "mlp": {"c_fc": lin(n_embd, 4 * n_embd), "c_proj": lin(4 * n_embd, n_embd)},
            "attn": {"c_attn": lin(n_embd, 3 * n_embd), "c_proj": lin(n_embd, n_embd)},
            "ln_1": ln(),
            "ln_2": ln(),
        }
        for _ in range(n_layer)
    ]
    return {
        "wte": normal(n_vocab, n_embd),
        "wpe": normal(n_ctx, n_embd, scale=0.01),
        "blocks": blocks,
        "ln_f": ln(),
    }


def as_float64(tree):
    if isinstance(tree, dict):
        return {k: as_float64(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [as_float64(v) for v in tree]
    return np.asarray(tree, np.float64)


def rel_err(out, ref) -> float:
    out = np.asarray(out, np.float64)
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def main(argv=None) -> None:
    import aicf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), default="tiny")
    ap.add_argument("--seq", type=int, default=None, help="tokens (default: n_ctx)")
    ap.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--layers", type=int, default=None, help="override n_layer")
    args = ap.parse_args(argv)
    cfg = dict(CONFIGS[args.config])
    if args.layers is not None:
        cfg["n_layer"] = args.layers
    seq = args.seq or cfg["n_ctx"]
    params = init_params(**cfg)
    inputs = np.random.default_rng(1).integers(0, cfg["n_vocab"], seq)  # int64, as picoGPT's
    model = aicf.jit(gpt2, target=args.target, static_argnames="n_head")

    t0 = time.perf_counter()
    logits = model(inputs, **params, n_head=cfg["n_head"])
    first = time.perf_counter() - t0
    if args.target == "cuda":
        import cupy as cp

        logits = cp.asnumpy(logits)
    t0 = time.perf_counter()
    for _ in range(3):
        model(inputs, **params, n_head=cfg["n_head"])
    if args.target == "cuda":
        cp.cuda.Device().synchronize()
    warm = (time.perf_counter() - t0) / 3
    t0 = time.perf_counter()
    ref = gpt2(inputs, **as_float64(params), n_head=cfg["n_head"])
    ref_s = time.perf_counter() - t0
    print(f"gpt2 {args.config} ({cfg['n_layer']} layers, {seq} tokens) on {args.target}: "
          f"first call {first:.2f} s, then {warm * 1e3:.2f} ms per call "
          f"(NumPy float64 {ref_s * 1e3:.1f} ms)")
    print(f"logits rel err vs NumPy float64: {rel_err(logits, ref):.2e}; argmax agrees at "
          f"{np.mean(np.argmax(logits, -1) == np.argmax(ref, -1)) * 100:.1f}% of positions")


if __name__ == "__main__":
    main()
