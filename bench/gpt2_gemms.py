"""GPT-2 small's linear layers (8 x 1024 tokens, f16, x @ W^T with W as nn.Linear
stores it) through aicf.compile against torch's F.linear on the same device arrays,
one run, CUDA events, medians (bench/run.py's bench): whether aicf's matmul calls
cost what torch's do inside a model.

    python3 bench/gpt2_gemms.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import aicf

sys.path.insert(0, str(Path(__file__).parent))
from run import bench  # noqa: E402

M = 8192
LAYERS = {"qkv": (2304, 768), "attn proj": (768, 768), "fc": (3072, 768), "mlp proj": (768, 3072),
          "lm head": (50257, 768)}


def program(n: int, k: int) -> str:
    x, w, y = f"tensor<{M}x{k}xf16>", f"tensor<{n}x{k}xf16>", f"tensor<{M}x{n}xf16>"
    return (f"func.func @f(%x: {x}, %w: {w}) -> {y} {{\n"
            f"  %wt = aicf_tensor.transpose %w perm = [1, 0] : ({w}) -> tensor<{k}x{n}xf16>\n"
            f"  %y = aicf_tensor.matmul %x, %wt : ({x}, tensor<{k}x{n}xf16>) -> {y}\n"
            f"  func.return %y : {y}\n}}\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    import cupy as cp
    import torch
    import torch.nn.functional as F

    rows = []
    for name, (n, k) in LAYERS.items():
        exe = aicf.compile(program(n, k), target="cuda")
        rng = np.random.default_rng(n + k)
        x = cp.asarray(rng.standard_normal((M, k)).astype(np.float16))
        w = cp.asarray((rng.standard_normal((n, k)) * 0.02).astype(np.float16))
        tx, tw = torch.as_tensor(x, device="cuda"), torch.as_tensor(w, device="cuda")
        got = torch.as_tensor(exe(x, w), device="cuda").float()
        ref = F.linear(tx, tw).float()
        err = float((got - ref).norm() / ref.norm())
        t_aicf = bench(lambda: exe(x, w), 15, warmup=5, inner=10)  # noqa: B023
        t_torch = bench(lambda: F.linear(tx, tw), 15, warmup=5, inner=10)  # noqa: B023
        tf = 2 * M * n * k / 1e12
        row = {"layer": name, "m": M, "n": n, "k": k, "aicf_ms": t_aicf, "torch_ms": t_torch,
               "aicf_tflops": tf / (t_aicf * 1e-3), "torch_tflops": tf / (t_torch * 1e-3), "rel_err": err}
        rows.append(row)
        print(f"{name:10} {M}x{n}x{k}: aicf {t_aicf:.3f} ms ({row['aicf_tflops']:.0f} TFLOP/s), "
              f"torch {t_torch:.3f} ms ({row['torch_tflops']:.0f}); aicf / torch speed {t_torch / t_aicf:.2f}x; "
              f"rel err {err:.1e}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
