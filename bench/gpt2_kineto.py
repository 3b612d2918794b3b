"""GPT-2's kernels by device time, aicf against inductor, from torch's profiler (CUPTI:
the kernels' own times, which aicf's event profiler inflates for small kernels).

    python3 bench/gpt2_kineto.py [--config small] [--batch 8] [--seq 1024] [--explain FILE]

One forward of each compiled model after warm-up; `--explain` writes aicf's plan of the
model (every nest's candidates and pick) to FILE.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import gpt2_torch as g  # noqa: E402

import aicf.torch_backend as backend  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="small")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--explain")
    args = ap.parse_args()
    torch.manual_seed(0)
    model = g.GPT(g.CONFIGS[args.config]).to("cuda", torch.float16).eval()
    idx = torch.randint(0, model.config.vocab_size, (args.batch, args.seq), device="cuda")
    with torch.no_grad():
        for name in ("aicf", "inductor"):
            f = torch.compile(model, backend=name, dynamic=False)
            for _ in range(4):
                f(idx)
            torch.cuda.synchronize()
            if name == "aicf" and args.explain:
                Path(args.explain).write_text("\n\n".join(e.explain() for e in backend.last_report().executables))
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                f(idx)
                torch.cuda.synchronize()
            evs = [e for e in prof.key_averages() if e.device_time_total > 0]
            total = sum(e.device_time_total for e in evs)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(20):
                f(idx)
            end.record()
            torch.cuda.synchronize()
            wall = start.elapsed_time(end) / 20
            print(f"== {name}: kernels sum {total / 1000:.2f} ms, {len(evs)} kinds; a forward {wall:.2f} ms (events)")
            for e in sorted(evs, key=lambda e: -e.device_time_total)[:args.top]:
                print(f"  {e.key[:90]:90} x{e.count:<4} {e.device_time_total / 1000:7.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
