"""A nanoGPT-style GPT-2 in PyTorch (random weights, GPT-2-small widths or a smaller
configuration), run through `torch.compile(model, backend="aicf")` and checked
against torch eager; with --bench, timed against eager and inductor in the same run.

    python examples/gpt2_torch.py --config tiny --device cpu
    python examples/gpt2_torch.py --config small --device cuda --dtype float16 \\
        --batch 8 --seq 1024 --bench

The module is nanoGPT's model.py in shape (github.com/karpathy/nanoGPT): token and
position embeddings, pre-norm blocks with causal self-attention through
F.scaled_dot_product_attention and a GELU MLP, a tied language-model head.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    bias: bool = True


CONFIGS = {
    "small": GPTConfig(),
    "tiny": GPTConfig(block_size=64, vocab_size=101, n_layer=2, n_head=4, n_embd=64),
}


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.normal_(module.bias, mean=0.0, std=0.02)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)


def rel_err(out: torch.Tensor, ref: torch.Tensor) -> float:
    out, ref = out.double(), ref.double()
    return float(torch.linalg.norm(out - ref) / torch.linalg.norm(ref))


def timed(fn, x, reps: int, device: str) -> float:
    """Seconds per call (CUDA events on the GPU), after three warm-up calls (aicf's
    CUDA graph is captured the second time a set of buffers comes; torch's allocator
    may alternate two output blocks)."""
    for _ in range(3):
        fn(x)
    if device == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn(x)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 1e3 / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(x)
    return (time.perf_counter() - t0) / reps


def main(argv=None) -> None:
    import aicf.torch_backend as backend

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), default="tiny")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=None, help="tokens (default: block_size)")
    ap.add_argument("--layers", type=int, default=None, help="override n_layer")
    ap.add_argument("--bench", action="store_true", help="time eager, inductor and aicf")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--profile", action="store_true", help="aicf's kernels by total time (one forward)")
    args = ap.parse_args(argv)
    config = CONFIGS[args.config]
    if args.layers is not None:
        config = GPTConfig(**{**config.__dict__, "n_layer": args.layers})
    seq = args.seq or config.block_size
    torch.manual_seed(0)
    dtype = getattr(torch, args.dtype)
    model = GPT(config).to(args.device, dtype).eval()
    idx = torch.randint(0, config.vocab_size, (args.batch, seq), device=args.device)

    with torch.no_grad():
        ref = model(idx)
        compiled = torch.compile(model, backend="aicf", dynamic=False)
        t0 = time.perf_counter()
        out = compiled(idx)
        if args.device == "cuda":
            torch.cuda.synchronize()
        first = time.perf_counter() - t0
        report = backend.last_report()
        print(f"gpt2 {args.config} ({config.n_layer} layers, batch {args.batch} x {seq} tokens, "
              f"{args.dtype}) on {args.device}: torch.compile(backend='aicf') first call {first:.1f} s")
        print(report.summary())
        print(f"logits rel err vs torch eager: {rel_err(out, ref):.2e}; argmax agrees at "
              f"{(out.argmax(-1) == ref.argmax(-1)).double().mean().item() * 100:.1f}% of positions")
        if args.bench:
            inductor = torch.compile(model, dynamic=False)
            times = {name: timed(fn, idx, args.reps, args.device)
                     for name, fn in (("eager", model), ("inductor", inductor), ("aicf", compiled))}
            print("  ".join(f"{k} {v * 1e3:.2f} ms" for k, v in times.items())
                  + f"  (aicf / eager {times['aicf'] / times['eager']:.2f}x, "
                  f"aicf / inductor {times['aicf'] / times['inductor']:.2f}x)")
        if args.profile:
            print_profile(compiled, idx)


def print_profile(fn, x, top: int = 20) -> None:
    """One forward under aicf's profiler (each launch timed on its own, so the sum
    exceeds a graph replay's time), kernels grouped by name, largest total first."""
    import aicf

    fn(x)
    with aicf.profiler() as prof:
        fn(x)
    prof.finish()
    by: dict[str, list] = {}
    for r in prof.records:
        e = by.setdefault(r.kernel, [0, 0.0, 0, 0])
        e[0] += 1
        e[1] += r.ms
        e[2] += r.flops
        e[3] += r.nbytes
    total = sum(e[1] for e in by.values())
    print(f"aicf profile: {len(prof.records)} launches, {total:.2f} ms summed")
    for name, (n, ms, fl, nb) in sorted(by.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {name[:60]:60} x{n:<3} {ms:8.3f} ms  {fl / ms / 1e9 if ms else 0:7.1f} TFLOP/s "
              f"{nb / ms / 1e6 if ms else 0:7.0f} GB/s")


if __name__ == "__main__":
    main()
